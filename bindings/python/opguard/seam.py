"""The marker installer: seed 001's runtime side.

``install(specs)`` wraps each declared seam candidate (``module:function`` or
``module:Class.method``) in a profiler range named ``opguard.seam::<spec>``,
so a captured trace shows when each candidate ran and what it launched. The
seam verdict (``opguard.seam_verdict``) reads those ranges; the log this
returns is exactly a process's ``installed`` / ``refused`` entry of the seam
request::

    >>> from opguard import seam
    >>> log = seam.install(["pkg.mod:outer", "pkg.mod:Runner.run"])  # doctest: +SKIP
    >>> log  # doctest: +SKIP
    {'installed': ['pkg.mod:outer', 'pkg.mod:Runner.run'], 'refused': []}
    >>> seam.uninstall()  # doctest: +SKIP
    ['pkg.mod:Runner.run', 'pkg.mod:outer']

Only plain Python functions are wrapped. What a wrapper would corrupt or
not see is refused with a reason, never wrapped:

* ``jit_object`` - an object exposing ``fn``, ``cache``, ``warmup`` or ``run``
  (Triton's ``JITFunction``, autotuners and their kin);
* ``torch_dispatch`` - an object exposing ``__torch_dispatch__``;
* ``torchscript`` - a TorchScript function or module (``torch.jit``);
* ``native_object`` - a builtin or C-implemented callable;
* ``not_a_function`` - any other callable that is not a Python function
  (a class, an instance with ``__call__``, a ``functools.partial``);
* ``not_callable``, ``not_found`` (the module or attribute does not
  resolve), ``invalid_spec`` (not ``module:attr``), ``already_installed``.

The wrapper replaces the attribute on its module or class. Code that bound
the original before ``install`` (``from pkg.mod import outer``) keeps calling
the original: install before the code under test imports its seams.

The range is ``torch.profiler.record_function`` (``torch.autograd.profiler``
on older torch) unless ``range`` names another context-manager factory.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Dict, Iterable, List, Optional

__all__ = ["MARKER_PREFIX", "SeamError", "install", "uninstall", "installed", "marker_name"]

#: The marker prefix the seam verdict expects by default.
MARKER_PREFIX = "opguard.seam::"

#: The attributes that mark a JIT-compiled or launcher object (seed 001).
JIT_ATTRIBUTES = ("fn", "cache", "warmup", "run")

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


def _resolve(spec: str):
    """(owner, attribute name, raw attribute) for a spec; raises LookupError."""
    module_name, attr_path = spec.split(":", 1)
    try:
        owner: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise LookupError(f"cannot import {module_name}: {e}") from e
    parts = attr_path.split(".")
    for part in parts[:-1]:
        try:
            owner = getattr(owner, part)
        except AttributeError as e:
            raise LookupError(str(e)) from e
    name = parts[-1]
    try:
        raw = inspect.getattr_static(owner, name)
    except AttributeError as e:
        raise LookupError(str(e)) from e
    return owner, name, raw


def _is_torchscript(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return module.startswith("torch.jit") or module == "torch._C" and "Script" in type(obj).__name__


def _refusal(raw: Any) -> Optional[str]:
    """Why ``raw`` (the attribute as stored) must not be wrapped, or None."""
    target = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    if getattr(target, "__opguard_seam__", None) is not None:
        return "already_installed"
    if not callable(target):
        return "not_callable"
    if _is_torchscript(target):
        return "torchscript"
    if hasattr(target, "__torch_dispatch__"):
        return "torch_dispatch"
    if any(hasattr(target, a) for a in JIT_ATTRIBUTES):
        return "jit_object"
    if inspect.isbuiltin(target) or inspect.ismethoddescriptor(target) \
            or type(target).__name__ in ("cython_function_or_method", "fused_cython_function"):
        return "native_object"
    if not inspect.isfunction(target):
        return "not_a_function"
    return None


def _wrap(spec: str, function: Callable[..., Any], marker: str,
          make_range: Callable[[str], ContextManager[Any]]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            with make_range(marker):
                return await function(*args, **kwargs)
    else:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with make_range(marker):
                return function(*args, **kwargs)
    wrapper.__opguard_seam__ = spec  # type: ignore[attr-defined]
    return wrapper


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
        owner, name, raw = _resolve(spec)
    except LookupError:
        return "not_found"
    reason = _refusal(raw)
    if reason is not None:
        return reason
    marker = marker_name(spec, prefix)
    if isinstance(raw, staticmethod):
        replacement: Any = staticmethod(_wrap(spec, raw.__func__, marker, make_range))
    elif isinstance(raw, classmethod):
        replacement = classmethod(_wrap(spec, raw.__func__, marker, make_range))
    else:
        replacement = _wrap(spec, raw, marker, make_range)
    had_own = name in getattr(owner, "__dict__", {})
    try:
        setattr(owner, name, replacement)
    except (AttributeError, TypeError):
        # A read-only owner (an extension type): nothing was changed.
        return "native_object"
    _active.append(_Installed(spec, owner, name, had_own, raw))
    return None


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
            if entry.had_own:
                setattr(entry.owner, entry.name, entry.original)
            else:
                # The attribute was inherited: removing ours uncovers it again.
                delattr(entry.owner, entry.name)
            restored.append(entry.spec)
    return restored
