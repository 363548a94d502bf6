"""Traces as Arrow tables, through the Arrow PyCapsule interface.

``opguard.kernels(path)``, ``opguard.host_ops(path)``, ``opguard.launches(path)``
and ``opguard.table(path, name)`` read a capture of any format opguard reads
and return a :class:`Table`: an object with ``__arrow_c_stream__``, so

- ``pyarrow.table(t)`` / ``pyarrow.RecordBatchReader.from_stream(t)``,
- ``polars.DataFrame(t)`` / ``polars.from_arrow(t)``,
- ``duckdb.sql("select ... from t")``,

take the record batches opguard built while reading, without a copy and
without JSON: the stream is the C library's ``opguard_table_stream`` (arrow-rs's
Arrow C stream). pyarrow is optional: reading a table needs nothing but this
package; ``to_arrow()`` and ``to_pandas()`` say what to install when it is
missing. Columns: opguard-arrow's README (device rows with their launch proof,
host operations with self time and input shapes, runtime calls with the
device rows they launched, the capture's metadata).

>>> import opguard
>>> opguard.arrow.TABLES
('device', 'host', 'launches', 'metadata')
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _native
from .errors import LibraryNotFoundError, error_from_envelope

#: A file path.
PathLike = Union[str, "os.PathLike[str]"]

#: The tables a capture gives, as ``opguard.table`` names them.
TABLES = ("device", "host", "launches", "metadata")

# The Arrow C stream as the Arrow specification lays it out (five pointers).
class _ArrowArrayStream(ctypes.Structure):
    _fields_ = [
        ("get_schema", ctypes.c_void_p),
        ("get_next", ctypes.c_void_p),
        ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


_RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# The capsule name the PyCapsule interface requires; kept alive with the module.
_CAPSULE_NAME = b"arrow_array_stream"

# Private prototypes of the C API functions used (an attribute of
# ctypes.pythonapi is shared by every module that sets its argtypes).
_api = ctypes.pythonapi
_raw_malloc = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)(("PyMem_RawMalloc", _api))
_raw_free = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)(("PyMem_RawFree", _api))
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", _api))
# The destructor gets the capsule while it is being freed: it is passed as a
# plain pointer, never as an object (which would revive it).
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


def _release_and_free(address: int) -> None:
    """Ends a stream nobody moved out (release set) and frees its struct."""
    stream = _ArrowArrayStream.from_address(address)
    if stream.release:
        _RELEASE(stream.release)(address)
    _raw_free(address)


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule: int) -> None:
    # A consumer that imported the stream moved it out (release is NULL
    # then); one that did not, or stopped early, leaves it to be released here.
    address = _capsule_pointer(capsule, _CAPSULE_NAME)
    if address:
        _release_and_free(address)


class PyArrowMissing(ImportError):
    """pyarrow is needed for ``to_arrow()``/``to_pandas()`` and is not installed."""


def _pyarrow():
    try:
        import pyarrow  # noqa: PLC0415 - optional dependency, imported on demand
    except ImportError as e:
        raise PyArrowMissing(
            "opguard tables convert to pyarrow and pandas through pyarrow, which is not "
            "installed: `pip install pyarrow` (and `pandas` for to_pandas). Without it, "
            "polars.DataFrame(t) and duckdb.sql('... from t') read the table directly."
        ) from e
    return pyarrow


def _request(path: PathLike, batch_rows: Optional[int], provider: Optional[str],
             reader: Optional[Mapping[str, Any]], **names: Any) -> bytes:
    request: Dict[str, Any] = {"path": str(path), **names}
    if batch_rows is not None:
        request["batch_rows"] = batch_rows
    if provider is not None:
        request["provider"] = provider
    if reader is not None:
        request["reader"] = dict(reader)
    return json.dumps(request).encode("utf-8")


def _read(request: bytes, count: int, several: bool):
    """Calls opguard_table_stream (or _streams for ``several``) and returns
    one separately allocated stream per table, owned by the caller, and the
    envelope's value; raises the envelope's error."""
    lib = _native.library()
    entry = lib.table_streams if several else lib.table_stream
    if entry is None:
        raise LibraryNotFoundError(
            f"{lib.path} has no opguard_table_stream (a library older than this package)")
    size = ctypes.sizeof(_ArrowArrayStream)
    array = _raw_malloc(size * count)
    if not array:
        raise MemoryError("cannot allocate ArrowArrayStreams")
    try:
        ptr = entry(request, array, count) if several else entry(request, array)
        try:
            envelope = json.loads(ctypes.string_at(ptr).decode("utf-8"))
        finally:
            lib.free(ptr)
        if envelope.get("ok") is not True:
            raise error_from_envelope(envelope.get("error") or {})
        # Each stream moves to a struct of its own (the Arrow C stream may be
        # moved by copying its bytes), so each table frees only its own.
        owned = []
        for i in range(count):
            address = _raw_malloc(size)
            if not address:
                raise MemoryError("cannot allocate an ArrowArrayStream")
            ctypes.memmove(address, array + i * size, size)
            ctypes.memset(array + i * size, 0, size)
            owned.append(address)
        return owned, envelope["value"]
    finally:
        for i in range(count):
            stream = _ArrowArrayStream.from_address(array + i * size)
            if stream.release:
                _RELEASE(stream.release)(array + i * size)
        _raw_free(array)


class Table:
    """One table of one capture, readable through the Arrow PyCapsule
    interface (``__arrow_c_stream__``).

    The capture is read when the table is made (a bad file raises its
    ``TraceError`` here, with the reader's code). The first consumer takes
    the batches already built; each later one reads the capture again.
    """

    def __init__(self, path: PathLike, table: str, *, batch_rows: Optional[int] = None,
                 provider: Optional[str] = None, reader: Optional[Mapping[str, Any]] = None):
        self._request = _request(path, batch_rows, provider, reader, table=table)
        address, summary = self._open()
        self._adopt(address, summary)

    @classmethod
    def _holding(cls, request: bytes, address: int, summary: Dict[str, Any]) -> "Table":
        """A table over a stream already read (``tables``)."""
        t = cls.__new__(cls)
        t._request = request
        t._adopt(address, summary)
        return t

    def _adopt(self, address: int, summary: Dict[str, Any]) -> None:
        self._lock = threading.Lock()
        self._held: Optional[int] = address
        self.table: str = summary["table"]
        #: Rows and record batches of the table.
        self.rows: int = summary["rows"]
        self.batches: int = summary["batches"]
        #: The capture's SHA-256, format and provider.
        self.artifact: str = summary["artifact"]
        self.format: str = summary["format"]
        self.provider: str = summary["provider"]
        #: What the reader accepted and said so (a salvaged cut, ...).
        self.warnings: List[Dict[str, Any]] = summary["warnings"]

    def _open(self):
        """Reads the capture: a fresh stream (a struct this object owns) and
        the envelope's value."""
        addresses, value = _read(self._request, 1, several=False)
        return addresses[0], value

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow PyCapsule interface: a capsule named
        ``arrow_array_stream`` holding the table's stream. ``requested_schema``
        is not applied (the table has one schema; a consumer checks it)."""
        with self._lock:
            address, self._held = self._held, None
        if address is None:
            address, _ = self._open()
        try:
            return _capsule_new(address, _CAPSULE_NAME,
                                      ctypes.cast(_capsule_destructor, ctypes.c_void_p))
        except BaseException:
            _release_and_free(address)
            raise

    def to_arrow(self):
        """The table as a ``pyarrow.Table`` (needs pyarrow)."""
        return _pyarrow().table(self)

    def to_pandas(self, **options: Any):
        """The table as a pandas DataFrame, through pyarrow (needs pyarrow
        and pandas); ``options`` go to ``pyarrow.Table.to_pandas``."""
        return self.to_arrow().to_pandas(**options)

    def __len__(self) -> int:
        return self.rows

    def __repr__(self) -> str:
        return (f"<opguard.Table {self.table}: {self.rows} rows in {self.batches} batches, "
                f"{self.provider} {self.format} {self.artifact[:12]}>")

    def __del__(self) -> None:
        address, self._held = getattr(self, "_held", None), None
        if address is not None:
            _release_and_free(address)


def tables(path: PathLike, names=TABLES, *, batch_rows: Optional[int] = None,
           provider: Optional[str] = None,
           reader: Optional[Mapping[str, Any]] = None) -> Dict[str, Table]:
    """Several tables of the capture at ``path`` from one read
    (``opguard_table_streams``): ``{name: Table}`` in the order of ``names``."""
    names = list(names)
    request = _request(path, batch_rows, provider, reader, tables=names)
    addresses, value = _read(request, len(names), several=True)
    out = {}
    for name, address, summary in zip(names, addresses, value["tables"]):
        one = dict(value, **summary)
        out[name] = Table._holding(
            _request(path, batch_rows, provider, reader, table=name), address, one)
    return out


def table(path: PathLike, name: str, **options: Any) -> Table:
    """One table (``device``, ``host``, ``launches`` or ``metadata``) of the
    capture at ``path``; ``options``: ``batch_rows``, ``provider``, ``reader``."""
    return Table(path, name, **options)


def kernels(path: PathLike, **options: Any) -> Table:
    """Device activity: kernels, memory copies and sets, device-timeline
    annotations (the ``device`` table)."""
    return Table(path, "device", **options)


def host_ops(path: PathLike, **options: Any) -> Table:
    """Host work: operators, annotations, Python frames (the ``host`` table)."""
    return Table(path, "host", **options)


def launches(path: PathLike, **options: Any) -> Table:
    """Runtime and driver calls with the device rows each launched (the
    ``launches`` table)."""
    return Table(path, "launches", **options)
