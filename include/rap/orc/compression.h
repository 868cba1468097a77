// ORC's compression framing: a compressed stream (and the footer and metadata) is a sequence of
// chunks, each with a 3-byte little-endian header whose low bit says "original" (stored
// uncompressed) and whose other 23 bits are the chunk's length; a compressed chunk decompresses to
// at most the postscript's compression block size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rap/util/buffer.h"
#include "rap/util/result.h"

namespace rap::orc {

// PostScript.compression values.
enum class Compression : uint32_t { kNone = 0, kZlib = 1, kSnappy = 2, kLzo = 3, kLz4 = 4, kZstd = 5 };

// "NONE", "ZLIB", ... as ORC names them; "unknown(N)" otherwise.
std::string CompressionName(Compression c);

// Default compression block size when the postscript has none (ORC's writers default to 256 KiB).
inline constexpr uint64_t kDefaultCompressionBlockSize = 256 * 1024;
// Larger block sizes are Corrupt (ORC's writers hold a block in a 32-bit sized buffer).
inline constexpr uint64_t kMaxCompressionBlockSize = uint64_t{1} << 31;

// Decompresses the framed bytes `in` (all of one stream, or the footer/metadata) into one buffer.
// kNone returns `in` unchanged (a slice of `owner` when given). `what` names the object and
// structure for errors ("f.orc: stripe 0 column 3 DATA stream at offset 1234"); chunk offsets in
// messages are relative to `base_offset` (the file offset of `in`).
Result<Buffer> DecompressStream(Compression compression, uint64_t block_size, const Buffer& in, std::string_view what,
                                uint64_t base_offset);

}  // namespace rap::orc
