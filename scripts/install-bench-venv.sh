#!/usr/bin/env bash
# Creates .venv-bench, the virtual environment of the peer benchmark (bench/peers/peers.py,
# requirements-bench.txt: Lance, Vortex, DataFusion, DuckDB with httpfs, polars, pyarrow). Kept apart
# from .venv so that CI's test install stays small and fast; the benchmark is not a test.
# Idempotent (a stamp of the requirements).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-/usr/bin/python3}"
VENV=.venv-bench
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-bench-venv: creating $VENV with $PYTHON"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.requirements-bench.sha256"
want=$(sha256sum requirements-bench.txt | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "install-bench-venv: $VENV up to date"
  exit 0
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
echo "$want" > "$stamp"
echo "install-bench-venv: installed requirements-bench.txt into $VENV"
