#!/usr/bin/env bash
# Makes the project's Python virtual environment .venv (Debian's python3 with python3-venv, from
# scripts/install-deps.sh) and installs the exactly pinned packages of requirements-test.txt into it
# (pytest, pyarrow, polars, duckdb, deltalake, numpy; nanobind and scikit-build-core for the release
# build's extension, RAP_PYTHON=ON). Idempotent: nothing is downloaded when the pins are satisfied.
#
#   scripts/install-python-deps.sh            (PYTHON=/path/to/python3 to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-/usr/bin/python3}"
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-python-deps: creating $VENV with $PYTHON"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.requirements-test.sha256"
want=$(sha256sum requirements-test.txt | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-python-deps: $VENV up to date"
  exit 0
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
echo "$want" > "$stamp"
echo "install-python-deps: installed requirements-test.txt into $VENV"
