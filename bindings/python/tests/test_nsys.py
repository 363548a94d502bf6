"""Nsight Systems SQLite exports through the Python binding: trace_info and
trace_launch_regions on a shared export, held against Python's own sqlite3
over the same file."""

import os
import sqlite3

import pytest

import opguard
from conftest import ROOT

NSYS = ROOT.parent / "shared" / "data" / "nsys"
EXPORT = NSYS / "pipit_perlmutter-cloverleaf-cuda.sqlite"
REPORT = NSYS / "test-cuda_report1.nsys-rep"


def need_data():
    if not (EXPORT.is_file() and REPORT.is_file()):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {NSYS} is missing")
        pytest.skip(f"no shared data at {NSYS} (real exports, see its README)")


def sql(query):
    db = sqlite3.connect(f"file:{EXPORT}?mode=ro", uri=True)
    try:
        return db.execute(query).fetchone()
    finally:
        db.close()


def test_trace_info_reads_an_export():
    need_data()
    info = opguard.trace_info(EXPORT)
    assert info["format"] == "nsys_sqlite"
    assert info["provider"] == "nsight_systems"
    (version,) = sql("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'")
    assert info["meta"]["product_version"] == version
    rows = {t["table"]: t["rows"] for t in info["tables"]}
    (kernels,) = sql("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
    assert rows["CUPTI_ACTIVITY_KIND_KERNEL"] == kernels


def test_launch_regions_prove_launches_within_their_process():
    need_data()
    region = opguard.trace_launch_regions([EXPORT])["regions"][0]
    kernels, ns = sql('SELECT COUNT(*), SUM("end" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL')
    (proven,) = sql(
        """WITH keyed AS (
             SELECT globalTid >> 24 AS process, correlationId AS id, COUNT(*) AS calls
             FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass != 67 GROUP BY 1, 2)
           SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN keyed
             ON keyed.process = k.globalPid >> 24 AND keyed.id = k.correlationId
           WHERE keyed.calls = 1""")
    assert (region["kernel_count"], region["kernel_duration_ns"]) == (kernels, ns)
    assert region["correlated_kernel_count"] == proven


def test_a_binary_report_is_refused_with_the_export_command():
    need_data()
    with pytest.raises(opguard.TraceError) as e:
        opguard.trace_info(REPORT)
    assert e.value.code == "trace.nsight_report"
    assert "nsys export --type sqlite" in str(e.value)
