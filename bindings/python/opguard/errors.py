"""Typed errors for the opguard C ABI's error envelopes.

Every error carries the library's stable ``code`` (``document.duplicate_key``,
``trace.json_syntax``, ``census.step_axis_not_symbolic``, ...), its ``message``
and any extra fields of the envelope in ``details``. The class follows the
code's prefix, so callers can catch a family (``TraceError``) or everything
(``OpguardError``). A JSON document that cannot be read, the request itself or
one it names, is ``document.*`` from every entry point, with ``json_path``,
``line`` and ``column`` in ``details``::

    >>> import opguard
    >>> try:
    ...     opguard.call("opguard_kernel_canonicalize", {"sym": "x"})
    ... except opguard.DocumentError as e:
    ...     print(e.code, e.details["json_path"])
    document.unknown_field sym
"""

from typing import Any, Dict, Mapping, Optional, Type


class OpguardError(Exception):
    """An error envelope from the library: ``code``, ``message``, ``details``."""

    def __init__(self, code: str, message: str,
                 details: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details: Dict[str, Any] = dict(details or {})


class RequestError(OpguardError):
    """The request was refused before any work: NULL, invalid UTF-8, or not
    the entry point's request (``capi.null_argument``, ``capi.invalid_utf8``,
    ``capi.invalid_request``, and the ``document.*`` codes of
    :class:`DocumentError`)."""


class DocumentError(RequestError):
    """A JSON document could not be read: the request itself or a document it
    carries or names (a capture, a seam request, an alignment map, a trials
    or job document): ``document.io``, ``document.limit_exceeded``,
    ``document.json_syntax``, ``document.duplicate_key``,
    ``document.wrong_type``, ``document.missing_field``,
    ``document.unknown_field``, ``document.invalid_value``; ``details`` has
    ``json_path``, ``line``, ``column`` (or ``limit``) and ``input``."""


class InternalError(OpguardError):
    """A bug in opguard (``capi.internal_panic``, ``capi.internal_error``)."""


class TraceError(OpguardError):
    """The trace reader refused an input (``trace.*``)."""


class CensusError(OpguardError):
    """The census refused an input or a demand (``census.*``)."""


class AlignError(OpguardError):
    """Export or alignment-map apply refused (``align.*``)."""


class ScalingError(OpguardError):
    """The scaling run refused (``scaling.*``)."""


class JobError(OpguardError):
    """A rank summary or job document given to the merge is refused (``job.*``)."""


class CompareError(OpguardError):
    """The comparison refused its inputs (``compare.*``): a side naming no
    trace, an unreadable trace (``trace_code`` in ``details``), a missing
    ``step`` range, a setting out of range. A failed gate is not an error."""


class SelectError(OpguardError):
    """The profile or seam verdict could not be computed (``select.*``)."""


class LibraryNotFoundError(OSError):
    """The shared library could not be found or loaded, or its ABI differs."""


_BY_CODE: Dict[str, Type[OpguardError]] = {
    "capi.internal_panic": InternalError,
    "capi.internal_error": InternalError,
}
_BY_PREFIX: Dict[str, Type[OpguardError]] = {
    "capi": RequestError,
    "document": DocumentError,
    "trace": TraceError,
    "census": CensusError,
    "align": AlignError,
    "scaling": ScalingError,
    "select": SelectError,
    "job": JobError,
    "compare": CompareError,
}


def error_from_envelope(error: Mapping[str, Any]) -> OpguardError:
    """The typed exception for an envelope's ``error`` object."""
    code = error.get("code", "capi.internal_error")
    message = error.get("message", "")
    details = {k: v for k, v in error.items() if k not in ("code", "message")}
    cls = _BY_CODE.get(code) or _BY_PREFIX.get(code.split(".", 1)[0], OpguardError)
    return cls(code, message, details)
