#!/usr/bin/env bash
# Create benches/peers/.venv with the pinned peers from requirements.txt and check
# that ijson runs on its C (yajl2_c) backend. Safe to rerun.
#   bash benches/peers/setup.sh            # uses python3 (needs >= 3.11)
#   PYTHON=python3.12 bash benches/peers/setup.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-python3}"
venv="$here/.venv"

"$py" - <<'EOF'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"benches/peers needs Python >= 3.11 (pandas 3 / numpy 2.4 pins), got {sys.version.split()[0]}")
EOF

if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-virtualenv \
    -r "$here/requirements.txt"

"$venv/bin/python" - <<'EOF'
import sys
from importlib import metadata

import ijson
import orjson
import hta.common.trace  # noqa: F401  (the loader trace_readers.py calls)

if ijson.backend != "yajl2_c":
    sys.exit(f"ijson backend is {ijson.backend!r}, expected 'yajl2_c': the C extension did not build or load")
print(
    "peers ready:",
    f"python {sys.version.split()[0]},",
    f"orjson {orjson.__version__},",
    f"ijson {ijson.__version__} ({ijson.backend}),",
    f"HolisticTraceAnalysis {metadata.version('HolisticTraceAnalysis')},",
    f"pandas {metadata.version('pandas')}",
)
EOF
