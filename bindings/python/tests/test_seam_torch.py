"""The marker installer under real torch (CPU): markers appear in the trace
torch's profiler writes, nested as the calls were; the library's own seam
verdict sees the same nesting; refusals carry reasons; uninstall restores.
Real objects: nn.Linear and nn.Module instances (their forward is wrapped
per instance and keeps its self), and real Triton JIT, autotuner and
heuristics objects (created and inspected on CPU, never launched: refused
with their members, left as they were).

torch is large: without it this test skips loudly, except where
OPGUARD_REQUIRE_TORCH=1 (bindings/test.sh's torch step, which CI always
runs): there a missing torch, or a missing triton (torch's own dependency
on Linux), is a failure."""

import contextlib
import copy
import json
import os
import sys
import textwrap

import pytest

import opguard
from conftest import source_module
from opguard import seam

try:
    import torch
    import torch.profiler
except ImportError as e:  # pragma: no cover - depends on the machine
    if os.environ.get("OPGUARD_REQUIRE_TORCH") == "1":
        raise RuntimeError("OPGUARD_REQUIRE_TORCH=1 but torch is not importable") from e
    import warnings
    warnings.warn(f"SKIPPED the marker installer's torch test: torch is not importable ({e})")
    pytest.skip(f"torch is not importable ({e}); bindings/test.sh runs this with torch",
                allow_module_level=True)

MODULE = textwrap.dedent('''
    import torch

    def inner(x):
        return torch.relu(x) + 1

    class Runner:
        def run(self, x):
            return inner(x) * 2

    def outer(x):
        return Runner().run(x).sum()

    def _scripted(x: torch.Tensor) -> torch.Tensor:
        return x + 1

    scripted = torch.jit.script(_scripted)

    class Launcher:                      # the shape of Triton's JITFunction
        def __init__(self):
            self.fn = inner
            self.cache = {}
        def warmup(self, *args):
            pass
        def __call__(self, x):
            return self.fn(x)

    launcher = Launcher()

    class Dispatching(torch.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(8, 4)
            self.out = torch.nn.Linear(4, 2)
        def forward(self, x):
            return self.out(torch.relu(self.proj(x)))

    torch.manual_seed(0)
    model = Block()
    lin = torch.nn.Linear(8, 3)
''')

TRITON_MODULE = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})],
                     key=["n"])
    @triton.jit
    def tuned_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))

    @triton.heuristics({"BLOCK": lambda args: 64})
    @triton.jit
    def guided_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) + tl.load(y_ptr + offsets))

    def add(x, y, out):                  # the launcher: what a seam should mark
        n = out.numel()
        add_kernel[(triton.cdiv(n, 64),)](x, y, out, n, BLOCK=64)
        return out
''')


@pytest.fixture
def demo(tmp_path, monkeypatch):
    with source_module(tmp_path, monkeypatch, "seam_torch_demo", MODULE) as module:
        yield module


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    try:
        import triton  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the machine
        if os.environ.get("OPGUARD_REQUIRE_TORCH") == "1":
            raise RuntimeError("OPGUARD_REQUIRE_TORCH=1 but triton (torch's Linux "
                               "dependency) is not importable") from e
        pytest.skip(f"triton is not importable ({e})")
    # @triton.jit reads the kernel's source: the module is a real file.
    with source_module(tmp_path, monkeypatch, "seam_triton_demo", TRITON_MODULE) as module:
        yield module


def capture(fn, path, calls=2):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(calls):
            fn(torch.ones(8))
    prof.export_chrome_trace(str(path))
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def spans(trace, prefix=seam.MARKER_PREFIX):
    return [e for e in trace["traceEvents"]
            if e.get("ph") == "X" and str(e.get("name", "")).startswith(prefix)]


def inside(child, parent):
    return (child["tid"] == parent["tid"] and child["pid"] == parent["pid"]
            and parent["ts"] <= child["ts"]
            and child["ts"] + child["dur"] <= parent["ts"] + parent["dur"])


def test_markers_nest_as_the_calls_did_and_the_verdict_agrees(demo, tmp_path):
    m = demo.__name__
    specs = [f"{m}:outer", f"{m}:Runner.run", f"{m}:inner", f"{m}:scripted", f"{m}:launcher",
             f"{m}:Dispatching", "torch:relu"]
    log = seam.install(specs)
    assert log == {
        "installed": [f"{m}:outer", f"{m}:Runner.run", f"{m}:inner"],
        "refused": [
            {"spec": f"{m}:scripted", "reason": "torchscript"},
            {"spec": f"{m}:launcher", "reason": "jit_object"},
            {"spec": f"{m}:Dispatching", "reason": "torch_dispatch"},
            {"spec": "torch:relu", "reason": "native_object"},
        ],
    }
    trace = capture(demo.outer, tmp_path / "trace.json")

    # An independent read of the JSON torch wrote.
    by_name = {}
    for e in spans(trace):
        by_name.setdefault(e["name"], []).append(e)
    outer, run, inner = (sorted(by_name[seam.marker_name(s)], key=lambda e: e["ts"])
                         for s in log["installed"])
    assert len(outer) == len(run) == len(inner) == 2
    for o, r, i in zip(outer, run, inner):
        assert inside(r, o) and inside(i, r)
        assert not inside(o, r)

    # The library's own reading, with Runner.run as the target: it ran
    # twice, every installed candidate is live, outer encloses each call and
    # inner is nested in each.
    request = {
        "protocol_version": 1,
        "target": f"{m}:Runner.run",
        "device_kernel": "void at::native::vectorized_elementwise_kernel<4>(int)",
        "candidates": [{"spec": s} for s in log["installed"]],
        "processes": [{"name": "cpu", "trace": "trace.json", **log}],
    }
    verdict = opguard.seam_verdict(request, base=tmp_path)
    assert verdict["target_marker_calls"] == 2
    assert sorted(verdict["live_candidates"]) == sorted(log["installed"])
    assert verdict["missing_candidate_markers"] == []
    table = {c["spec"]: c for c in verdict["processes"][0]["candidates"]}
    assert (table[f"{m}:outer"]["encloses_target_calls"],
            table[f"{m}:outer"]["nested_in_target_calls"]) == (2, 0)
    assert (table[f"{m}:inner"]["encloses_target_calls"],
            table[f"{m}:inner"]["nested_in_target_calls"]) == (0, 2)
    # A CPU capture launches no device kernel: the verdict says so and fails.
    assert verdict["ok"] is False
    assert "device_kernel_not_observed" in verdict["failed"]


def test_uninstall_restores_and_markers_stop(demo, tmp_path):
    m = demo.__name__
    originals = (demo.outer, demo.Runner.__dict__["run"], demo.inner)
    seam.install([f"{m}:outer", f"{m}:Runner.run", f"{m}:inner"])
    assert demo.outer is not originals[0]
    assert seam.uninstall() == [f"{m}:inner", f"{m}:Runner.run", f"{m}:outer"]
    assert (demo.outer, demo.Runner.__dict__["run"], demo.inner) == originals
    trace = capture(demo.outer, tmp_path / "after.json")
    assert spans(trace) == []


def test_a_module_instance_forward_keeps_its_self_and_the_class_is_untouched(demo, tmp_path):
    """seam.install(["pkg.mod:model.forward"]) on an nn.Module instance once
    stored a plain function on it: model(x) then raised "forward() missing 1
    required positional argument". The same for nn.Linear's forward."""
    m = demo.__name__
    x = torch.randn(5, 8)
    with torch.no_grad():
        expected_model, expected_lin = demo.model(x), demo.lin(x)
    state = {k: v.clone() for k, v in demo.model.state_dict().items()}
    specs = [f"{m}:model.forward", f"{m}:model.proj.forward", f"{m}:lin.forward"]
    assert seam.install(specs) == {"installed": specs, "refused": []}

    with torch.no_grad():
        assert torch.equal(demo.model(x), expected_model)
        assert torch.equal(demo.model.forward(x), expected_model)
        assert torch.equal(demo.lin(x), expected_lin)
    # Autograd runs through the wrapped forward as before.
    demo.model(x).sum().backward()
    assert demo.model.proj.weight.grad is not None
    # Parameters, submodules and the state dict are what they were.
    assert demo.model.state_dict().keys() == state.keys()
    assert all(torch.equal(v, state[k]) for k, v in demo.model.state_dict().items())
    assert [n for n, _ in demo.model.named_children()] == ["proj", "out"]
    # Only these instances: another Linear, and the class, are untouched.
    other = torch.nn.Linear(8, 3)
    assert "forward" not in vars(other)
    assert torch.nn.Linear.__dict__["forward"] is torch.nn.Linear.forward
    # A deep copy runs its own parameters.
    twin = copy.deepcopy(demo.lin)
    with torch.no_grad():
        twin.weight.zero_()
        twin.bias.fill_(1.0)
        assert torch.equal(twin(x), torch.ones(5, 3))
        assert torch.equal(demo.lin(x), expected_lin)

    trace = capture(demo.model, tmp_path / "module.json")
    outer = sorted((e for e in spans(trace) if e["name"] == seam.marker_name(specs[0])),
                   key=lambda e: e["ts"])
    inner = sorted((e for e in spans(trace) if e["name"] == seam.marker_name(specs[1])),
                   key=lambda e: e["ts"])
    assert len(outer) == len(inner) == 2
    assert all(inside(i, o) for o, i in zip(outer, inner))

    assert seam.uninstall() == list(reversed(specs))
    for owner in (demo.model, demo.model.proj, demo.lin):
        assert "forward" not in vars(owner)
    with torch.no_grad():
        assert torch.equal(demo.model(x), expected_model)
    assert spans(capture(demo.model, tmp_path / "after.json")) == []


def test_a_module_class_forward_is_wrapped_for_every_instance(demo):
    x = torch.randn(2, 8)
    original = torch.nn.Linear.__dict__["forward"]
    with torch.no_grad():
        expected = demo.lin(x)
    entered = []

    @contextlib.contextmanager
    def record(name):
        entered.append(name)
        yield

    assert seam.install(["torch.nn:Linear.forward"], range=record)["installed"] \
        == ["torch.nn:Linear.forward"]
    with torch.no_grad():
        assert torch.equal(demo.lin(x), expected)
        demo.model(x)
    assert entered == ["opguard.seam::torch.nn:Linear.forward"] * 3
    seam.uninstall()
    assert torch.nn.Linear.__dict__["forward"] is original


def test_modules_classes_and_operators_are_refused_by_what_they_are(demo):
    m = demo.__name__
    before = dict(vars(demo.model))
    log = seam.install([f"{m}:model", f"{m}:lin", f"{m}:model.proj", "torch.nn:Linear", f"{m}:Block",
                        f"{m}:model.__call__", "torch:ops.aten.relu", "torch:ops.aten.relu.default"])
    assert log["installed"] == []
    assert log["refused"] == [
        {"spec": f"{m}:model", "reason": "nn_module"},
        {"spec": f"{m}:lin", "reason": "nn_module"},
        {"spec": f"{m}:model.proj", "reason": "nn_module"},     # a submodule
        {"spec": "torch.nn:Linear", "reason": "class"},
        {"spec": f"{m}:Block", "reason": "class"},
        {"spec": f"{m}:model.__call__", "reason": "special_method_on_instance"},
        {"spec": "torch:ops.aten.relu", "reason": "torch_operator"},
        {"spec": "torch:ops.aten.relu.default", "reason": "torch_operator"},
    ]
    assert dict(vars(demo.model)) == before


def test_triton_kernels_and_their_members_are_refused_and_left_as_they_were(kernels):
    """A real @triton.jit function (CPU: created and inspected, never
    launched). add_kernel.run was once installed and then called with the
    wrong self; an autotuner was refused as not_callable."""
    m = kernels.__name__
    objects = (kernels.add_kernel, kernels.tuned_add, kernels.guided_add)
    before = [dict(vars(o)) for o in objects]
    specs = [f"{m}:add_kernel", f"{m}:add_kernel.run", f"{m}:add_kernel.fn",
             f"{m}:add_kernel.warmup", f"{m}:tuned_add", f"{m}:tuned_add.run",
             f"{m}:tuned_add.fn.run", f"{m}:guided_add", f"{m}:guided_add.run",
             "triton.runtime.jit:JITFunction", f"{m}:add"]
    log = seam.install(specs)
    assert log["refused"] == [
        {"spec": f"{m}:add_kernel", "reason": "triton_jit"},
        {"spec": f"{m}:add_kernel.run", "reason": "triton_jit_member"},
        {"spec": f"{m}:add_kernel.fn", "reason": "triton_jit_member"},
        {"spec": f"{m}:add_kernel.warmup", "reason": "triton_jit_member"},
        {"spec": f"{m}:tuned_add", "reason": "triton_autotuner"},
        {"spec": f"{m}:tuned_add.run", "reason": "triton_autotuner_member"},
        {"spec": f"{m}:tuned_add.fn.run", "reason": "triton_autotuner_member"},
        {"spec": f"{m}:guided_add", "reason": "triton_heuristics"},
        {"spec": f"{m}:guided_add.run", "reason": "triton_heuristics_member"},
        {"spec": "triton.runtime.jit:JITFunction", "reason": "class"},
    ]
    # The Python function that launches the kernel is the seam to mark.
    assert log["installed"] == [f"{m}:add"]
    assert [dict(vars(o)) for o in objects] == before
    assert type(kernels.add_kernel).__name__ == "JITFunction"
    assert kernels.add_kernel.run.__self__ is kernels.add_kernel
