"""The marker installer without torch: what is wrapped, what is refused and
why, and that uninstall puts every original back. The ranges are recorded by
a plain context-manager factory (the ``range=`` hook any profiler can use);
tests/test_seam_torch.py runs the same installer under torch's profiler."""

import contextlib
import copy
import inspect
import textwrap

import pytest

from conftest import source_module
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

    class Scaled:
        def __init__(self, k):
            self.k = k
        def apply(self, x):
            return self.k * x
        def fail(self, x):
            raise ValueError(f"bad {x} for {self.k}")
        @staticmethod
        def static(x):
            return x - 1
        @classmethod
        def klass(cls, x):
            return (cls.__name__, x)
        def __call__(self, x):
            return self.apply(x)
        @property
        def prop(self):
            return self.k
        @functools.cached_property
        def cached(self):
            return self.k
        def steps(self, n):
            for i in range(n):
                yield i * self.k

    scaled = Scaled(3)
    bound = scaled.apply                 # a bound method kept as an attribute

    class Holder:
        pass

    holder = Holder()
    holder.callback = helper             # a function kept on an instance

    def countdown(n):
        while n:
            yield n
            n -= 1

    async def fetch(x):
        return x

    async def stream(x):
        yield x

    class Slotted:
        __slots__ = ()
        def apply(self, x):
            return x

    slotted = Slotted()

    class Stubborn:
        def apply(self, x):
            return x
        def __setattr__(self, name, value):
            pass                         # ignores every assignment

    stubborn = Stubborn()

    def __getattr__(name):               # PEP 562: computed on access
        if name == "lazy":
            return helper
        raise AttributeError(name)
''')


@pytest.fixture
def demo(tmp_path, monkeypatch):
    with source_module(tmp_path, monkeypatch, f"seam_demo_{abs(hash(str(tmp_path)))}",
                       MODULE) as module:
        yield module


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
        {"spec": f"{m}:partial", "reason": "partial"},
        {"spec": f"{m}:Base", "reason": "class"},
        # A class is a class, whatever methods it has (run() included).
        {"spec": f"{m}:Runner", "reason": "class"},
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


def test_an_instance_method_is_bound_to_that_instance_only(demo):
    """seam.install(["pkg.mod:obj.method"]) once stored a plain function on
    the instance, and the next call lost its self (seed 001: never installed
    broken)."""
    m = demo.__name__
    scaled = demo.scaled
    signature = inspect.signature(scaled.apply)
    ranges = Recorder()
    specs = [f"{m}:scaled.apply", f"{m}:scaled.fail", f"{m}:scaled.static", f"{m}:scaled.klass"]
    assert seam.install(specs, range=ranges) == {"installed": specs, "refused": []}

    assert scaled.apply(2) == 6
    with pytest.raises(ValueError, match="^bad 2 for 3$"):
        scaled.fail(2)
    assert scaled.static(5) == 4
    assert scaled.klass(5) == ("Scaled", 5)
    assert [n for _, n in ranges.entered] == [seam.marker_name(s) for s in specs]
    assert inspect.signature(scaled.apply) == signature
    assert scaled.apply.__self__ is scaled

    # The class and every other instance are untouched.
    ranges.entered.clear()
    assert demo.Scaled(5).apply(2) == 10 and demo.Scaled.static(5) == 4
    assert ranges.entered == []
    # A copy rebinds the method to itself, as it would the original.
    twin = copy.deepcopy(scaled)
    twin.k = 7
    assert twin.apply(2) == 14 and scaled.apply(2) == 6

    seam.uninstall()
    assert not {"apply", "fail", "static", "klass"} & set(vars(scaled))
    ranges.entered.clear()
    assert scaled.apply(2) == 6 and ranges.entered == []


def test_a_bound_method_a_function_kept_as_an_attribute_or_one_computed_on_access_is_wrapped_as_it_is(demo):
    m = demo.__name__
    bound, callback = demo.bound, demo.holder.callback
    ranges = Recorder()
    specs = [f"{m}:bound", f"{m}:holder.callback", f"{m}:lazy"]
    assert seam.install(specs, range=ranges)["installed"] == specs
    assert demo.bound(2) == 6 and demo.bound.__self__ is demo.scaled
    assert demo.holder.callback(1) == 2          # no self: it is not a method
    assert demo.lazy(1) == 2
    assert [n for _, n in ranges.entered] == [seam.marker_name(s) for s in specs]
    seam.uninstall()
    assert demo.bound is bound and demo.holder.callback is callback
    # The module computes it again.
    assert "lazy" not in vars(demo) and demo.lazy is demo.helper


def test_generators_and_coroutines_are_refused_not_marked_around_their_creation(demo):
    """A range around the call would close before the body runs (the call
    only creates the generator); one held across its suspensions would
    enclose what else the thread runs meanwhile."""
    m = demo.__name__
    log = seam.install([f"{m}:countdown", f"{m}:scaled.steps", f"{m}:Scaled.steps",
                        f"{m}:fetch", f"{m}:stream"], range=Recorder())
    assert log["installed"] == []
    assert [r["reason"] for r in log["refused"]] == [
        "generator_function", "generator_function", "generator_function",
        "coroutine_function", "async_generator_function"]
    assert list(demo.countdown(2)) == [2, 1]


def test_objects_are_refused_by_what_they_are_and_nothing_changes(demo):
    m = demo.__name__
    before = {name: dict(vars(getattr(demo, name))) for name in ("Scaled", "scaled")}
    log = seam.install([f"{m}:scaled", f"{m}:scaled.prop", f"{m}:Scaled.prop",
                        f"{m}:scaled.cached", f"{m}:scaled.__call__", f"{m}:slotted.apply",
                        f"{m}:stubborn.apply"], range=Recorder())
    assert log["installed"] == []
    assert log["refused"] == [
        {"spec": f"{m}:scaled", "reason": "callable_object"},
        {"spec": f"{m}:scaled.prop", "reason": "property"},
        {"spec": f"{m}:Scaled.prop", "reason": "property"},
        {"spec": f"{m}:scaled.cached", "reason": "descriptor"},
        # Python calls scaled(x) through type(scaled).__call__: a marker on
        # the instance would never fire.
        {"spec": f"{m}:scaled.__call__", "reason": "special_method_on_instance"},
        {"spec": f"{m}:slotted.apply", "reason": "read_only_owner"},
        {"spec": f"{m}:stubborn.apply", "reason": "owner_keeps_original"},
    ]
    assert {name: dict(vars(getattr(demo, name))) for name in ("Scaled", "scaled")} == before
    assert seam.installed() == []
