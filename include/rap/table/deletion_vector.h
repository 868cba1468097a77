// Delta Lake deletion vectors (PROTOCOL.md "Deletion Vectors"): the descriptor in add actions, the
// z85 encoding of UUIDs and inline vectors, the DV file layout (version byte; at `offset`: u32 BE
// size, the serialized bitmap, u32 BE CRC-32) and the "portable" 64-bit RoaringBitmapArray
// (magic 1681511377, u64 count, per bitmap a u32 high key and a 32-bit portable Roaring bitmap).
// Hand-written: Debian 12 has no CRoaring package, and only deserialisation to sorted row numbers and
// the plainest serialisation (array and bitset containers, no run containers) are needed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/util/result.h"

namespace rap::table {

struct DeletionVectorDescriptor {
  std::string storage_type;    // "u" (UUID-relative file), "i" (inline), "p" (absolute path)
  std::string path_or_inline;  // z85 (u: optional random prefix + 20-char UUID; i: the bitmap)
  std::optional<int64_t> offset;
  int64_t size_in_bytes = 0;
  int64_t cardinality = 0;
  // "<storageType><pathOrInlineDv>[@offset]": what makes (path, DV) pairs unique in the log.
  std::string UniqueId() const;
};

// Z85 (ZeroMQ base-85): 5 characters -> 4 bytes. Corrupt when the length is not a multiple of 5 or a
// character is outside the alphabet.
Result<std::string> DecodeZ85(std::string_view text);

// The path (within the store) of a "u" deletion vector file of the table at `table_root`.
Result<std::string> DeletionVectorPath(const std::string& table_root, const DeletionVectorDescriptor& dv);

// Deserialises a RoaringBitmapArray into sorted, distinct row numbers. At most `max_values` values.
Result<std::vector<uint64_t>> ParseRoaringBitmapArray(std::span<const uint8_t> bytes, const std::string& what,
                                                      uint64_t max_values);

// Deserialises one portable 32-bit Roaring bitmap (the format of Paimon's deletion vectors) into
// sorted, distinct row numbers: Corrupt naming the byte offset (within `bytes`) when malformed or
// when bytes follow it. At most `max_values` values.
Result<std::vector<uint64_t>> ParseRoaringBitmap32(std::span<const uint8_t> bytes, const std::string& what,
                                                   uint64_t max_values);

// Z85-encodes `bytes`, zero-padded to a multiple of 4 bytes (the decoder's length then comes from the
// descriptor's sizeInBytes).
std::string EncodeZ85(std::string_view bytes);

// Serialises sorted, distinct row numbers as a RoaringBitmapArray (portable 32-bit bitmaps with array
// containers, or bitset containers above 4096 values; no run containers): ParseRoaringBitmapArray's
// inverse.
std::string SerializeRoaringBitmapArray(const std::vector<uint64_t>& rows);

// An inline ("i") descriptor holding `rows` (sorted, distinct): how the index records the deletes a
// table format keeps in other files (Iceberg delete files and deletion vectors) so that lookups hide
// them as they hide a Delta deletion vector.
DeletionVectorDescriptor InlineDeletionVector(const std::vector<uint64_t>& rows);

// Loads the deleted row numbers (sorted) of one data file: reads the DV file range (u/p) or decodes
// the inline bitmap (i), checks size, CRC and cardinality.
Result<std::vector<uint64_t>> LoadDeletionVector(const io::ObjectStorePtr& store, const std::string& table_root,
                                                 const DeletionVectorDescriptor& dv);

}  // namespace rap::table
