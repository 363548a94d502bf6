"""Whole jobs through the bindings: the map (job_summary) and the reduce
(job_merge) on real rank traces, checked against plain Python over the
traces themselves."""

import gzip
import itertools
import json

import pytest

import opguard
from conftest import SHARED_DATA, shared_data

HTA = SHARED_DATA / "traces" / "hta"
RANKS = [HTA / f"trace_filter__sampled_rank-{i}.json.gz" for i in (0, 1)]


def need_data():
    for rank in RANKS:
        shared_data("traces", "hta", rank.name)


def slowed_copy(src, dst, rank, scale):
    """A real trace with distributedInfo.rank rewritten and every kernel's
    duration scaled: the same program, one rank really slower."""
    doc = json.load(gzip.open(src))
    doc["distributedInfo"]["rank"] = rank
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and "dur" in e:
            e["dur"] = round(e["dur"] * scale)
    with gzip.open(dst, "wt", encoding="utf-8") as f:
        json.dump(doc, f)


def test_job_summary_reads_a_real_rank():
    need_data()
    s = opguard.job_summary(RANKS[1], top=5)
    assert s["format"] == "opguard.job.rank/v1"
    rank = s["rank"]
    assert (rank["rank"], rank["file"], rank["error"]) == (1, str(RANKS[1]), None)
    assert len(rank["top"]) == 5
    assert any(c["name"].startswith("ncclKernel_SendRecv") for c in rank["collectives"])
    # Device time is the sum of the device rows' durations, in ns.
    doc = json.load(gzip.open(RANKS[1]))
    device = sum(round(e["dur"] * 1000) for e in doc["traceEvents"]
                 if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    assert rank["device_time_ns"] == device
    # A rank named differently from its path.
    assert opguard.job_summary(RANKS[1], file="rank-1")["rank"]["file"] == "rank-1"


def test_an_unreadable_rank_is_a_summary_with_its_error():
    s = opguard.job_summary("/nonexistent/rank.json.gz")
    assert s["rank"]["error"]["code"] == "trace.io"
    job = opguard.job_merge([s])
    assert job["ranks"][0]["error"]["code"] == "trace.io"


def test_job_merge_is_the_same_for_every_order_and_grouping(tmp_path):
    need_data()
    for rank in range(3):
        slowed_copy(RANKS[0], tmp_path / f"r{rank}.json.gz", rank, 2.0 if rank == 2 else 1.0)
    summaries = [opguard.job_summary(tmp_path / f"r{r}.json.gz") for r in range(3)]
    summaries.append(opguard.job_summary(tmp_path / "missing.json.gz"))
    want = opguard.job_merge(summaries)
    for order in itertools.permutations(summaries):
        assert opguard.job_merge(order) == want
        left = opguard.job_merge(order[:2])
        assert opguard.job_merge([left, *order[2:]]) == want
    frames = [f for f in want["frames"] if f["category"] == "kernel" and f["max_ns"] > 0]
    assert frames
    for f in frames:
        assert f["slowest_rank"] == 2, f["name"]
        assert [m["file"] for m in f["missing"]] == [str(tmp_path / "missing.json.gz")]
        costs = sorted(c["cost_ns"] for c in f["per_rank"])
        assert (f["max_ns"], f["median_ns"]) == (costs[-1], costs[1])


def test_job_merge_refuses_what_is_not_a_summary():
    with pytest.raises(opguard.JobError) as e:
        opguard.job_merge([{"format": "opguard.job.rank/v2"}])
    assert e.value.code == "job.wrong_format"
    assert isinstance(e.value, opguard.OpguardError)
