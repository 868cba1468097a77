#!/usr/bin/env bash
# Installs everything, builds rap and runs every test: a warning-free (-Werror) release build with
# the full suite (real nginx, OpenStack Swift s3api and the controlled server are started by the
# tests themselves), then the unit tests again under AddressSanitizer + UBSan, and the concurrent
# parts under ThreadSanitizer. The release build includes the Python extension (RAP_PYTHON=ON, built
# once with the rest), and the Python suite (tests/python, pytest from the project's .venv) runs
# against it right after the release ctest suite.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh fast       release build + suite only
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-all}"
JOBS="${JOBS:-$(nproc)}"
export JOBS

bash scripts/install-deps.sh
if [ -f scripts/install-npm-test-deps.sh ]; then bash scripts/install-npm-test-deps.sh; fi

export CCACHE_DIR="${CCACHE_DIR:-$PWD/.cache/ccache}"

T0=$(date +%s)
stage() { echo "=== [$(date -u +%H:%M:%S) +$(( $(date +%s) - T0 ))s] $*"; }

build_suite() {  # dir, cmake args..., then ctest args after -- (used to pick the targets)
  local dir="$1"; shift
  local cmake_args=() ctest_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ctest_args=("$@")
  stage "configure $dir ${cmake_args[*]}"
  cmake -S . -B "$dir" -G Ninja "${cmake_args[@]}"
  stage "build $dir"
  local targets=()
  if [ -n "${BUILD_ONLY_SELECTED:-}" ]; then
    # Only the test executables this suite runs (test "module.file" is target rap_test_module_file),
    # plus EXTRA_TARGETS (binaries the tests spawn): a sanitizer suite then never compiles what it
    # does not run.
    mapfile -t targets < <(cd "$dir" && ctest -N "${ctest_args[@]}" | sed -n 's/^ *Test *#[0-9]*: *\([a-z_]*\)\.\(.*\)$/rap_test_\1_\2/p')
    if [ ${#targets[@]} -eq 0 ]; then echo "no tests selected by ${ctest_args[*]}"; return 0; fi
    # shellcheck disable=SC2206
    targets+=(${EXTRA_TARGETS:-})
  fi
  ninja -C "$dir" -j "$JOBS" "${targets[@]}"
  stage "built $dir"
}

test_suite() {  # dir, ctest args...
  local dir="$1"; shift
  stage "test $dir"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS" "$@")
}

# A sanitizer build runs in the background, at the lowest CPU priority, while a Python suite (one
# pytest process: one core mostly idle) runs in the foreground; its output goes to a log that is
# printed when it is waited for. Only builds overlap tests, never two test runs.
BG_PID="" BG_LOG=""
build_in_background() {  # log file, then build_suite's arguments (environment passed through)
  BG_LOG="$1"; shift
  mkdir -p "$(dirname "$BG_LOG")"
  ( nice -n 19 bash -c "set -euo pipefail; $(declare -f stage build_suite); T0=$T0; build_suite \"\$@\"" _ "$@" ) >"$BG_LOG" 2>&1 &
  BG_PID=$!
  stage "started in the background (log $BG_LOG): build $1"
}
wait_background() {
  local rc=0
  wait "$BG_PID" || rc=$?
  cat "$BG_LOG"
  if [ "$rc" -ne 0 ]; then echo "background build failed (exit code $rc)"; exit 1; fi
  BG_PID=""
}
trap '[ -n "$BG_PID" ] && kill -- "$BG_PID" 2>/dev/null; true' EXIT

build_suite build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAP_WERROR=ON -DRAP_PYTHON=ON \
  "-DPython_EXECUTABLE=$PWD/.venv/bin/python" --
test_suite build/release

# Sanitizers: unit tests (the real-server tests run in the release suite). Warnings are enforced
# (-Werror) by the release build, so these builds do not turn warnings into errors.
# AddressSanitizer + UBSan: one clang build with libFuzzer instrumentation (RAP_FUZZ=ON) runs the
# unit tests and builds every fuzz target (tests/fuzz), then smoke-fuzzes each target for
# FUZZ_SECONDS (default 8) on its seed corpus, two at a time, failing on any crash, leak, timeout
# or allocation over the limits (scripts/fuzz.sh, docs/reliability.md). Test code and the CLI are
# compiled at -O0 there, the library at -O1 (cmake/RapModule.cmake). It builds while the release
# Python suite runs.
if [ "$MODE" != "fast" ]; then
  CC=clang CXX=clang++ BUILD_ONLY_SELECTED=1 EXTRA_TARGETS="rap rap_fuzz_all _rap" build_in_background build/casan.log \
    build/casan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" -DRAP_FUZZ=ON -DRAP_BUILD_BENCH=OFF \
    -DRAP_PYTHON=ON "-DPython_EXECUTABLE=$PWD/.venv/bin/python" -- -LE "network|slow"
fi

# The Python suite against the release build's package folder (build/release/python/rap: the
# extension beside python/rap/*.py). pytest's exit codes: 0 passed; 5 (no test collected) is a
# failure here too, as is any other non-zero code.
stage "pytest tests/python (build/release/python)"
set +e
PYTHONPATH="$PWD/build/release/python" .venv/bin/python -m pytest tests/python -q -p no:cacheprovider
rc=$?
set -e
case "$rc" in
  0) ;;
  5) echo "pytest: no test was collected from tests/python"; exit 1 ;;
  *) echo "pytest: failed (exit code $rc)"; exit 1 ;;
esac
if [ "$MODE" = "fast" ]; then stage "done"; exit 0; fi

wait_background
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
test_suite build/casan -LE "network|slow"

# ThreadSanitizer: the concurrent-labelled unit tests; built while the Python suite runs under ASan.
BUILD_ONLY_SELECTED=1 EXTRA_TARGETS="rap" build_in_background build/tsan.log \
  build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAP_SANITIZE=thread -DRAP_BUILD_BENCH=OFF -- -L concurrent -LE "network|slow"

# The Python module under ASan + UBSan: the suite against build/casan/python, the sanitizer runtime
# preloaded into the (uninstrumented) interpreter. Leak checking is off here: CPython and numpy keep
# allocations alive until exit by design. The Java-driven modules (Spark, ORC Java) are left to the
# release run: their JVMs would inherit the preload. docs/python.md "Sanitizers".
stage "pytest tests/python under ASan + UBSan (build/casan/python)"
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" RAP_PYTHON_SANITIZER=address \
  LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" PYTHONPATH="$PWD/build/casan/python" \
  .venv/bin/python -m pytest tests/python -q -p no:cacheprovider --ignore=tests/python/test_spark.py \
  --ignore=tests/python/test_iceberg_spark.py --ignore=tests/python/test_paimon_spark.py \
  --ignore=tests/python/test_orc_java.py

# The fuzz smoke after the background build is done: its per-input timeout is wall-clock.
wait_background
stage "fuzz smoke build/casan"
BUILD_DIR=build/casan JOBS="$JOBS" NICE=0 scripts/fuzz.sh all "${FUZZ_SECONDS:-8}"

export TSAN_OPTIONS="halt_on_error=1"
test_suite build/tsan -L concurrent -LE "network|slow"
stage "done"
