#!/usr/bin/env bash
# Fetches ORC Java (orc-core) and the jars it needs at run time from Maven Central into a cache
# folder (default: build/jars), once per machine: a jar already present with the pinned SHA-256 is
# kept. tests/python/test_orc_java.py compiles tests/orc/java/WriteOrcFiles.java against them and
# runs it once to write ORC files with ORC Java (issue 31). The list is what Maven resolves for
# orc-core 2.1.3 with its provided dependencies hive-storage-api 4.0.1, hadoop-client-api/-runtime
# 3.4.1 and protobuf-java 3.25.5, less the jars the writer and reader never load (brotli4j,
# annotations).
#
# Usage: scripts/fetch-orc-jars.sh [DEST]    prints the jar paths (one a line) when done
set -euo pipefail

DEST="${1:-build/jars}"
# group/artifact/version  sha256
JARS=(
  "org/apache/orc/orc-core/2.1.3 824c78dd07615fe9baa2716f2c714c81e43a1cfb89b5a2c3afd3f2ea63cfa48c"
  "org/apache/orc/orc-format/1.1.0 db817bcfec0a20d8740530c7211089f9f798c7ea53f80e8d873a32fd1b62d562"
  "org/apache/orc/orc-shims/2.1.3 dd174554db0da091b77a50193576bc202f4e5e4c6a2e6b77dc1ffa30b36092de"
  "org/apache/hive/hive-storage-api/4.0.1 3f03026ae4a7b0663cca6acb80d58247e83178e2ebb5533c95df54d6822ad5e0"
  "org/apache/hadoop/hadoop-client-api/3.4.1 a964d4daa054c9615bbafb4553efbb140fa7fb9ac6f358a24393f183a5703438"
  "org/apache/hadoop/hadoop-client-runtime/3.4.1 f6a800a159f918670db533606d33560d6c13b7e13f14eda493280ae33b9eeb2f"
  "com/google/protobuf/protobuf-java/3.25.5 8540247fad9e06baefa8fb45eb313802d019f485f14300e0f9d6b556ed88e753"
  "io/airlift/aircompressor/2.0.2 0c2a96bf86d5fb24ff7f20c92483c61391cb10d440a4bd278c77365a2b165698"
  "com/github/luben/zstd-jni/1.5.6-10 b6c3237e24b8252a5a9c3a0e1ae30ef8f323412e74bd358548b7a9e527d676df"
  "org/xerial/snappy/snappy-java/1.1.10.4 55b30c94e5c4cc2d4b6976916098d0678a8a6cc7427fa8c875621bd94e731ac8"
  "org/threeten/threeten-extra/1.8.0 51e4d21edc4e9447f7760c050e0baee75d7d973f387ba605a17abdc4d24fd6d8"
  "org/slf4j/slf4j-api/2.0.16 a12578dde1ba00bd9b816d388a0b879928d00bab3c83c240f7013bf4196c579a"
  "commons-logging/commons-logging/1.2 daddea1ea0be0f56978ab3006b8ac92834afeefbd9b7e4e6316fca57df0fa636"
)

source "$(dirname "$0")/maven-jars.sh"
fetch_pinned_jars fetch-orc-jars "$DEST" "${JARS[@]}"
