"""Request-protocol entry points for agents and scripts (seed 000's own).

``python -m opguard.tools align --request FILE`` applies an alignment map
through the C ABI (``opguard_alignment_map_apply``): one request document
``{"protocol_version": 1, "artifact", "alignment_map", "output"}`` in, its
paths relative to the request file's folder; one JSON response out on
stdout. Exit status: 0 ok, 2 error (the response is then
``{"error": {"code", "message", ...}}``), 64 usage error. It is the same
contract as ``opguard tools align --request FILE --json``.

>>> import subprocess, sys
>>> subprocess.run([sys.executable, "-m", "opguard.tools", "align",
...                 "--request", "review.request.json"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import call
from .errors import DocumentError, OpguardError

__all__ = ["main", "align_request"]

_PATH_FIELDS = ("artifact", "alignment_map", "output")


def _refuse_repeated_keys(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    seen: Dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DocumentError("document.duplicate_key", f"key {key!r} is given twice",
                                {"json_path": key})
        seen[key] = value
    return seen


def align_request(request_file: Path) -> Dict[str, Any]:
    """Applies the alignment map a request file names; returns the response.

    The request is read here only to make its paths relative to its own
    folder; every rule of the request itself (``protocol_version`` exactly
    the integer 1, the fields, their types) is the library's, the one
    ``opguard tools align --request`` applies, so the two accept and refuse
    the same documents."""
    try:
        text = Path(request_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DocumentError("document.io", f"cannot read {request_file}: {e}") from e
    try:
        request = json.loads(text, object_pairs_hook=_refuse_repeated_keys)
    except ValueError as e:
        raise DocumentError("document.json_syntax", f"{request_file}: {e}",
                            {"line": e.lineno, "column": e.colno}) from e
    if not isinstance(request, dict):
        raise DocumentError("document.wrong_type",
                            f"{request_file}: the request is not an object", {"json_path": "$"})
    base = Path(request_file).resolve().parent
    for field in _PATH_FIELDS:
        if isinstance(request.get(field), str):
            request[field] = str(base / request[field])
    return call("opguard_alignment_map_apply", request)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m opguard.tools")
    commands = parser.add_subparsers(dest="command", required=True)
    align = commands.add_parser("align", help="apply an alignment map from a request file")
    align.add_argument("--request", required=True, type=Path, metavar="FILE")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 64
    try:
        response = align_request(args.request)
    except OpguardError as e:
        print(json.dumps({"error": {"code": e.code, "message": e.message, **e.details}}))
        return 2
    print(json.dumps(response))
    return 0


if __name__ == "__main__":
    sys.exit(main())
