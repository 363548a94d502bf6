"""Traces as Arrow tables (``opguard.kernels``, ``host_ops``, ``launches``,
``table``) read by pyarrow, polars, DuckDB and pandas through the Arrow
PyCapsule interface, and by a consumer written here with ctypes alone (no
pyarrow): rows and summed ``dur_ns`` of every table of the shared traces,
held against the independent referee opguard-arrow/tests/referee.py (Python's
json over the same file, exact integer nanoseconds)."""

import ctypes
import functools
import json
import os
import subprocess
import sys

import pytest

import opguard
from conftest import ROOT

HTA = ROOT.parent / "shared" / "data" / "traces" / "hta"
ROCPROF = ROOT.parent / "shared" / "data" / "rocprof" / "prefill_kernel_trace.csv"
REFEREE = ROOT / "opguard-arrow" / "tests" / "referee.py"
RECORD_TABLES = ("device", "host", "launches")

# An exception inside the capsule destructor (a stream left unreleased) fails
# the test instead of passing as a warning.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")


def need(path):
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {path} is missing")
        pytest.skip(f"no shared data at {path} (../shared/data beside the checkout)")


def traces():
    """The shared Kineto traces but the 87 MB MTIA one (opguard-arrow's Rust
    tests hold it): the referee reads each with Python's json."""
    if not HTA.is_dir():
        return []
    return sorted(p for p in HTA.iterdir() if "mtia" not in p.name)


@functools.lru_cache(maxsize=None)
def referee(path):
    out = subprocess.run([sys.executable, str(REFEREE), str(path)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def test_pyarrow_reads_every_table_as_the_referee_counts():
    pa = pytest.importorskip("pyarrow", reason="pyarrow is a test dependency (requirements-test.txt)")
    need(HTA)
    for path in traces():
        want = referee(path)
        for name in RECORD_TABLES:
            t = opguard.table(path, name, batch_rows=64)
            got = pa.table(t)
            label = f"{path.name} {name}"
            assert got.num_rows == want[name]["rows"] == t.rows, label
            total = pa.compute.sum(got["dur_ns"]).as_py() or 0
            assert total == want[name]["dur_ns"], label
            assert got.schema.field("dur_ns").type == pa.int64()


def test_polars_reads_every_table_as_the_referee_counts():
    pl = pytest.importorskip("polars", reason="polars is a test dependency (requirements-test.txt)")
    need(HTA)
    for path in traces():
        want = referee(path)
        for name, make in (("device", opguard.kernels), ("host", opguard.host_ops),
                           ("launches", opguard.launches)):
            df = pl.DataFrame(make(path))
            label = f"{path.name} {name}"
            assert df.height == want[name]["rows"], label
            assert (df["dur_ns"].sum() or 0) == want[name]["dur_ns"], label


def test_duckdb_queries_every_table_as_the_referee_counts():
    duckdb = pytest.importorskip("duckdb", reason="duckdb is a test dependency (requirements-test.txt)")
    need(HTA)
    for path in traces():
        want = referee(path)
        for name in RECORD_TABLES:
            frame = opguard.table(path, name)  # noqa: F841 - DuckDB finds it by name
            rows, total = duckdb.sql("select count(*), coalesce(sum(dur_ns), 0) from frame").fetchall()[0]
            assert (rows, total) == (want[name]["rows"], want[name]["dur_ns"]), f"{path.name} {name}"
        proven = want["device"]["proven"]
        if proven is not None:
            frame = opguard.kernels(path)  # noqa: F841
            got = duckdb.sql("select count(*) from frame where launch = 'proven'").fetchall()[0][0]
            assert got == proven, path.name


def test_pandas_through_pyarrow():
    pytest.importorskip("pyarrow", reason="pyarrow is a test dependency (requirements-test.txt)")
    pytest.importorskip("pandas", reason="pandas is a test dependency (requirements-test.txt)")
    need(HTA)
    path = HTA / "trace_filter__sampled_rank-0.json.gz"
    want = referee(path)
    df = opguard.kernels(path).to_pandas()
    assert len(df) == want["device"]["rows"]
    assert int(df["dur_ns"].sum()) == want["device"]["dur_ns"]
    assert str(df["dur_ns"].dtype) == "int64"


def test_a_native_capture_gives_tables_too():
    pa = pytest.importorskip("pyarrow", reason="pyarrow is a test dependency (requirements-test.txt)")
    need(ROCPROF)
    k = opguard.kernels(ROCPROF)
    assert (k.provider, k.format) == ("rocprofv3", "rocprofv3_csv")
    device = pa.table(k)
    # The capture's README: 1,128 dispatches; one hipGraphLaunch launched 1,123.
    assert device.num_rows == 1128
    launches = pa.table(opguard.launches(ROCPROF)).to_pylist()
    widest = max(launches, key=lambda r: len(r["device_rows"]))
    assert (widest["name"], len(widest["device_rows"])) == ("hipGraphLaunch", 1123)


# ---- the stream itself, with ctypes only ------------------------------------

class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.c_void_p),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]

_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def consume(table, stop_after=None):
    """Reads a capsule's stream as an Arrow consumer does, moving it out of
    the capsule; returns (rows, summed dur_ns, batches read)."""
    capsule = table.__arrow_c_stream__()
    address = _capsule_pointer(capsule, b"arrow_array_stream")
    source = ArrowArrayStream.from_address(address)
    stream = ArrowArrayStream()
    ctypes.memmove(ctypes.byref(stream), address, ctypes.sizeof(stream))
    source.release = ctypes.cast(None, type(source.release))  # moved: the capsule keeps nothing
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    column = names.index("dur_ns")
    rows = total = batches = 0
    try:
        while stop_after is None or batches < stop_after:
            batch = ArrowArray()
            assert stream.get_next(ctypes.byref(stream), ctypes.byref(batch)) == 0
            if not batch.release:
                break
            batches += 1
            rows += batch.length
            child = batch.children[column].contents
            values = ctypes.cast(child.buffers[1], ctypes.POINTER(ctypes.c_int64))
            total += sum(values[child.offset + i] for i in range(child.length))
            batch.release(ctypes.byref(batch))
    finally:
        schema.release(ctypes.byref(schema))
        stream.release(ctypes.byref(stream))
    return rows, total, batches


def test_a_consumer_without_pyarrow_reads_the_stream_as_the_referee_counts():
    need(HTA)
    path = HTA / "trace_filter__sampled_rank-1.json.gz"
    want = referee(path)
    for name in RECORD_TABLES:
        rows, total, batches = consume(opguard.table(path, name, batch_rows=100))
        assert (rows, total) == (want[name]["rows"], want[name]["dur_ns"]), name
        assert batches == -(-rows // 100), name


def test_a_consumer_that_stops_early_and_tables_never_read_are_released():
    need(HTA)
    path = HTA / "trace_filter__sampled_rank-1.json.gz"
    t = opguard.kernels(path, batch_rows=10)
    assert consume(t, stop_after=1)[2] == 1
    # The capsule's destructor releases a stream nobody moved out.
    capsule = opguard.kernels(path).__arrow_c_stream__()
    del capsule
    # A table whose stream was never asked for releases it when collected.
    unread = opguard.host_ops(path)
    del unread


def test_each_consumer_gets_the_whole_table():
    pa = pytest.importorskip("pyarrow", reason="pyarrow is a test dependency (requirements-test.txt)")
    need(HTA)
    t = opguard.launches(HTA / "trace_filter__sampled_rank-0.json.gz")
    first, second = pa.table(t), pa.table(t)
    assert first.num_rows == t.rows > 0
    assert first.equals(second)


def test_pyarrow_is_optional_and_named_when_missing(monkeypatch):
    need(HTA)
    t = opguard.kernels(HTA / "trace_filter__sampled_rank-0.json.gz")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` raises ImportError
    with pytest.raises(opguard.arrow.PyArrowMissing, match="pip install pyarrow"):
        t.to_pandas()
    assert consume(t)[0] == t.rows


def test_errors_are_typed():
    with pytest.raises(opguard.TraceError) as e:
        opguard.kernels(ROOT / "no-such-trace.json")
    assert e.value.code == "trace.io"
    with pytest.raises(opguard.RequestError) as e:
        opguard.table(ROOT / "no-such-trace.json", "kernels")
    assert e.value.code == "capi.invalid_request"


def test_several_tables_from_one_read_are_the_tables_read_alone():
    pa = pytest.importorskip("pyarrow", reason="pyarrow is a test dependency (requirements-test.txt)")
    need(HTA)
    path = HTA / "trace_filter__sampled_rank-0.json.gz"
    want = referee(path)
    got = opguard.tables(path, batch_rows=50)
    assert list(got) == ["device", "host", "launches", "metadata"]
    for name in RECORD_TABLES:
        t = pa.table(got[name])
        assert t.num_rows == want[name]["rows"] == got[name].rows, name
        assert pa.compute.sum(t["dur_ns"]).as_py() == want[name]["dur_ns"], name
        assert t.equals(pa.table(opguard.table(path, name, batch_rows=50))), name
        # A later consumer reads the capture again and gets the same table.
        assert pa.table(got[name]).equals(t), name
    # Tables never consumed release their streams when collected.
    unread = opguard.tables(path, ["launches", "device"])
    assert [t.table for t in unread.values()] == ["launches", "device"]
    del unread
    with pytest.raises(opguard.RequestError):
        opguard.tables(path, ["device", "device"])


def test_native_captures_of_every_format_give_tables():
    """Nsight Systems, XSpace and rocprofv3: device and launch rows as their
    crates' referees count them (opguard-nsys' sqlite3 SQL, opguard-xplane's
    stdlib decoder, the rocprofv3 capture's README)."""
    data = ROOT.parent / "shared" / "data"
    cases = [
        (data / "nsys" / "pipit_perlmutter-cloverleaf-cuda.sqlite", "nsys_sqlite", 1312 + 279, 3048 + 1312),
        (data / "xplane" / "tracelens_jax_conv_minimal_08_tw003.xplane.pb", "xspace", 235, 234),
        (ROCPROF, "rocprofv3_csv", 1128, 5),
    ]
    for path, fmt, device, launches in cases:
        need(path)
        got = opguard.tables(path, ["device", "launches"])
        assert got["device"].format == fmt, path.name
        assert (got["device"].rows, got["launches"].rows) == (device, launches), path.name
        rows, _, _ = consume(got["device"])
        assert rows == device, path.name
