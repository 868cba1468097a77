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


# Benchmarks (bench/) are not tests and are left out of this build (RAP_TEST_BENCH=ON builds them
# too); `ninja -C build/release` on a tree configured without this script builds them.
build_suite build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAP_WERROR=ON -DRAP_PYTHON=ON \
  "-DRAP_BUILD_BENCH=${RAP_TEST_BENCH:-OFF}" "-DPython_EXECUTABLE=$PWD/.venv/bin/python" --
test_suite build/release

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

# Sanitizers: unit tests (the real-server tests run in the release suite above). Warnings are
# enforced (-Werror) by the release build, so these builds do not turn warnings into errors.
# AddressSanitizer + UBSan: one clang build with libFuzzer instrumentation (RAP_FUZZ=ON) runs the
# unit tests and builds every fuzz target (tests/fuzz), then smoke-fuzzes each target for
# FUZZ_SECONDS (default 6) on its seed corpus, two at a time, failing on any crash, leak, timeout
# or allocation over the limits (scripts/fuzz.sh, docs/reliability.md).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
CC=clang CXX=clang++ BUILD_ONLY_SELECTED=1 EXTRA_TARGETS="rap rap_fuzz_all _rap" build_suite build/casan \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" -DRAP_FUZZ=ON -DRAP_BUILD_BENCH=OFF \
  -DRAP_PYTHON=ON "-DPython_EXECUTABLE=$PWD/.venv/bin/python" -- -LE "network|slow"
test_suite build/casan -LE "network|slow"
# The Python module under ASan + UBSan: the suite against build/casan/python, the sanitizer runtime
# preloaded into the (uninstrumented) interpreter. Leak checking is off here: CPython and numpy keep
# allocations alive until exit by design. The Java-driven modules (Spark, ORC Java) are left to the
# release run: their JVMs would inherit the preload; so is the crash matrix (test_crash.py: child
# processes killed at each write step, a check of atomicity that the release run makes).
# docs/python.md "Sanitizers".
stage "pytest tests/python under ASan + UBSan (build/casan/python)"
ASAN_OPTIONS="detect_leaks=0:abort_on_error=1" RAP_PYTHON_SANITIZER=address \
  LD_PRELOAD="$(clang -print-file-name=libclang_rt.asan-x86_64.so)" PYTHONPATH="$PWD/build/casan/python" \
  .venv/bin/python -m pytest tests/python -q -p no:cacheprovider --ignore=tests/python/test_spark.py \
  --ignore=tests/python/test_iceberg_spark.py --ignore=tests/python/test_paimon_spark.py \
  --ignore=tests/python/test_orc_java.py --ignore=tests/python/test_crash.py
stage "fuzz smoke build/casan"
BUILD_DIR=build/casan JOBS="$JOBS" NICE=0 scripts/fuzz.sh all "${FUZZ_SECONDS:-6}"

# ThreadSanitizer: the concurrent-labelled unit tests, at -O1 (Debug configuration: assertions on).
export TSAN_OPTIONS="halt_on_error=1"
BUILD_ONLY_SELECTED=1 EXTRA_TARGETS="rap" build_suite build/tsan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" \
  -DRAP_SANITIZE=thread -DRAP_BUILD_BENCH=OFF -- -L concurrent -LE "network|slow"
test_suite build/tsan -L concurrent -LE "network|slow"
stage "done"
