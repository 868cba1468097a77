// Avro object container files (the Avro specification, "Object Container Files"): the header (magic,
// metadata map with avro.schema and avro.codec, sync marker) and the data blocks, decoded into
// rap/avro/value.h trees. Iceberg manifest lists and manifests are such files (Paimon's too).
//
// The container framing (header, block counts and sizes, sync markers, codecs null, deflate, snappy,
// zstandard) is read here with every length checked against the bytes present. The schema is parsed
// and each datum decoded by Debian's Avro C library (libavro-dev, pkg-config avro-c). Its binary
// decoder trusts the lengths it reads (a negative string length, a count past the end), so before a
// block reaches it every datum of the block is walked against the schema and each length, count,
// union branch and enum index is checked (datum_check.cc); Avro C then only sees well-formed bytes.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "rap/avro/value.h"
#include "rap/util/result.h"

namespace rap::avro {

struct ReadLimits {
  uint64_t max_records = uint64_t{1} << 24;           // records in the file
  uint64_t max_block_bytes = uint64_t{256} << 20;     // one block, decompressed
  int max_depth = 64;                                 // nesting of the schema while decoding a datum
};

struct ContainerFile {
  std::string schema_json;                     // the writer's schema (avro.schema)
  std::string codec;                           // avro.codec ("null" when absent)
  std::map<std::string, std::string> metadata;  // every header metadata entry (avro.* and the writer's own)
  std::vector<Value> records;                  // every datum of every block, in file order
};

// Decodes a whole object container file. `what` names it in messages ("s3://b/t/metadata/x.avro");
// errors name the structure and the byte offset in the file ("block 3 at byte offset 4242: ...").
Result<ContainerFile> ReadContainerFile(std::span<const uint8_t> bytes, const std::string& what,
                                        const ReadLimits& limits = {});

}  // namespace rap::avro
