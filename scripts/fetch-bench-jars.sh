#!/usr/bin/env bash
# Fetches the pinned Maven jars the benchmarks need beyond the tests' (scripts/fetch-jars.sh,
# scripts/fetch-orc-jars.sh): Paimon's S3 file IO for bench/paimon's Java reader over rap-netsim.
# Same cache (default: build/jars) and checks as the others (scripts/maven-jars.sh).
#
# Usage: scripts/fetch-bench-jars.sh [DEST]    prints the jar paths (one a line) when done
set -euo pipefail

DEST="${1:-build/jars}"
JARS=(
  # paimon-s3 (hadoop-aws's S3A and the AWS SDK, shaded) for Paimon Java's reads of s3:// warehouses.
  "org/apache/paimon/paimon-s3/0.9.0 d48913373fee2fbe1c64bbebd8e4943083b6586ebb47c8ce2f07be3c0f81ccc2"
)

source "$(dirname "$0")/maven-jars.sh"
fetch_pinned_jars fetch-bench-jars "$DEST" "${JARS[@]}"
