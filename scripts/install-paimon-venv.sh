#!/usr/bin/env bash
# Creates .venv-paimon, the virtual environment of pypaimon (requirements-paimon.txt), which
# tests/python/test_paimon.py runs tests/python/paimon_writer.py in: pypaimon pins a pyarrow older
# than the project's .venv has, so it cannot share it. Idempotent (a stamp of the requirements).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-/usr/bin/python3}"
VENV=.venv-paimon
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-paimon-venv: creating $VENV with $PYTHON"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.requirements-paimon.sha256"
want=$(sha256sum requirements-paimon.txt | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-paimon-venv: $VENV up to date"
  exit 0
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-paimon.txt
echo "$want" > "$stamp"
echo "install-paimon-venv: installed requirements-paimon.txt into $VENV"
