"""The installed wheel (``pytest --installed``): the package imported is the
installed one, and the library it loads is the one it carries."""

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

import opguard
from opguard import _native
from conftest import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the CI interpreter is 3.11
    tomllib = None


def capi_version():
    with open(ROOT / "opguard-capi" / "Cargo.toml", "rb") as f:
        return tomllib.load(f)["package"]["version"]


def test_the_package_is_the_installed_one(installed):
    if not installed:
        pytest.skip("source-tree run; bindings/test.sh runs this with --installed")
    package = Path(opguard.__file__).resolve().parent
    assert ROOT not in package.parents, f"imported from the checkout: {package}"
    assert "site-packages" in package.parts


def test_the_library_is_the_bundled_one(installed):
    if not installed:
        pytest.skip("source-tree run; bindings/test.sh runs this with --installed")
    for name in ("OPGUARD_LIB", "CARGO_TARGET_DIR"):
        assert name not in os.environ, f"{name} is set; the wheel must need nothing"
    package = Path(opguard.__file__).resolve().parent
    assert Path(opguard.library_path()) == package / _native.LIB_NAME


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_the_distribution_reports_the_capi_version(installed):
    if not installed:
        pytest.skip("source-tree run; bindings/test.sh runs this with --installed")
    assert importlib.metadata.version("opguard") == capi_version()
    assert opguard.version() == capi_version()
    assert opguard.__version__ == capi_version()
