// The Parquet file tail: magic, metadata length, and the FileMetaData decode.
#include "rap/format/footer.h"

#include <cstring>

#include "rap/format/thrift.h"

namespace rap::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
constexpr char kEncryptedMagic[] = "PARE";
constexpr uint64_t kMinFileSize = 12;  // "PAR1" + length + "PAR1" (an empty metadata is still invalid)

std::string Printable(const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
      s += static_cast<char>(p[i]);
    } else {
      s += "\\x";
      s += kHex[p[i] >> 4];
      s += kHex[p[i] & 15];
    }
  }
  return s;
}

}  // namespace

Result<uint64_t> ParseFooterLength(std::span<const uint8_t> tail, uint64_t file_size, const std::string& name) {
  if (file_size < kMinFileSize) {
    return Status::Corrupt(name + ": file of " + std::to_string(file_size) +
                           " bytes is too small to be Parquet (at least 12 bytes)");
  }
  if (tail.size() < kFooterSize || tail.size() > file_size) {
    return Status::InvalidArgument(name + ": a footer needs the last 8 bytes of the file, got a tail of " +
                                   std::to_string(tail.size()) + " bytes of a " + std::to_string(file_size) +
                                   "-byte file");
  }
  const uint8_t* end = tail.data() + tail.size();
  uint64_t magic_at = file_size - 4;
  if (std::memcmp(end - 4, kEncryptedMagic, 4) == 0) {
    return Status::NotSupported(name + ": encrypted Parquet is not supported (footer magic PARE at offset " +
                                std::to_string(magic_at) + ")");
  }
  if (std::memcmp(end - 4, kMagic, 4) != 0) {
    return Status::Corrupt(name + ": footer magic at offset " + std::to_string(magic_at) + " is \"" +
                           Printable(end - 4, 4) + "\", expected \"PAR1\"");
  }
  uint32_t length = static_cast<uint32_t>(end[-8]) | static_cast<uint32_t>(end[-7]) << 8 |
                    static_cast<uint32_t>(end[-6]) << 16 | static_cast<uint32_t>(end[-5]) << 24;
  if (length == 0 || length > file_size - kMinFileSize) {
    return Status::Corrupt(name + ": footer length " + std::to_string(length) + " at offset " +
                           std::to_string(file_size - 8) + " does not fit in a file of " + std::to_string(file_size) +
                           " bytes (metadata must lie between the header magic and the footer)");
  }
  return static_cast<uint64_t>(length);
}

Result<FileMetaData> ParseFooter(std::span<const uint8_t> tail, uint64_t file_size, const std::string& name) {
  RAP_ASSIGN_OR_RETURN(uint64_t length, ParseFooterLength(tail, file_size, name));
  if (tail.size() < length + kFooterSize) {
    return Status::InvalidArgument(name + ": the tail of " + std::to_string(tail.size()) +
                                   " bytes does not hold the metadata of " + std::to_string(length) +
                                   " bytes; read the last " + std::to_string(length + kFooterSize) + " bytes");
  }
  if (tail.size() == file_size && std::memcmp(tail.data(), kMagic, 4) != 0) {
    if (std::memcmp(tail.data(), kEncryptedMagic, 4) == 0) {
      return Status::NotSupported(name + ": encrypted Parquet is not supported (header magic PARE)");
    }
    return Status::Corrupt(name + ": header magic at offset 0 is \"" + Printable(tail.data(), 4) +
                           "\", expected \"PAR1\"");
  }
  uint64_t metadata_at = file_size - kFooterSize - length;
  auto bytes = tail.subspan(tail.size() - kFooterSize - length, length);
  auto md = DecodeFileMetaData(bytes);
  if (!md.ok()) {
    return md.status().WithContext(name + ": footer metadata at file offset " + std::to_string(metadata_at) + " (" +
                                   std::to_string(length) + " bytes)");
  }
  if (md->has_encryption_algorithm) {
    return Status::NotSupported(name +
                                ": encrypted Parquet is not supported (plaintext footer with an "
                                "encryption_algorithm)");
  }
  return md;
}

}  // namespace rap::parquet
