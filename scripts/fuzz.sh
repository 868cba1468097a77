#!/usr/bin/env bash
# Runs rap's libFuzzer targets (tests/fuzz, docs/reliability.md) in a clang RAP_FUZZ=ON build.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]   fuzz one target (e.g. file_read 600)
#   scripts/fuzz.sh all SECONDS                           every target, JOBS (default 2) at a time
#   scripts/fuzz.sh list                                  the target names
#
# Environment: BUILD_DIR (default build/fuzz; configured with clang when missing, reused by the
# ASan/UBSan suite of scripts/test.sh), JOBS, RAP_SHARED_DIR (default ../shared), NICE (default 10),
# FUZZ_TIMEOUT (seconds per input, default 1; wall-clock, so raise it on a machine that is overloaded),
# FUZZ_BUILD (default 1; 0 runs the binaries as built, e.g. a long campaign while the sources change).
# Flags after SECONDS go to libFuzzer after the script's own (the later value of a flag wins), e.g.
#   chrt --idle 0 scripts/fuzz.sh levels 3600 -runs=10000000
# The corpus a run grows is kept in $BUILD_DIR/fuzz-corpus/TARGET; seeds come from
# tests/fuzz/corpus/TARGET (committed) and $BUILD_DIR/fuzz-seeds/TARGET (rap_fuzz_seeds). A crash,
# leak, timeout (> FUZZ_TIMEOUT s for one input), RSS over 2 GiB or one allocation over 512 MiB fails
# the run; the input is saved in $BUILD_DIR/fuzz-artifacts/TARGET/ (commit it to
# tests/fuzz/regressions/TARGET/ once fixed, so that rap_test_fuzz_replay_test replays it).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build/fuzz}"
JOBS="${JOBS:-2}"
NICE="${NICE:-10}"
FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-1}"
FUZZ_BUILD="${FUZZ_BUILD:-1}"
SHARED="${RAP_SHARED_DIR:-$PWD/../shared}"

targets() { for f in tests/fuzz/*_fuzz.cc; do basename "$f" _fuzz.cc; done; }

if [ "${1:-}" = "" ] || [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [ "$1" = "list" ]; then targets; exit 0; fi
TARGET="$1"
SECONDS_PER="${2:?usage: scripts/fuzz.sh TARGET SECONDS}"
shift 2

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g1 -O1" \
    -DRAP_FUZZ=ON -DRAP_BUILD_BENCH=OFF
fi
if [ "$FUZZ_BUILD" = 0 ]; then
  :
elif [ "$TARGET" = "all" ]; then
  ninja -C "$BUILD_DIR" -j "$JOBS" rap_fuzz_all
else
  ninja -C "$BUILD_DIR" -j "$JOBS" "rap_fuzz_$TARGET" rap_fuzz_seeds
fi
if [ ! -f "$BUILD_DIR/fuzz-seeds/.done" ]; then
  rm -rf "$BUILD_DIR/fuzz-seeds"
  "$BUILD_DIR/tests/fuzz/rap_fuzz_seeds" "$BUILD_DIR/fuzz-seeds" "$SHARED"
  touch "$BUILD_DIR/fuzz-seeds/.done"
fi

dict_of() {
  case "$1" in
    thrift_*|file_read|index_fragment) echo tests/fuzz/dict/thrift.dict ;;
    delta_log|index_manifest|server_request) echo tests/fuzz/dict/json.dict ;;
    where) echo tests/fuzz/dict/where.dict ;;
  esac
}

run_one() {  # target seconds [flags]: fuzzes, prints one summary line, fails on any finding
  local t="$1" secs="$2"; shift 2
  local corpus="$BUILD_DIR/fuzz-corpus/$t" artifacts="$BUILD_DIR/fuzz-artifacts/$t/" log="$BUILD_DIR/fuzz-logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  local dirs=("$corpus")
  for d in "tests/fuzz/corpus/$t" "$BUILD_DIR/fuzz-seeds/$t"; do [ -d "$d" ] && dirs+=("$d"); done
  local dict=() d
  d="$(dict_of "$t")"
  [ -n "$d" ] && dict=("-dict=$d")
  local rc=0
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}:allocator_may_return_null=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    nice -n "$NICE" "$BUILD_DIR/tests/fuzz/rap_fuzz_$t" -max_total_time="$secs" -timeout="$FUZZ_TIMEOUT" -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$artifacts" "${dict[@]}" "$@" "${dirs[@]}" \
    >"$log" 2>&1 || rc=$?
  local execs cov ft
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -ao 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ok, ${execs:-?} executions in ${secs} s, ${cov:-?} edges, ${ft:-?} features"
  else
    echo "fuzz $t: FAILED (exit $rc) after ${execs:-?} executions; log $log, input in $artifacts"
    grep -aE 'ERROR: |SUMMARY: |runtime error' "$log" | head -5 || true
    return 1
  fi
}

if [ "$TARGET" = "all" ]; then
  export -f run_one dict_of
  export BUILD_DIR NICE FUZZ_TIMEOUT
  targets | xargs -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {} "$SECONDS_PER" "$@"
else
  run_one "$TARGET" "$SECONDS_PER" "$@"
fi
