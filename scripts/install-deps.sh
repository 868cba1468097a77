#!/usr/bin/env bash
# Installs every Debian 12 package rap needs to build, test and benchmark. Idempotent:
# packages already present are skipped, and `apt-get update` runs at most once per call.
set -euo pipefail

PKGS=(
  # toolchain
  build-essential cmake ninja-build ccache pkg-config git clang
  # coverage-guided fuzzing (tests/fuzz, RAP_FUZZ=ON): libFuzzer and the sanitizer runtimes for clang 14
  # (clang without its recommended packages has no libclang_rt.asan)
  libfuzzer-14-dev libclang-rt-14-dev
  # libraries
  libcurl4-openssl-dev libssl-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libdeflate-dev libbrotli-dev
  libboost-dev nlohmann-json3-dev libcli11-dev libfmt-dev libpugixml-dev
  # the ORC reader (src/orc): protobuf for its metadata, liblzo2 for its LZO compression, the tz
  # database for the writer time zones of its timestamps
  libprotobuf-dev protobuf-compiler liblzo2-dev tzdata
  # Avro object container files (src/avro: Iceberg manifest lists and manifests): Avro C
  libavro-dev
  # the rap binary's allocator (tools/CMakeLists.txt, RAP_MALLOC)
  libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # real servers for the network tests (loopback only)
  nginx-light curl openssl
  swift swift-proxy swift-object swift-container swift-account python3-swift memcached
  # benchmark plots
  gnuplot-nox
  # HTTP load generator for bench_serve
  wrk
  # independent readers for writer verification (npm packages, see tests/npm)
  nodejs
  # the Python package (python/, RAP_PYTHON=ON): headers, and the project's venv (scripts/install-python-deps.sh)
  python3 python3-dev python3-venv
  # Apache Spark in local mode for the Spark tests (tests/python/test_spark*.py; PySpark 3.5 on Java 17)
  openjdk-17-jre-headless
)
# Node.js from a vendor repository bundles npm and conflicts with Debian's npm package.
if ! command -v npm >/dev/null 2>&1; then PKGS+=(npm); fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# The project's Python virtual environment (.venv) with the pinned test packages.
bash "$(dirname "$0")/install-python-deps.sh"
bash "$(dirname "$0")/install-paimon-venv.sh"  # pypaimon in its own venv (requirements-paimon.txt)

# The pinned Maven jars of the Spark tests (delta-spark), cached in build/jars.
bash "$(dirname "$0")/fetch-jars.sh" build/jars >/dev/null
# ORC Java (orc-core) and its run-time jars, for tests/python/test_orc_java.py.
bash "$(dirname "$0")/fetch-orc-jars.sh" build/jars >/dev/null
