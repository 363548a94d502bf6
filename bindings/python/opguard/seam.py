"""The marker installer: seed 001's runtime side.

``install(specs)`` wraps each declared seam candidate (``module:attr``, the
attribute a dotted path such as ``Runner.run`` or ``model.forward``) in a
profiler range named ``opguard.seam::<spec>``, so a captured trace shows
when each candidate ran and what it launched. The seam verdict
(``opguard.seam_verdict``) reads those ranges; the log this returns is
exactly a process's ``installed`` / ``refused`` entry of the seam request::

    >>> from opguard import seam
    >>> log = seam.install(["pkg.mod:outer", "pkg.mod:Runner.run"])  # doctest: +SKIP
    >>> log  # doctest: +SKIP
    {'installed': ['pkg.mod:outer', 'pkg.mod:Runner.run'], 'refused': []}
    >>> seam.uninstall()  # doctest: +SKIP
    ['pkg.mod:Runner.run', 'pkg.mod:outer']

Seed 001: a callable the installer cannot wrap faithfully is refused with a
reason, never installed broken. A wrapped call behaves exactly as before
apart from the marker: same arguments (``self`` included), same result,
same exception, same signature (``functools.wraps``); ``uninstall()`` puts
back exactly what was there.

What is wrapped, by where the attribute lives (the owner is what the path
before the last name resolves to):

======================================  =====================================
the attribute                            what replaces it, where
======================================  =====================================
a module's function (``pkg.mod:f``)      a function on the module
a class's function (``pkg.mod:C.run``;   a function on that class, which every
inherited ones included)                 instance binds as before; uninstall
                                         puts the original back, or removes
                                         ours so the inherited one shows again
a class's ``staticmethod`` /             the same kind of method around the
``classmethod``                          wrapped function
an instance's method (``pkg.mod:         a method bound to that instance,
model.forward``, ``nn.Module``           stored on the instance only: the class
instances included)                      and other instances are untouched, and
                                         ``copy``/``deepcopy`` rebind it to the
                                         copy as they rebind the original;
                                         uninstall removes it from the instance
a bound method kept as an attribute      a method bound to the same object
(``run = runner.run``)
a function kept on an instance           a function on the instance
(``obj.callback = f``)
======================================  =====================================

Refused, the reason naming what the thing is (nothing is changed):

* ``class`` - a class: a wrapper would replace the type (``isinstance``,
  subclassing and class attributes would break); mark its method instead;
* ``nn_module`` - an ``nn.Module`` instance: mark ``model.forward`` instead;
* ``triton_jit``, ``triton_autotuner``, ``triton_heuristics``,
  ``triton_kernel`` - a Triton ``JITFunction`` (``@triton.jit``), an
  ``Autotuner`` (``@triton.autotune``), a ``Heuristics`` object
  (``@triton.heuristics``), another Triton ``KernelInterface``; and
  ``<kind>_member`` (``triton_jit_member``, ...) for an attribute reached
  through one, such as ``add_kernel.run`` or ``add_kernel.fn``. Triton
  launches ``kernel[grid](...)`` through these objects' own state and
  compiles from ``fn``'s source; mark the Python function that launches
  the kernel instead;
* ``torchscript`` (and ``torchscript_member``) - a TorchScript function or
  module (``torch.jit``), run by TorchScript's interpreter;
* ``torch_dispatch`` - a tensor subclass or object exposing
  ``__torch_dispatch__``;
* ``torch_operator`` - a ``torch.ops`` operator (``OpOverloadPacket``,
  ``OpOverload``);
* ``jit_object`` - another object exposing ``fn``, ``cache``, ``warmup`` or
  ``run`` (seed 001's rule for JIT and launcher objects);
* ``native_object`` - a builtin or C-implemented callable
  (``functools.lru_cache`` wrappers included);
* ``generator_function``, ``async_generator_function``,
  ``coroutine_function`` - calling one only creates the generator or
  coroutine: a range around the call would close before the body runs, and
  a range held open across its suspensions would enclose whatever else runs
  on the thread meanwhile. Neither says when the body ran; mark a function
  the body calls instead;
* ``partial`` - a ``functools.partial``;
* ``property``, ``descriptor`` - an attribute computed on access (a
  ``property``, ``cached_property`` or another descriptor);
* ``special_method_on_instance`` - a dunder on an instance
  (``model.__call__``): Python looks those up on the type, so a marker on
  the instance would never fire; mark the class's method instead;
* ``callable_object`` - another callable object (an instance with
  ``__call__``): a wrapper would replace the object;
* ``read_only_owner`` - the owner does not accept a new attribute
  (``__slots__``, a frozen dataclass, an extension type);
* ``owner_keeps_original`` - the owner accepted the attribute but a lookup
  still finds something else (a custom ``__setattr__`` or
  ``__getattribute__``); it is put back;
* ``not_callable``, ``not_found`` (the module or attribute does not
  resolve), ``invalid_spec`` (not ``module:attr``), ``already_installed``.

The wrapper replaces the attribute on its owner. Code that bound the
original before ``install`` (``from pkg.mod import outer``, ``f =
model.forward``) keeps calling the original: install before the code under
test takes its seams.

The range is ``torch.profiler.record_function`` (``torch.autograd.profiler``
on older torch) unless ``range`` names another context-manager factory.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import threading
import types
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Dict, Iterable, List, Optional, Tuple

__all__ = ["MARKER_PREFIX", "SeamError", "install", "uninstall", "installed", "marker_name"]

#: The marker prefix the seam verdict expects by default.
MARKER_PREFIX = "opguard.seam::"

#: The attributes that mark a JIT-compiled or launcher object (seed 001).
JIT_ATTRIBUTES = ("fn", "cache", "warmup", "run")

#: Triton's kernel objects by class name (``triton.runtime``), most specific
#: first: what a spec naming one is refused as.
TRITON_KINDS = (
    ("Autotuner", "triton_autotuner"),
    ("Heuristics", "triton_heuristics"),
    ("JITFunction", "triton_jit"),
    ("JITCallable", "triton_jit"),
    ("InterpretedFunction", "triton_jit"),
    ("KernelInterface", "triton_kernel"),
)

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SPEC = re.compile(rf"^{_IDENT}(?:\.{_IDENT})*:{_IDENT}(?:\.{_IDENT})*$")


class SeamError(RuntimeError):
    """The installer cannot run at all (no profiler range is available)."""


@dataclass
class _Installed:
    spec: str
    owner: Any
    name: str
    had_own: bool
    original: Any


_lock = threading.Lock()
_active: List[_Installed] = []


def marker_name(spec: str, prefix: str = MARKER_PREFIX) -> str:
    """The range name a candidate is recorded under.

    >>> marker_name("pkg.mod:Runner.run")
    'opguard.seam::pkg.mod:Runner.run'
    """
    return prefix + spec


def _torch_range() -> Callable[[str], ContextManager[Any]]:
    try:
        import torch  # noqa: F401  (imported for its profiler)
    except ImportError as e:
        raise SeamError("torch is not importable; pass range= a context-manager factory "
                        f"that records a named range ({e})") from e
    try:
        from torch.profiler import record_function
    except ImportError:
        from torch.autograd.profiler import record_function
    return record_function


def _resolve(spec: str) -> Tuple[List[Any], str, Any, bool]:
    """(the objects the path passed through, module first and owner last;
    the attribute's name; the attribute as stored, or as looked up when the
    owner computes it on access (a module's or an instance's ``__getattr__``);
    whether it was computed). Raises LookupError."""
    module_name, attr_path = spec.split(":", 1)
    try:
        owner: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise LookupError(f"cannot import {module_name}: {e}") from e
    path = [owner]
    parts = attr_path.split(".")
    for part in parts[:-1]:
        try:
            owner = getattr(owner, part)
        except AttributeError as e:
            raise LookupError(str(e)) from e
        path.append(owner)
    name = parts[-1]
    try:
        return path, name, inspect.getattr_static(owner, name), False
    except AttributeError:
        pass
    try:
        return path, name, getattr(owner, name), True
    except AttributeError as e:
        raise LookupError(str(e)) from e


def _lineage(obj: Any) -> List[Tuple[str, str]]:
    """(module, name) of every class ``obj`` is an instance of, read without
    importing anything (a class's lineage is its metaclass's: the class
    ``JITFunction`` is a class, not a JIT function)."""
    return [(getattr(c, "__module__", "") or "", c.__name__) for c in type(obj).__mro__]


def _library_kind(obj: Any) -> Optional[str]:
    """The Triton or TorchScript kind of a compiled object, or None."""
    lineage = _lineage(obj)
    for triton_class, kind in TRITON_KINDS:
        if any(m.startswith("triton.") and n == triton_class for m, n in lineage):
            return kind
    if any(m == "torch.jit" or m.startswith("torch.jit.") for m, _ in lineage) \
            or type(obj).__module__ == "torch._C" and "Script" in type(obj).__name__:
        return "torchscript"
    return None


def _is_nn_module(obj: Any) -> bool:
    return ("torch.nn.modules.module", "Module") in _lineage(obj)


def _is_torch_operator(obj: Any) -> bool:
    return any(m == "torch._ops" and n in ("OpOverloadPacket", "OpOverload")
               for m, n in _lineage(obj))


def _is_native(obj: Any) -> bool:
    return (inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj)
            or isinstance(obj, (types.WrapperDescriptorType, types.MethodWrapperType,
                                types.MethodDescriptorType, types.ClassMethodDescriptorType))
            or type(obj).__name__ in ("cython_function_or_method", "fused_cython_function"))


def _function_refusal(function: Any) -> Optional[str]:
    """Why a would-be wrapped function must not be wrapped, or None."""
    if not inspect.isfunction(function):
        return _object_refusal(function) or "callable_object"
    if inspect.isasyncgenfunction(function):
        return "async_generator_function"
    if inspect.isgeneratorfunction(function):
        return "generator_function"
    if inspect.iscoroutinefunction(function):
        return "coroutine_function"
    return None


def _object_refusal(obj: Any) -> Optional[str]:
    """What ``obj`` is, as a refusal, or None for a plain function, a bound
    method, a ``staticmethod`` or a ``classmethod`` (wrapped by kind)."""
    if inspect.isfunction(obj) or inspect.ismethod(obj) \
            or isinstance(obj, (staticmethod, classmethod)):
        return None
    if hasattr(obj, "__torch_dispatch__"):
        # Before `class`: a tensor subclass is one, but the hook is what
        # it is for.
        return "torch_dispatch"
    kind = _library_kind(obj)
    if kind is not None:
        return kind
    if isinstance(obj, type):
        return "class"
    if _is_nn_module(obj):
        return "nn_module"
    if _is_torch_operator(obj):
        return "torch_operator"
    if isinstance(obj, functools.partial):
        return "partial"
    if isinstance(obj, property):
        return "property"
    if inspect.isfunction(getattr(type(obj), "__get__", None)):
        # A descriptor written in Python (cached_property, partialmethod).
        return "descriptor"
    if _is_native(obj):
        return "native_object"
    if hasattr(type(obj), "__get__"):
        return "descriptor"
    if not callable(obj):
        return "not_callable"
    if any(hasattr(obj, a) for a in JIT_ATTRIBUTES):
        return "jit_object"
    return "callable_object"


def _seam_of(obj: Any) -> Optional[str]:
    """The spec a stored attribute was installed for, if it is one of ours."""
    inner = getattr(obj, "__func__", obj)
    return getattr(inner, "__opguard_seam__", None) if inspect.isfunction(inner) else None


def _wrap(spec: str, function: Callable[..., Any], marker: str,
          make_range: Callable[[str], ContextManager[Any]]) -> Callable[..., Any]:
    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with make_range(marker):
            return function(*args, **kwargs)
    wrapper.__opguard_seam__ = spec  # type: ignore[attr-defined]
    return wrapper


def _replacement(owner: Any, name: str, raw: Any, as_called: bool,
                 wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Tuple[Any, Optional[str]]:
    """(what replaces ``raw`` on ``owner``, None) or (None, the refusal).
    ``as_called``: ``raw`` is what a lookup returns as it is (kept on the
    owner itself, or computed on access), not a class attribute an
    instance lookup binds."""
    owner_is_class = isinstance(owner, type)
    owner_is_instance = not owner_is_class and not isinstance(owner, types.ModuleType)
    if owner_is_instance and name.startswith("__") and name.endswith("__"):
        return None, "special_method_on_instance"
    reason = _object_refusal(raw)
    if reason is not None:
        return None, reason
    if isinstance(raw, (staticmethod, classmethod)):
        function = raw.__func__
        reason = _function_refusal(function)
        if reason is not None:
            return None, reason
        if owner_is_class:
            return type(raw)(wrap(function)), None
        if as_called:
            # A staticmethod object kept on a module or an instance is not
            # bound by any lookup: nothing a wrapper could reproduce.
            return None, "descriptor"
        # Found on the instance's class: bind as the lookup would.
        if isinstance(raw, staticmethod):
            return wrap(function), None
        return types.MethodType(wrap(function), type(owner)), None
    if inspect.ismethod(raw):
        # A bound method kept as an attribute: bound to the same object again.
        reason = _function_refusal(raw.__func__)
        if reason is not None:
            return None, reason
        return types.MethodType(wrap(raw.__func__), raw.__self__), None
    reason = _function_refusal(raw)
    if reason is not None:
        return None, reason
    if owner_is_instance and not as_called:
        # The class's function, as this instance sees it: a method bound to
        # the instance, so the call gets its `self` and copies rebind it.
        return types.MethodType(wrap(raw), owner), None
    return wrap(raw), None


def install(specs: Iterable[str], *, prefix: str = MARKER_PREFIX,
            range: Optional[Callable[[str], ContextManager[Any]]] = None,  # noqa: A002
            ) -> Dict[str, Any]:
    """Wraps every candidate in a range named ``prefix + spec``; returns the
    install log ``{"installed": [spec, ...], "refused": [{"spec", "reason"}, ...]}``
    in the order given, the shape of a seam request's process entry.

    >>> import json, opguard.seam as seam
    >>> log = seam.install(["json:dumps", "math:sqrt", "not a spec"])  # doctest: +SKIP
    >>> log["refused"]  # doctest: +SKIP
    [{'spec': 'math:sqrt', 'reason': 'native_object'}, {'spec': 'not a spec', 'reason': 'invalid_spec'}]
    """
    make_range = range if range is not None else _torch_range()
    log: Dict[str, Any] = {"installed": [], "refused": []}
    with _lock:
        for spec in specs:
            reason = _install_one(spec, prefix, make_range)
            if reason is None:
                log["installed"].append(spec)
            else:
                log["refused"].append({"spec": spec, "reason": reason})
    return log


def _install_one(spec: str, prefix: str,
                 make_range: Callable[[str], ContextManager[Any]]) -> Optional[str]:
    if not isinstance(spec, str) or not _SPEC.match(spec):
        return "invalid_spec"
    try:
        path, name, raw, computed = _resolve(spec)
    except LookupError:
        return "not_found"
    for passed in path[1:]:
        kind = _library_kind(passed)
        if kind is not None:
            return f"{kind}_member"
    owner = path[-1]
    own_slots = getattr(owner, "__dict__", {})
    own = name in own_slots
    if own and _seam_of(own_slots[name]) is not None:
        return "already_installed"
    marker = marker_name(spec, prefix)
    replacement, reason = _replacement(
        owner, name, raw, own or computed, lambda f: _wrap(spec, f, marker, make_range))
    if reason is not None:
        return reason
    try:
        setattr(owner, name, replacement)
    except (AttributeError, TypeError):
        # Nothing was changed.
        return "read_only_owner"
    entry = _Installed(spec, owner, name, own, raw)
    try:
        kept = inspect.getattr_static(owner, name) is replacement \
            and _seam_of(getattr(owner, name)) == spec
    except AttributeError:
        kept = False
    if not kept:
        if getattr(owner, "__dict__", {}).get(name) is replacement:
            _restore(entry)
        return "owner_keeps_original"
    _active.append(entry)
    return None


def _restore(entry: _Installed) -> None:
    if entry.had_own:
        setattr(entry.owner, entry.name, entry.original)
    else:
        # The attribute was inherited (from a base class, or an instance's
        # class): removing ours uncovers it again.
        delattr(entry.owner, entry.name)


def installed() -> List[str]:
    """The specs wrapped now, in install order."""
    with _lock:
        return [i.spec for i in _active]


def uninstall() -> List[str]:
    """Restores every original, most recent first; returns the specs restored."""
    restored = []
    with _lock:
        while _active:
            entry = _active.pop()
            _restore(entry)
            restored.append(entry.spec)
    return restored
