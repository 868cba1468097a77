// Datums of one block: checked against the schema (every length, count, union branch and enum index
// within the block's bytes) and then decoded by Avro C into rap/avro/value.h trees. Private to src/avro.
#pragma once

#include <avro.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rap/avro/object_container.h"

namespace rap::avro {

// Walks `count` datums of `schema` over `block` (whose first byte is at file offset `base`) without
// decoding them; Corrupt naming the byte offset at the first malformed length, and when the datums do
// not end exactly at the end of the block.
Status CheckBlockDatums(avro_schema_t schema, std::span<const uint8_t> block, uint64_t count, uint64_t base,
                        const std::string& what, const ReadLimits& limits);

// Decodes the `count` checked datums of `block` through Avro C and appends them to `out`.
Status DecodeBlockDatums(avro_value_iface_t* iface, std::span<const uint8_t> block, uint64_t count, uint64_t base,
                         const std::string& what, std::vector<Value>* out);

}  // namespace rap::avro
