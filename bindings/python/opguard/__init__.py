"""Python bindings for opguard's C ABI (ctypes; no compiler needed).

A wheel carries the shared library inside the package; without one (a source
checkout) it is found through ``$OPGUARD_LIB`` or the workspace's
``target/{release,debug}`` (``$CARGO_TARGET_DIR`` first). It is loaded on
first use; ``library_path()`` says which file. Every function returns the envelope's ``value`` (plain ``dict``/``list``)
or raises the typed error of its code (see ``opguard.errors``); every string
the library returns is released with ``opguard_string_free``.

>>> import opguard
>>> opguard.kernel_short_name("void (anonymous namespace)::clamp_position_kernel<long>(long*)")
'clamp_position_kernel'
>>> opguard.kernel_match("clamp_position_kernel", "void elementwise_kernel_with_index<int>(int)")
False
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from .arrow import Table, host_ops, kernels, launches, table, tables
from .errors import (AlignError, CensusError, CompareError, DocumentError, InternalError, JobError,
                     LibraryNotFoundError, OpguardError, RequestError, ScalingError, SelectError,
                     TraceError)

__all__ = [
    "AlignError", "CensusError", "DocumentError", "InternalError", "LibraryNotFoundError", "OpguardError",
    "RequestError", "ScalingError", "SelectError", "TraceError", "JobError", "CompareError",
    "Json", "PathLike", "version", "abi_version", "library_path", "call",
    "kernel_canonicalize", "kernel_canonicalize_batch", "kernel_short_name", "kernel_match",
    "kernel_verdict", "kernel_match_batch",
    "trace_info", "trace_launch_regions", "census", "census_compare_widths",
    "profile_top_n", "seam_verdict", "export_build", "alignment_map_apply", "scaling_correlate",
    "job_summary", "job_merge", "compare",
    "Table", "table", "tables", "kernels", "host_ops", "launches",
]


#: A JSON value as the library returns it (``dict``/``list``/``str``/...).
Json = Any
#: A file path.
PathLike = Union[str, "os.PathLike[str]"]
#: A document given inline (a ``dict``) or as a file path.
DocOrPath = Union[Mapping[str, Any], str, "os.PathLike[str]"]


def _lib() -> _native.Library:
    return _native.library()


def __getattr__(name: str) -> str:
    # The package's version is the library's (opguard-capi's): read lazily,
    # so importing never loads the library.
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'opguard' has no attribute {name!r}")


def version() -> str:
    """The library's version: opguard-capi's Cargo.toml version, which is also
    this package's.

    >>> opguard.version()  # doctest: +SKIP
    '0.1.0'
    """
    return _lib().version


def abi_version() -> int:
    """The library's ABI version (checked at load: this package needs 1)."""
    return _lib().abi_version


def library_path() -> str:
    """The path of the loaded shared library: inside the package for an
    installed wheel.

    >>> opguard.library_path()  # doctest: +SKIP
    '.../site-packages/opguard/libopguard_capi.so'
    """
    return str(_lib().path)


def call(entry_point: str, request: Union[Mapping[str, Any], str, bytes]) -> Json:
    """Calls any JSON entry point by its C symbol with a dict (or JSON text)."""
    return _lib().call(entry_point, request)


def _drop_none(**fields: Any) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


# ---- kernel names ----------------------------------------------------------

def kernel_canonicalize(symbol: str, fields: Optional[Iterable[str]] = None) -> Dict[str, Any]:
    """The canonical form of a kernel symbol (the parity fixture's fields), or
    only the named ``fields`` (e.g. ``("identity", "short_name")``)."""
    return call("opguard_kernel_canonicalize",
                _drop_none(symbol=symbol, fields=None if fields is None else list(fields)))


def kernel_canonicalize_batch(symbols: Iterable[str],
                              fields: Optional[Iterable[str]] = None) -> List[Dict[str, Any]]:
    """Canonical forms of many symbols in one call, in order; ``fields`` as in
    ``kernel_canonicalize`` (fewer fields: less JSON to decode)."""
    return call("opguard_kernel_canonicalize_batch",
                _drop_none(symbols=list(symbols),
                           fields=None if fields is None else list(fields)))


def kernel_short_name(symbol: str) -> str:
    """The display name used in profile tables."""
    return call("opguard_kernel_short_name", {"symbol": symbol})["short_name"]


def kernel_verdict(want: str, got: str) -> Dict[str, Any]:
    """``{"is_match", "reason", "basis"}`` for two symbols."""
    return call("opguard_kernel_match_json", {"want": want, "got": got})


def kernel_match(want: str, got: str) -> bool:
    """Whether two symbols name the same kernel (the direct call: no JSON)."""
    if "\0" in want or "\0" in got:
        # The direct call takes C strings; the JSON call carries U+0000 exactly.
        return kernel_verdict(want, got)["is_match"]
    lib = _lib()
    try:
        w, g = want.encode("utf-8"), got.encode("utf-8")
    except UnicodeEncodeError as e:
        raise RequestError("capi.invalid_utf8", f"argument is not encodable as UTF-8: {e}") from e
    r = lib.kernel_match(w, g)
    if r < 0:
        name = lib.status_name(r)
        code = name.decode("utf-8") if name else f"status {r}"
        raise (InternalError if code == "capi.internal_panic" else RequestError)(
            code, f"opguard_kernel_match returned {r}")
    return r == 1


def kernel_match_batch(pairs: Iterable[Tuple[str, str]]) -> List[Dict[str, Any]]:
    """Verdicts for many ``(want, got)`` pairs in one call, in order."""
    return call("opguard_kernel_match_batch", {"pairs": [[w, g] for w, g in pairs]})


# ---- traces ----------------------------------------------------------------

def trace_info(path: Optional[PathLike] = None, *, text: Optional[str] = None,
               reader: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """What the reader established about a trace file (or JSON text)."""
    return call("opguard_trace_info",
                _drop_none(path=None if path is None else str(path), text=text, reader=reader))


def trace_launch_regions(artifacts: Sequence[Union[Mapping[str, Any], PathLike]], *,
                         top: Optional[int] = None,
                         reader: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Launch regions, one per artifact (``{"path"|"text", "role", "stage",
    "provider"}`` dicts, or paths), and their aggregate."""
    arts = [a if isinstance(a, dict) else {"path": str(a)} for a in artifacts]
    return call("opguard_trace_launch_regions", _drop_none(artifacts=arts, top=top, reader=reader))


# ---- census ----------------------------------------------------------------

def _doc(name: str, value: Optional[DocOrPath]) -> Dict[str, Any]:
    """``name`` for an inline document (a dict), ``name_path`` for a path."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {name: value}
    return {f"{name}_path": str(value)}


def census(capture: DocOrPath, *, families: Optional[DocOrPath] = None,
           declared_host_resolutions: Optional[DocOrPath] = None,
           require_classified: bool = True,
           require_host_resolutions: bool = False) -> Dict[str, Any]:
    """The census of one capture (a dict, or a path). An operator no family
    claims raises ``CensusError`` (``census.unclassified_operators``): an
    incomplete census is not a pass (seed 004). ``require_classified=False``
    returns it with its ``unclassified`` operators instead."""
    request = {}
    request.update(_doc("capture", capture))
    request.update(_doc("families", families))
    request.update(_doc("declared_host_resolutions", declared_host_resolutions))
    request["require_classified"] = bool(require_classified)
    if require_host_resolutions:
        request["require_host_resolutions"] = True
    return call("opguard_census", request)


def census_compare_widths(first: DocOrPath, second: DocOrPath,
                          control: Optional[DocOrPath] = None, *,
                          families: Optional[DocOrPath] = None) -> Dict[str, Any]:
    """The two-width comparison of two captures (dicts or paths), with the
    family table ``census`` would use (the default one when not given)."""
    request = {}
    request.update(_doc("first", first))
    request.update(_doc("second", second))
    request.update(_doc("control", control))
    request.update(_doc("families", families))
    return call("opguard_census_compare_widths", request)


# ---- selection -------------------------------------------------------------

def profile_top_n(path: PathLike, top: int, provider: Optional[str] = None) -> Dict[str, Any]:
    """The Top-``top`` profile of a trace: device rows with their entity kind
    and evidence, dispatcher aggregates expanded; a capture without device
    activity also gets ``host`` (host operations by self time, regions).
    ``provider`` overrides detection (e.g. ``"jax"``, ``"unknown"``)."""
    request = {"path": str(path), "top": top}
    if provider is not None:
        request["provider"] = provider
    return call("opguard_profile_top_n", request)


def seam_verdict(request: DocOrPath, *, base: Optional[PathLike] = None) -> Dict[str, Any]:
    """The seam verdict for a seam request (a dict, whose trace paths resolve
    against ``base``, default the working directory; or a request file, whose
    trace paths resolve against its folder)."""
    body = _doc("request", request)
    if base is not None:
        body["base"] = str(base)
    return call("opguard_seam_verdict", body)


# ---- alignment and scaling -------------------------------------------------

def export_build(output: PathLike, *, records: Optional[PathLike] = None,
                 from_profile: Optional[Sequence[Union[Mapping[str, Any], PathLike]]] = None,
                 ) -> Dict[str, Any]:
    """Writes an ``opguard.export/v1`` view to ``output`` (which must not exist)
    from a records file or two or more profiler traces."""
    request = {"output": str(output)}
    if records is not None:
        request["records"] = str(records)
    if from_profile is not None:
        request["from_profile"] = [p if isinstance(p, dict) else {"path": str(p)}
                                   for p in from_profile]
    return call("opguard_export_build", request)


def alignment_map_apply(artifact: PathLike, alignment_map: PathLike,
                        output: PathLike) -> Dict[str, Any]:
    """Applies an alignment map to an export view, writing ``output``."""
    return call("opguard_alignment_map_apply", {
        "protocol_version": 1, "artifact": str(artifact),
        "alignment_map": str(alignment_map), "output": str(output)})


def scaling_correlate(trials: DocOrPath, *, base: Optional[PathLike] = None,
                      metric: Optional[str] = None,
                      reader: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The scaling report for a trials document (a dict or a path)."""
    request = _doc("trials", trials)
    request.update(_drop_none(base=None if base is None else str(base), metric=metric,
                              reader=reader))
    return call("opguard_scaling_correlate", request)


# ---- whole jobs: map (one rank) and reduce (merge) -------------------------

def job_summary(path, *, file=None, top=None, reader=None):
    """One rank's summary (``opguard.job.rank/v1``): the map step of a job.

    ``file`` is the name the rank goes by in the job (default: ``path`` as
    given). A trace that cannot be read does not raise: the summary carries
    its ``error`` and the merge counts the rank missing everywhere.
    """
    request = {"path": str(path)}
    request.update(_drop_none(file=None if file is None else str(file), top=top, reader=reader))
    return call("opguard_job_summary", request)


def job_merge(summaries):
    """Merges rank summaries and partial jobs into one ``opguard.job/v1`` job:
    the reduce step. Associative and commutative, so any engine may merge in
    any order and grouping and get the same document."""
    return call("opguard_job_merge", {"summaries": list(summaries)})


# ---- comparing runs: the regression gate ------------------------------------

def compare(baseline: Iterable[PathLike], candidate: Iterable[PathLike], *,
            fail_above: Optional[float] = None, fdr: Optional[float] = None,
            confidence: Optional[float] = None, step: Optional[str] = None,
            python_frames: Optional[bool] = None,
            reader: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Baseline runs against candidate runs (traces of any format, or
    directories of them): the ``opguard.compare/v1`` comparison, per kernel
    identity and semantic frame, per step, with its gate.

    ``fail_above`` is a ratio (0.05: fail on more than 5% slower), ``fdr``
    the false discovery rate, ``step`` the range marking one step. A failed
    gate is a result (``value["gate"]["status"] == "failed"``), not an
    exception; bad input raises ``CompareError``.
    """
    request: Dict[str, Any] = {
        "baseline": [str(p) for p in baseline],
        "candidate": [str(p) for p in candidate],
    }
    request.update(_drop_none(fail_above=fail_above, fdr=fdr, confidence=confidence, step=step,
                              python_frames=python_frames, reader=reader))
    return call("opguard_compare", request)
