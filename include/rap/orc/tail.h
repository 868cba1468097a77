// The ORC file tail: "ORC" magic at offset 0, the stripes, then the metadata (stripe statistics),
// the footer (schema, stripe list, file statistics, user metadata) and the postscript (lengths,
// compression, version), whose own length is the file's last byte. Every length and offset is
// checked against the file before it is used.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rap/orc/compression.h"
#include "rap/orc/types.h"
#include "rap/util/result.h"

namespace rap::orc {

struct StripeInfo {
  uint64_t offset = 0;
  uint64_t index_length = 0;
  uint64_t data_length = 0;
  uint64_t footer_length = 0;
  uint64_t num_rows = 0;
};

// One column's statistics, reduced to what rap prints and prunes on.
struct ColumnStats {
  uint64_t num_values = 0;
  std::optional<bool> has_null;
  std::string
      kind;  // "int", "double", "string", "date", "decimal", "timestamp", "binary", "bucket", "collection" or ""
  std::string min, max, sum;  // as text; empty when absent
};

struct FileTail {
  std::string name;
  uint64_t file_size = 0;
  // PostScript
  uint64_t postscript_length = 0;
  uint64_t footer_length = 0;
  uint64_t metadata_length = 0;
  Compression compression = Compression::kNone;
  uint64_t compression_block_size = kDefaultCompressionBlockSize;
  bool has_compression_block_size = false;
  std::vector<uint32_t> version;  // [0, 12]; empty when the postscript has none
  uint32_t writer_version = 0;
  // Footer
  uint64_t header_length = 0;
  uint64_t content_length = 0;
  uint64_t num_rows = 0;
  uint32_t row_index_stride = 0;
  std::optional<uint32_t> writer;  // 0 ORC Java, 1 ORC C++, ...
  std::string software_version;
  std::vector<StripeInfo> stripes;
  TypeTree types;
  std::vector<std::pair<std::string, std::string>> user_metadata;
  std::vector<ColumnStats> file_stats;                 // one per type id (may be empty)
  std::vector<std::vector<ColumnStats>> stripe_stats;  // per stripe, per type id (may be empty)
  // The metadata section (stripe statistics) is needed for pruning only: when it does not parse,
  // the file is still read, stripe_stats is empty and this says why.
  Status metadata_status;

  // "0.12", "UNSTABLE-PRE-2.0" for [1, 9999], "" when absent.
  std::string VersionString() const;
  // "ORC Java", "ORC C++", ... (ORC's writer registry), "unknown(N)".
  std::string WriterName() const;
};

// Parses the tail of the ORC file `file` (all of its bytes; `name` names it in errors). A file
// that is not ORC, is cut off, or has lengths that do not fit gives Corrupt naming the structure
// and byte offset; an encrypted file gives NotSupported. Files of unknown versions are read.
Result<FileTail> ParseTail(std::string_view name, std::span<const uint8_t> file);

// Reading a file through a store: from its last bytes `suffix` (at least the last byte), how many
// of its last bytes the tail needs (postscript + 1 + footer + metadata); the postscript's length + 1
// when `suffix` does not hold the postscript yet. Corrupt when the lengths do not fit the file.
Result<uint64_t> TailLength(std::string_view name, uint64_t file_size, std::span<const uint8_t> suffix);
// ParseTail from the file's last TailLength bytes or more (the "ORC" magic at offset 0 is not
// checked: the postscript's own magic is, when the writer wrote it).
Result<FileTail> ParseTailFromSuffix(std::string_view name, uint64_t file_size, std::span<const uint8_t> suffix);

// True when `file` starts with the "ORC" magic.
bool HasOrcMagic(std::span<const uint8_t> file);

}  // namespace rap::orc
