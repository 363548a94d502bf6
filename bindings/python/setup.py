"""Builds the wheel: opguard-capi compiled by cargo and bundled in the package.

The crate is built as a plain C library (``Binding.NoBinding``: no Python
symbols, no libpython link); ctypes loads it. Because it never touches the
Python ABI, the wheel is tagged ``py3-none-<platform>``: one wheel per
platform serves every Python 3 version.
"""

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools_rust import Binding, RustExtension, Strip
from setuptools_rust.build import build_rust

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
CAPI = HERE.parent.parent / "opguard-capi"


def capi_version():
    """opguard-capi's version: the package reports the library it carries."""
    with open(CAPI / "Cargo.toml", "rb") as f:
        return tomllib.load(f)["package"]["version"]


def library_file_name():
    """The name cargo gives the library on this platform, kept in the package
    so the file is recognisable and the same name as everywhere else."""
    if sys.platform == "darwin":
        return "libopguard_capi.dylib"
    if sys.platform == "win32":
        return "opguard_capi.dll"
    return "libopguard_capi.so"


class BuildLibrary(build_rust):
    """Copies the cdylib as ``opguard/<library file name>``, not under a
    Python extension-module name (it is not one)."""

    def get_dylib_ext_path(self, ext, target_fname):
        default = Path(super().get_dylib_ext_path(ext, target_fname))
        return str(default.parent / library_file_name())


class PlatformWheel(bdist_wheel):
    """py3-none-<platform>: a C library loaded by ctypes, not an extension module."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    version=capi_version(),
    rust_extensions=[
        RustExtension(
            # Lands as opguard/libopguard_capi.so (BuildLibrary); opguard._native finds it there.
            "opguard._opguard_capi",
            path=str(CAPI / "Cargo.toml"),
            binding=Binding.NoBinding,
            debug=False,
            # The release profile keeps line tables for backtraces in
            # development; the wheel carries the library without them.
            strip=Strip.Debug,
        )
    ],
    cmdclass={"bdist_wheel": PlatformWheel, "build_rust": BuildLibrary},
    zip_safe=False,
)
