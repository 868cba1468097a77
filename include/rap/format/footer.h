// The Parquet file tail: "<metadata><4-byte LE length>PAR1".
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rap/format/metadata.h"
#include "rap/util/result.h"

namespace rap::parquet {

inline constexpr uint64_t kFooterSize = 8;            // length + magic
inline constexpr uint64_t kDefaultTailRead = 64 * 1024;  // first footer read (one request)

// Given the last bytes of a file (`tail`, at least 8) and the file size, returns the metadata
// length. Errors: wrong magic (Corrupt), "PARE" magic (NotSupported: encrypted Parquet is not
// supported), a length larger than the file (Corrupt). `name` is used in messages.
Result<uint64_t> ParseFooterLength(std::span<const uint8_t> tail, uint64_t file_size, const std::string& name);

// Decodes the metadata from a tail that holds it completely (tail.size() >= length + 8).
// Plaintext-footer encrypted files give NotSupported; checks the header magic separately.
Result<FileMetaData> ParseFooter(std::span<const uint8_t> tail, uint64_t file_size, const std::string& name);

}  // namespace rap::parquet
