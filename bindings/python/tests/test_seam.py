"""The marker installer without torch: what is wrapped, what is refused and
why, and that uninstall puts every original back. The ranges are recorded by
a plain context-manager factory (the ``range=`` hook any profiler can use);
tests/test_seam_torch.py runs the same installer under torch's profiler."""

import contextlib
import importlib
import sys
import textwrap

import pytest

from opguard import seam

MODULE = textwrap.dedent('''
    import functools, math

    def outer(x):
        return Runner().run(x) + helper(x)

    def helper(x):
        return x + 1

    class Base:
        def inherited(self, x):
            return x * 3

    class Runner(Base):
        def run(self, x):
            return x * 2

        @staticmethod
        def static(x):
            return x - 1

        @classmethod
        def klass(cls, x):
            return x - 2

    class Launcher:                      # Triton's JITFunction exposes fn/cache/run
        def __init__(self):
            self.fn = helper
            self.cache = {}
        def __call__(self, x):
            return self.fn(x)

    class Dispatching:
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return func(*args)

    launcher = Launcher()
    partial = functools.partial(helper)
    sqrt = math.sqrt
    NUMBER = 3
''')


@pytest.fixture
def demo(tmp_path, monkeypatch):
    name = f"seam_demo_{abs(hash(str(tmp_path)))}"
    (tmp_path / f"{name}.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module
    seam.uninstall()
    sys.modules.pop(name, None)


class Recorder:
    """Ranges as (depth, name) in the order they were entered."""

    def __init__(self):
        self.entered = []
        self.depth = 0

    @contextlib.contextmanager
    def __call__(self, name):
        self.entered.append((self.depth, name))
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1


def test_install_returns_the_request_log_and_wraps_in_named_ranges(demo):
    m = demo.__name__
    ranges = Recorder()
    log = seam.install([f"{m}:outer", f"{m}:Runner.run", f"{m}:helper"], range=ranges)
    assert log == {"installed": [f"{m}:outer", f"{m}:Runner.run", f"{m}:helper"], "refused": []}
    assert demo.outer(5) == 16
    assert ranges.entered == [
        (0, f"opguard.seam::{m}:outer"),
        (1, f"opguard.seam::{m}:Runner.run"),
        (1, f"opguard.seam::{m}:helper"),
    ]
    assert demo.outer.__name__ == "outer"  # functools.wraps
    assert seam.installed() == log["installed"]


def test_refusals_carry_their_reason_and_change_nothing(demo):
    m = demo.__name__
    before = dict(vars(demo))
    log = seam.install([f"{m}:launcher", f"{m}:Dispatching", f"{m}:sqrt", f"{m}:partial",
                        f"{m}:Base", f"{m}:Runner", f"{m}:NUMBER", f"{m}:missing", "no_such_module_x:f",
                        "not a spec", f"{m}:outer.", "builtins:len"], range=Recorder())
    assert log["installed"] == []
    assert log["refused"] == [
        {"spec": f"{m}:launcher", "reason": "jit_object"},
        {"spec": f"{m}:Dispatching", "reason": "torch_dispatch"},
        {"spec": f"{m}:sqrt", "reason": "native_object"},
        {"spec": f"{m}:partial", "reason": "not_a_function"},
        {"spec": f"{m}:Base", "reason": "not_a_function"},
        # A class exposing run() is a launcher object to the seed's rule.
        {"spec": f"{m}:Runner", "reason": "jit_object"},
        {"spec": f"{m}:NUMBER", "reason": "not_callable"},
        {"spec": f"{m}:missing", "reason": "not_found"},
        {"spec": "no_such_module_x:f", "reason": "not_found"},
        {"spec": "not a spec", "reason": "invalid_spec"},
        {"spec": f"{m}:outer.", "reason": "invalid_spec"},
        {"spec": "builtins:len", "reason": "native_object"},
    ]
    assert dict(vars(demo)) == before


def test_a_spec_installed_twice_is_refused_the_second_time(demo):
    m = demo.__name__
    seam.install([f"{m}:helper"], range=Recorder())
    log = seam.install([f"{m}:helper"], range=Recorder())
    assert log == {"installed": [], "refused": [{"spec": f"{m}:helper", "reason": "already_installed"}]}


def test_uninstall_restores_every_original(demo):
    m = demo.__name__
    originals = {
        "outer": demo.outer,
        "run": demo.Runner.__dict__["run"],
        "static": demo.Runner.__dict__["static"],
        "klass": demo.Runner.__dict__["klass"],
    }
    ranges = Recorder()
    specs = [f"{m}:outer", f"{m}:Runner.run", f"{m}:Runner.static", f"{m}:Runner.klass",
             f"{m}:Runner.inherited"]
    assert seam.install(specs, range=ranges)["installed"] == specs
    # Static and class methods stay what they were, and are wrapped.
    assert demo.Runner.static(5) == 4 and demo.Runner.klass(5) == 3
    assert demo.Runner().inherited(2) == 6
    assert [n for _, n in ranges.entered] == [
        f"opguard.seam::{m}:Runner.static", f"opguard.seam::{m}:Runner.klass",
        f"opguard.seam::{m}:Runner.inherited"]

    assert seam.uninstall() == list(reversed(specs))
    assert demo.outer is originals["outer"]
    for name in ("run", "static", "klass"):
        assert demo.Runner.__dict__[name] is originals[name]
    # The inherited method was wrapped on Runner; uninstall uncovers Base's.
    assert "inherited" not in demo.Runner.__dict__
    assert demo.Runner.inherited is demo.Base.inherited
    assert seam.installed() == []
    ranges.entered.clear()
    demo.outer(1)
    assert ranges.entered == []


def test_a_custom_prefix_names_the_ranges(demo):
    m = demo.__name__
    ranges = Recorder()
    seam.install([f"{m}:helper"], prefix="GEAK_TARGET::", range=ranges)
    demo.helper(1)
    assert ranges.entered == [(0, f"GEAK_TARGET::{m}:helper")]
