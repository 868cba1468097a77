#!/usr/bin/env bash
# Installs the independent Parquet readers that tests/format/independent_readers_test.cc runs
# (hyparquet + hyparquet-compressors, @duckdb/node-api, parquet-wasm (arrow-rs) and apache-arrow; versions pinned in tests/npm/package.json
# and package-lock.json) into tests/npm/node_modules. Idempotent: skips the install when
# node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../tests/npm"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-npm-test-deps: node/npm not found (scripts/install-deps.sh installs them)" >&2
  exit 1
fi

stamp=node_modules/.rap-lock-stamp
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
  echo "install-npm-test-deps: tests/npm/node_modules is up to date"
  exit 0
fi
npm ci --no-audit --no-fund
cp package-lock.json "$stamp"
# Smoke check: both readers load.
node -e "import('hyparquet').then(() => import('hyparquet-compressors')).then(() => import('@duckdb/node-api')).then(() => import('parquet-wasm/node')).then(() => import('apache-arrow')).then(() => console.log('install-npm-test-deps: readers ready'))"
