// Arrow IPC stream encoder (https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc):
// a schema message, one record-batch message per batch, and the end-of-stream marker, as bytes ready
// to send. Every message is "encapsulated": the continuation marker 0xFFFFFFFF, the int32 length of
// the Flatbuffers metadata (padded so the body starts 8-byte aligned), the metadata (Message table,
// MetadataVersion V5) and the body (each buffer padded to 8 bytes). Buffers are uncompressed and
// there are no dictionaries. Hand-written rather than linking libarrow: Debian 12 has no Arrow C++
// package, and the encoder is a few hundred lines over rap's own Arrow-layout arrays.
//
// Types: null, bool, (u)int8..64, float16/32/64, string, binary, fixed_size_binary, decimal128,
// date32, time32/64, timestamp (with time zone), list, struct, map. Array offsets (slices) are
// normalised: every encoded array starts at offset 0, as IPC requires.
#pragma once

#include <string>

#include "rap/columnar/array.h"
#include "rap/util/result.h"

namespace rap::server {

// The Schema message (the first message of a stream).
Result<std::string> EncodeIpcSchema(const Schema& schema);
// One RecordBatch message; `batch.columns` must match the schema given to EncodeIpcSchema.
Result<std::string> EncodeIpcRecordBatch(const RecordBatch& batch);
// The end-of-stream marker (0xFFFFFFFF 0x00000000).
std::string IpcEndOfStream();

}  // namespace rap::server
