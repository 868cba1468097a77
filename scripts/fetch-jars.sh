#!/usr/bin/env bash
# Fetches the pinned Maven jars the Spark tests need (tests/python/test_spark*.py, docs/spark.md;
# tests/python/test_iceberg_spark.py; tests/python/test_paimon_spark.py)
# from Maven Central into a cache folder (default: build/jars), once per machine: a jar already
# present with the pinned SHA-256 is kept. Spark then loads them by path (spark.jars), so no Ivy
# resolution and no other repository is involved. pyspark itself comes from PyPI
# (requirements-test.txt); delta-spark 3.3.3 is built for Spark 3.5 and Scala 2.12, and its other
# dependencies (antlr4-runtime 4.9.3, Spark, Scala) ship inside pyspark's jars/.
#
# Usage: scripts/fetch-jars.sh [DEST]    prints the jar paths (one a line) when done
set -euo pipefail

DEST="${1:-build/jars}"
# group/artifact/version  sha256
JARS=(
  "io/delta/delta-spark_2.12/3.3.3 4912bf902a1c453aba3bd838ff212dedd357155212f9bb37a6b47d97f2827ebc"
  "io/delta/delta-storage/3.3.3 45ad193053fd30cebe6d9ab1889873cde39b223a0f210e00ebee8b6642476901"
  # Iceberg's Spark runtime (tests/python/test_iceberg_spark.py): everything in one shaded jar.
  "org/apache/iceberg/iceberg-spark-runtime-3.5_2.12/1.10.0 70f9471870b2d456167d703c829f098a446b86bb1379eee338c0efa03a341026"
  # Paimon's Spark connector (tests/python/test_paimon_spark.py): Java Paimon in one shaded jar.
  "org/apache/paimon/paimon-spark-3.5/0.9.0 e9e8a90a630a1440dfd869bb568c8fc916d6de23bc162922cc0c2684ed6fa15b"
)

source "$(dirname "$0")/maven-jars.sh"
fetch_pinned_jars fetch-jars "$DEST" "${JARS[@]}"
