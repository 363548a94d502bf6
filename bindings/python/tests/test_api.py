"""The binding itself: typed errors, ownership, threads, version, loading."""

import ctypes
import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

import opguard
from opguard import _native
from conftest import FIXTURES, ROOT, load_json, shared_data

CAPTURE_W2 = FIXTURES / "census" / "hint_guard_w2.capture.json"
CAPTURE_W8 = FIXTURES / "census" / "hint_guard_w8.capture.json"
TRACE = ('{"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,'
         '"tid":2,"ts":100,"dur":5,"args":{"correlation":7}},{"ph":"X","cat":"kernel",'
         '"name":"void gemm_kernel<float>(float*)","pid":0,"tid":7,"ts":110,"dur":20,'
         '"args":{"correlation":7,"device":0,"stream":7}}]}')


def cargo_version():
    text = (ROOT / "opguard-capi" / "Cargo.toml").read_text(encoding="utf-8")
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    return re.search(r'^version = "([^"]+)"', package, re.M).group(1)


def test_version_is_the_crates_version():
    assert opguard.version() == cargo_version()
    assert opguard.abi_version() == 1


def test_every_json_entry_point_is_declared():
    header = (ROOT / "opguard-capi" / "include" / "opguard.h").read_text(encoding="utf-8")
    declared = set(re.findall(r"^char \*(opguard_\w+)\(const char \*request\);", header, re.M))
    assert declared == set(_native.JSON_ENTRY_POINTS)


def test_request_errors_are_typed():
    with pytest.raises(opguard.RequestError) as e:
        opguard.call("opguard_kernel_canonicalize", "{")
    assert e.value.code == "document.json_syntax"
    assert e.value.details["line"] == 1
    with pytest.raises(opguard.DocumentError) as e:
        opguard.call("opguard_kernel_canonicalize", {"sym": "x"})
    assert e.value.code == "document.unknown_field"
    assert e.value.details["json_path"] == "sym"
    with pytest.raises(opguard.RequestError) as e:
        opguard.call("opguard_kernel_canonicalize", '{"symbol": "\ud800"}')
    assert e.value.code == "capi.invalid_utf8"
    with pytest.raises(opguard.RequestError) as e:
        opguard.call("opguard_kernel_canonicalize", '{"symbol": "a\0b"}')
    assert e.value.code == "document.json_syntax"
    assert isinstance(e.value, opguard.OpguardError)


def test_library_errors_are_typed_by_family():
    with pytest.raises(opguard.TraceError) as e:
        opguard.trace_info("/nonexistent/opguard/trace.json")
    assert e.value.code == "trace.io"
    with pytest.raises(opguard.TraceError) as e:
        opguard.trace_info(text='{"traceEvents": [')
    assert e.value.code == "trace.json_truncated"
    assert "byte_offset" in e.value.details
    with pytest.raises(opguard.CensusError) as e:
        opguard.census(FIXTURES / "census" / "width1_numeric_axis.capture.json")
    assert e.value.code == "census.step_axis_not_symbolic"
    with pytest.raises(opguard.CensusError) as e:
        opguard.census_compare_widths(CAPTURE_W2, CAPTURE_W2)
    assert e.value.code == "census.same_width"
    with pytest.raises(opguard.ScalingError) as e:
        opguard.scaling_correlate(FIXTURES / "scaling" / "seed003" / "trials.json",
                                  metric="wall_ns")
    assert e.value.code == "scaling.unknown_metric"


def test_an_incomplete_census_is_not_a_pass_unless_asked_for_by_name():
    """Seed 004: unclassified must be empty. The census once returned its
    unclassified operators with no error unless require_classified=True."""
    capture = FIXTURES / "census" / "prefix_traps.capture.json"
    families = FIXTURES / "census" / "seed004_families.json"
    declared = FIXTURES / "census" / "seed004_host_resolutions.declared.json"
    for extra in ({}, {"declared_host_resolutions": declared}):
        with pytest.raises(opguard.CensusError) as e:
            opguard.census(capture, families=families, **extra)
        assert e.value.code == "census.unclassified_operators"
        assert "aten.addmm.default" in e.value.message
    c = opguard.census(capture, families=families, require_classified=False)
    assert c["census"]["unclassified"]["ops"] == 4


def test_every_entry_point_answers():
    assert opguard.kernel_short_name("main_kernel[prefill]") == "main_kernel"
    assert opguard.kernel_match("clamp_position_kernel",
                                "void (anonymous namespace)::clamp_position_kernel<long>(long*)")
    assert not opguard.kernel_match("void", "void")
    # U+0000 cannot cross a C string; the JSON call carries it instead of
    # silently cutting the name (cut, these two would be the same kernel).
    assert opguard.kernel_canonicalize("clamp_position_kernel\0junk")["base"] == "junk"
    assert opguard.kernel_match("clamp_position_kernel\0junk", "clamp_position_kernel") is False
    info = opguard.trace_info(text=TRACE)
    assert info["events"] == 2 and len(info["sha256"]) == 64
    regions = opguard.trace_launch_regions([{"text": TRACE, "provider": "kineto_cuda"}])
    assert regions["regions"][0]["kernel_count"] == 1
    assert regions["regions"][0]["correlated_kernel_count"] == 1
    c = opguard.census(load_json(CAPTURE_W2))
    assert c["census"]["label"] == load_json(CAPTURE_W2)["label"]
    cmp = opguard.census_compare_widths(CAPTURE_W2, CAPTURE_W8)
    assert cmp["free_symbol"] is True
    # Seed 004's family table claims none of these operators: not free.
    seed004 = FIXTURES / "census" / "seed004_families.json"
    assert opguard.census_compare_widths(CAPTURE_W2, CAPTURE_W8,
                                         families=seed004)["free_symbol"] is False
    assert opguard.census_compare_widths(CAPTURE_W2, CAPTURE_W8,
                                         families=load_json(seed004))["free_symbol"] is False
    report = opguard.scaling_correlate(FIXTURES / "scaling" / "seed003" / "trials.json")
    assert report["hotspots"][0]["name"] == "reverse_scan"


def test_export_and_apply(tmp_path):
    view = tmp_path / "view.json"
    summary = opguard.export_build(view, records=FIXTURES / "align" / "two_runs.records.jsonl")
    assert summary["verdict"] == "not_evaluated" and view.is_file()
    with pytest.raises(opguard.AlignError) as e:
        opguard.export_build(view, records=FIXTURES / "align" / "two_runs.records.jsonl")
    assert e.value.code == "align.output_exists"
    m = tmp_path / "map.json"
    m.write_text(json.dumps({"version": 1, "artifact_sha256": summary["output_sha256"],
                             "reviews": []}))
    response = opguard.alignment_map_apply(view, m, tmp_path / "out.json")
    assert response["verdict"] == "not_evaluated"


def test_every_returned_string_is_freed(monkeypatch):
    lib = _native.library()
    real_free = lib.free
    freed = []

    def counting_free(ptr):
        freed.append(ptr)
        real_free(ptr)

    monkeypatch.setattr(lib, "free", counting_free)
    calls = 0
    for request in ({"symbol": "a"}, "{", {"nope": 1}):
        try:
            opguard.call("opguard_kernel_canonicalize", request)
        except opguard.OpguardError:
            pass
        calls += 1
    opguard.kernel_canonicalize_batch(["a", "b"])
    calls += 1
    assert len(freed) == calls
    assert all(isinstance(p, int) and p for p in freed), "frees the pointer, not a copy"


def test_returned_strings_are_pointers_not_copies():
    lib = _native.library()
    for name in _native.JSON_ENTRY_POINTS:
        assert lib.entries[name].restype is ctypes.c_void_p, name


def test_concurrent_calls_agree_with_a_lone_caller():
    fixture = load_json(FIXTURES / "kernel-name" / "kernel_symbols.json")
    symbols = [c["symbol"] for c in fixture["symbol_cases"]]
    pairs = [(c["want"], c["got"]) for c in fixture["verdict_cases"]]
    expected = ([opguard.kernel_canonicalize(s) for s in symbols],
                [opguard.kernel_match(w, g) for w, g in pairs])

    def work(_):
        return ([opguard.kernel_canonicalize(s) for s in symbols],
                [opguard.kernel_match(w, g) for w, g in pairs])

    with ThreadPoolExecutor(max_workers=8) as pool:
        for result in pool.map(work, range(16)):
            assert result == expected


def test_a_missing_library_is_a_clear_error(tmp_path):
    with pytest.raises(opguard.LibraryNotFoundError):
        _native.Library(tmp_path / "libopguard_capi.so")


def complete_events(text):
    """Complete events of a cut trace, counted by Python's own json decoder."""
    decoder = json.JSONDecoder()
    i = text.index("[", text.index('"traceEvents"')) + 1
    count = 0
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        try:
            _, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return count
        count += 1


def test_salvage_reads_the_complete_events_of_a_cut_real_trace(tmp_path):
    import gzip
    real = shared_data("traces", "hta", "trace_compare__base__base.json.gz")
    text = gzip.decompress(real.read_bytes()).decode("utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2], encoding="utf-8")
    want = complete_events(text[: len(text) // 2])
    assert want > 0
    with pytest.raises(opguard.TraceError) as e:
        opguard.trace_info(cut)
    assert e.value.code == "trace.json_truncated"
    assert f"{want} complete events" in str(e.value)
    info = opguard.trace_info(cut, reader={"salvage": True})
    assert info["events"] == want
    assert info["warnings"][0]["code"] == "truncated"


PRODUCERS = FIXTURES / "producers" / "traces"


def test_an_xspace_reads_like_the_json_its_jax_run_wrote(tmp_path):
    """The committed JAX run's XSpace (.xplane.pb) through the library: its
    facts by format, the profile of the JSON the run wrote beside it, and a
    cut copy refused with the XSpace reader's code and position."""
    xspace = PRODUCERS / "jax_tensorboard.xplane.pb"
    info = opguard.trace_info(xspace)
    assert info["format"] == "xspace"
    assert info["provider"] == "xla"
    assert info["producer"] == "jax 0.10.2"
    assert info["events"] == 72
    assert [p["name"] for p in info["planes"]] == ["/host:metadata", "/host:CPU", "Task Environment"]

    from_xspace = opguard.profile_top_n(xspace, 25)
    from_json = opguard.profile_top_n(PRODUCERS / "jax_tensorboard.trace.json.gz", 25)
    assert (from_xspace["trace"]["provider"], from_json["trace"]["provider"]) == ("xla", "jax")
    for doc in (from_xspace, from_json):
        for key in ("provider", "sha256", "source"):
            del doc["trace"][key]
    assert from_xspace == from_json

    cut = tmp_path / "cut.xplane.pb"
    data = xspace.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(opguard.TraceError) as e:
        opguard.trace_info(cut)
    assert e.value.code == "trace.protobuf_truncated"
    assert "the file was cut" in str(e.value)
