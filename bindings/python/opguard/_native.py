"""Finding, loading and calling the opguard shared library (ctypes)."""

import ctypes
import json
import os
import sys
import threading
from pathlib import Path

from .errors import DocumentError, LibraryNotFoundError, RequestError, error_from_envelope

ABI_VERSION = 1

if sys.platform == "darwin":
    LIB_NAME = "libopguard_capi.dylib"
elif sys.platform == "win32":
    LIB_NAME = "opguard_capi.dll"
else:
    LIB_NAME = "libopguard_capi.so"

# Every JSON entry point of ABI version 1: char *f(const char *request).
JSON_ENTRY_POINTS = (
    "opguard_kernel_canonicalize",
    "opguard_kernel_canonicalize_batch",
    "opguard_kernel_short_name",
    "opguard_kernel_match_json",
    "opguard_kernel_match_batch",
    "opguard_trace_info",
    "opguard_trace_launch_regions",
    "opguard_census",
    "opguard_census_compare_widths",
    "opguard_profile_top_n",
    "opguard_seam_verdict",
    "opguard_export_build",
    "opguard_alignment_map_apply",
    "opguard_scaling_correlate",
    "opguard_job_summary",
    "opguard_job_merge",
    "opguard_compare",
)




def bundled():
    """The library inside the installed package (a wheel carries one; see
    setup.py), whether or not it is there."""
    return [Path(__file__).resolve().parent / LIB_NAME]


def candidates():
    """Where the library is looked for, in order: the one bundled in the
    package (an installed wheel), then ``$OPGUARD_LIB``, then the workspace's
    target directories (``$CARGO_TARGET_DIR``, ``target/``; development),
    release before debug."""
    out = bundled()
    env = os.environ.get("OPGUARD_LIB")
    if env:
        # An explicit choice: the workspace is not searched behind it.
        out.append(Path(env))
        return out
    roots = []
    if os.environ.get("CARGO_TARGET_DIR"):
        roots.append(Path(os.environ["CARGO_TARGET_DIR"]))
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "Cargo.toml").is_file() and (parent / "opguard-capi").is_dir():
            roots.append(parent / "target")
            break
    for root in roots:
        for profile in ("release", "debug"):
            out.append(root / profile / LIB_NAME)
    return out


class Library:
    """One loaded copy of the library with its functions declared.

    Returned strings are declared ``c_void_p`` (a ``c_char_p`` result would be
    copied to ``bytes`` and the pointer lost), read with ``string_at`` and
    released with ``opguard_string_free`` in a ``finally``.
    """

    def __init__(self, path):
        self.path = Path(path)
        try:
            self._dll = ctypes.CDLL(str(self.path))
        except OSError as e:
            raise LibraryNotFoundError(f"cannot load {self.path}: {e}") from e
        d = self._dll
        d.opguard_version.restype = ctypes.c_char_p  # static: never freed
        d.opguard_version.argtypes = []
        d.opguard_abi_version.restype = ctypes.c_uint32
        d.opguard_abi_version.argtypes = []
        d.opguard_string_free.restype = None
        d.opguard_string_free.argtypes = [ctypes.c_void_p]
        d.opguard_status_name.restype = ctypes.c_char_p  # static: never freed
        d.opguard_status_name.argtypes = [ctypes.c_int]
        d.opguard_kernel_match.restype = ctypes.c_int
        d.opguard_kernel_match.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        abi = d.opguard_abi_version()
        if abi != ABI_VERSION:
            raise LibraryNotFoundError(
                f"{self.path} has ABI version {abi}; this package needs {ABI_VERSION}")
        self.entries = {}
        for name in JSON_ENTRY_POINTS:
            fn = getattr(d, name)
            fn.restype = ctypes.c_void_p
            fn.argtypes = [ctypes.c_char_p]
            self.entries[name] = fn
        # char *opguard_table_stream(const char *request, struct ArrowArrayStream *out);
        # absent from a library older than the tables (opguard.arrow says so).
        self.table_stream = getattr(d, "opguard_table_stream", None)
        if self.table_stream is not None:
            self.table_stream.restype = ctypes.c_void_p
            self.table_stream.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        self.table_streams = getattr(d, "opguard_table_streams", None)
        if self.table_streams is not None:
            self.table_streams.restype = ctypes.c_void_p
            self.table_streams.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
        self.free = d.opguard_string_free
        self.kernel_match = d.opguard_kernel_match
        self.status_name = d.opguard_status_name
        self.version = d.opguard_version().decode("utf-8")
        self.abi_version = abi

    def call_raw(self, name, request_bytes):
        """Calls a JSON entry point with encoded request bytes; returns the
        envelope text. The returned string is always released."""
        ptr = self.entries[name](request_bytes)
        if not ptr:
            raise LibraryNotFoundError(f"{name} returned NULL, which ABI 1 never does")
        try:
            return ctypes.string_at(ptr).decode("utf-8")
        finally:
            self.free(ptr)

    def call(self, name, request):
        """Calls a JSON entry point with a dict (or JSON text); returns the
        envelope's value or raises its typed error."""
        if not isinstance(request, (str, bytes)):
            request = json.dumps(request)
        if isinstance(request, str):
            request = request.encode("utf-8", errors="surrogatepass")
        if b"\0" in request:
            # A NUL byte would silently cut the C string; JSON text never holds one.
            raise DocumentError("document.json_syntax",
                               "request holds a NUL byte; JSON escapes it as \\u0000")
        envelope = json.loads(self.call_raw(name, request))
        if envelope.get("ok") is True:
            return envelope["value"]
        raise error_from_envelope(envelope.get("error") or {})


_lock = threading.Lock()
_library = None


def library():
    """The shared library, loaded once per process on first use."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                tried = []
                for path in candidates():
                    if path.is_file():
                        _library = Library(path)
                        break
                    tried.append(str(path))
                else:
                    raise LibraryNotFoundError(
                        "opguard shared library not found: this installation carries none "
                        "(install a platform wheel), OPGUARD_LIB is unset, and no workspace "
                        "build exists (`cargo build --release -p opguard-capi`). Tried: "
                        + ", ".join(tried))
    return _library
