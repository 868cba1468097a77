#include "rap/table/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace rap::table {

namespace {

constexpr char kZ85Alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr uint32_t kRoaringArrayMagic = 1681511377;
constexpr uint32_t kSerialCookieNoRun = 12346;
constexpr uint32_t kSerialCookie = 12347;
constexpr uint64_t kMaxDeletedRows = uint64_t{1} << 28;  // 2 GiB of row numbers

// Bounds-checked little-endian reader.
class Reader {
 public:
  Reader(std::span<const uint8_t> b, const std::string& what) : b_(b), what_(what) {}
  size_t pos() const { return pos_; }
  Status Need(size_t n, const char* structure) const {
    if (n > b_.size() - pos_) {
      return Status::Corrupt(what_ + ": " + structure + " at byte offset " + std::to_string(pos_) + " needs " +
                             std::to_string(n) + " bytes, " + std::to_string(b_.size() - pos_) + " left");
    }
    return Status::OK();
  }
  uint16_t U16() {
    uint16_t v = static_cast<uint16_t>(b_[pos_] | (b_[pos_ + 1] << 8));
    pos_ += 2;
    return v;
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | b_[pos_ + static_cast<size_t>(i)];
    pos_ += 4;
    return v;
  }
  uint64_t U64() {
    uint64_t lo = U32();
    uint64_t hi = U32();
    return lo | (hi << 32);
  }
  void Seek(size_t p) { pos_ = p; }
  const uint8_t* data() const { return b_.data(); }
  size_t size() const { return b_.size(); }
  const std::string& what() const { return what_; }

 private:
  std::span<const uint8_t> b_;
  const std::string& what_;
  size_t pos_ = 0;
};

// One portable 32-bit Roaring bitmap at the reader's position; values get `high` << 32 added.
Status ParseRoaring32(Reader& r, uint64_t high, uint64_t max_values, std::vector<uint64_t>* out) {
  const size_t start = r.pos();
  RAP_RETURN_NOT_OK(r.Need(4, "roaring cookie"));
  uint32_t cookie = r.U32();
  uint32_t n = 0;
  bool has_runs = false;
  std::vector<uint8_t> run_flags;
  if ((cookie & 0xffff) == kSerialCookie) {
    has_runs = true;
    n = (cookie >> 16) + 1;
    size_t bytes = (n + 7) / 8;
    RAP_RETURN_NOT_OK(r.Need(bytes, "roaring run-container bitmap"));
    run_flags.assign(r.data() + r.pos(), r.data() + r.pos() + bytes);
    r.Seek(r.pos() + bytes);
  } else if (cookie == kSerialCookieNoRun) {
    RAP_RETURN_NOT_OK(r.Need(4, "roaring container count"));
    n = r.U32();
  } else {
    return Status::Corrupt(r.what() + ": roaring bitmap at byte offset " + std::to_string(start) + ": cookie " +
                           std::to_string(cookie) + " is neither 12346 nor 12347");
  }
  if (n > 65536) return Status::Corrupt(r.what() + ": roaring bitmap with " + std::to_string(n) + " containers (max 65536)");
  RAP_RETURN_NOT_OK(r.Need(size_t{4} * n, "roaring container headers"));
  std::vector<uint16_t> keys(n), cards(n);
  for (uint32_t i = 0; i < n; ++i) {
    keys[i] = r.U16();
    cards[i] = r.U16();
  }
  const bool has_offsets = !has_runs || n >= 4;
  if (has_offsets) {
    RAP_RETURN_NOT_OK(r.Need(size_t{4} * n, "roaring container offsets"));
    r.Seek(r.pos() + size_t{4} * n);  // containers follow in order; the offsets are redundant
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t base = (high << 32) | (static_cast<uint64_t>(keys[i]) << 16);
    const uint32_t card = static_cast<uint32_t>(cards[i]) + 1;
    const bool is_run = has_runs && ((run_flags[i / 8] >> (i % 8)) & 1);
    if (out->size() + (is_run ? 0 : card) > max_values) {
      return Status::ResourceExhausted(r.what() + ": deletion vector holds more than " + std::to_string(max_values) +
                                       " rows");
    }
    if (is_run) {
      RAP_RETURN_NOT_OK(r.Need(2, "roaring run count"));
      uint16_t runs = r.U16();
      RAP_RETURN_NOT_OK(r.Need(size_t{4} * runs, "roaring runs"));
      for (uint16_t k = 0; k < runs; ++k) {
        uint32_t s = r.U16();
        uint32_t len = static_cast<uint32_t>(r.U16()) + 1;
        if (s + len > 65536) return Status::Corrupt(r.what() + ": roaring run past the end of its container");
        if (out->size() + len > max_values) {
          return Status::ResourceExhausted(r.what() + ": deletion vector holds more than " +
                                           std::to_string(max_values) + " rows");
        }
        for (uint32_t v = s; v < s + len; ++v) out->push_back(base | v);
      }
    } else if (card > 4096) {
      RAP_RETURN_NOT_OK(r.Need(8192, "roaring bitset container"));
      for (uint32_t w = 0; w < 1024; ++w) {
        uint64_t word = r.U64();
        while (word) {
          int bit = __builtin_ctzll(word);
          out->push_back(base | (w * 64 + static_cast<uint32_t>(bit)));
          word &= word - 1;
        }
      }
    } else {
      RAP_RETURN_NOT_OK(r.Need(size_t{2} * card, "roaring array container"));
      for (uint32_t k = 0; k < card; ++k) out->push_back(base | r.U16());
    }
  }
  return Status::OK();
}

uint32_t LoadBE32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id = storage_type + path_or_inline;
  if (offset) id += "@" + std::to_string(*offset);
  return id;
}

Result<std::string> DecodeZ85(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Corrupt("z85 text of " + std::to_string(text.size()) + " characters is not a multiple of 5");
  }
  int8_t decode[256];
  std::memset(decode, -1, sizeof decode);
  for (int i = 0; i < 85; ++i) decode[static_cast<unsigned char>(kZ85Alphabet[i])] = static_cast<int8_t>(i);
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t v = 0;
    for (size_t k = 0; k < 5; ++k) {
      int d = decode[static_cast<unsigned char>(text[i + k])];
      if (d < 0) return Status::Corrupt("z85 text: character " + std::to_string(i + k) + " is not in the alphabet");
      v = v * 85 + static_cast<uint64_t>(d);
    }
    if (v > 0xffffffffULL) return Status::Corrupt("z85 text: group at character " + std::to_string(i) + " overflows");
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xff));
  }
  return out;
}

std::string EncodeZ85(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 3) / 4 * 5);
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint64_t v = 0;
    for (size_t k = 0; k < 4; ++k) v = (v << 8) | (i + k < bytes.size() ? static_cast<unsigned char>(bytes[i + k]) : 0);
    char group[5];
    for (int k = 4; k >= 0; --k) {
      group[k] = kZ85Alphabet[v % 85];
      v /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

namespace {

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// One portable 32-bit Roaring bitmap of the low 32 bits of rows[begin, end) (one high key).
void SerializeRoaring32(const std::vector<uint64_t>& rows, size_t begin, size_t end, std::string* out) {
  // Containers: [first, last) ranges of rows sharing bits 16..31.
  std::vector<std::pair<size_t, size_t>> containers;
  for (size_t i = begin; i < end;) {
    size_t j = i + 1;
    while (j < end && ((rows[j] >> 16) & 0xffff) == ((rows[i] >> 16) & 0xffff)) ++j;
    containers.push_back({i, j});
    i = j;
  }
  PutLE(out, kSerialCookieNoRun, 4);
  PutLE(out, containers.size(), 4);
  for (const auto& [i, j] : containers) {
    PutLE(out, (rows[i] >> 16) & 0xffff, 2);
    PutLE(out, j - i - 1, 2);
  }
  uint64_t offset = 8 + 8 * containers.size();
  for (const auto& [i, j] : containers) {
    PutLE(out, offset, 4);
    offset += j - i > 4096 ? 8192 : 2 * (j - i);
  }
  for (const auto& [i, j] : containers) {
    if (j - i > 4096) {
      std::vector<uint64_t> words(1024, 0);
      for (size_t k = i; k < j; ++k) words[(rows[k] & 0xffff) / 64] |= uint64_t{1} << (rows[k] % 64);
      for (uint64_t w : words) PutLE(out, w, 8);
    } else {
      for (size_t k = i; k < j; ++k) PutLE(out, rows[k] & 0xffff, 2);
    }
  }
}

}  // namespace

std::string SerializeRoaringBitmapArray(const std::vector<uint64_t>& rows) {
  std::string out;
  PutLE(&out, kRoaringArrayMagic, 4);
  std::vector<std::pair<size_t, size_t>> bitmaps;  // rows sharing the high 32 bits
  for (size_t i = 0; i < rows.size();) {
    size_t j = i + 1;
    while (j < rows.size() && (rows[j] >> 32) == (rows[i] >> 32)) ++j;
    bitmaps.push_back({i, j});
    i = j;
  }
  PutLE(&out, bitmaps.size(), 8);
  for (const auto& [i, j] : bitmaps) {
    PutLE(&out, rows[i] >> 32, 4);
    SerializeRoaring32(rows, i, j, &out);
  }
  return out;
}

DeletionVectorDescriptor InlineDeletionVector(const std::vector<uint64_t>& rows) {
  const std::string bitmap = SerializeRoaringBitmapArray(rows);
  DeletionVectorDescriptor dv;
  dv.storage_type = "i";
  dv.path_or_inline = EncodeZ85(bitmap);
  dv.size_in_bytes = static_cast<int64_t>(bitmap.size());
  dv.cardinality = static_cast<int64_t>(rows.size());
  return dv;
}

Result<std::string> DeletionVectorPath(const std::string& table_root, const DeletionVectorDescriptor& dv) {
  if (dv.storage_type != "u") return Status::InvalidArgument("deletion vector storage type '" + dv.storage_type + "' has no UUID path");
  if (dv.path_or_inline.size() < 20) {
    return Status::Corrupt("deletion vector '" + dv.path_or_inline + "': expected a z85-encoded UUID (20 characters)");
  }
  const std::string prefix = dv.path_or_inline.substr(0, dv.path_or_inline.size() - 20);
  RAP_ASSIGN_OR_RETURN(std::string uuid, DecodeZ85(std::string_view(dv.path_or_inline).substr(prefix.size())));
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHex[(static_cast<unsigned char>(uuid[i]) >> 4) & 15]);
    text.push_back(kHex[static_cast<unsigned char>(uuid[i]) & 15]);
  }
  std::string name = "deletion_vector_" + text + ".bin";
  return io::JoinPath(table_root, prefix.empty() ? name : prefix + "/" + name);
}

Result<std::vector<uint64_t>> ParseRoaringBitmapArray(std::span<const uint8_t> bytes, const std::string& what,
                                                      uint64_t max_values) {
  Reader r(bytes, what);
  RAP_RETURN_NOT_OK(r.Need(12, "RoaringBitmapArray header"));
  uint32_t magic = r.U32();
  if (magic != kRoaringArrayMagic) {
    return Status::Corrupt(what + ": RoaringBitmapArray magic " + std::to_string(magic) + " at byte offset 0 (expected " +
                           std::to_string(kRoaringArrayMagic) + ")");
  }
  uint64_t count = r.U64();
  if (count > bytes.size()) return Status::Corrupt(what + ": " + std::to_string(count) + " bitmaps in " + std::to_string(bytes.size()) + " bytes");
  std::vector<uint64_t> out;
  int64_t last_key = -1;
  for (uint64_t b = 0; b < count; ++b) {
    RAP_RETURN_NOT_OK(r.Need(4, "bitmap key"));
    uint32_t key = r.U32();
    if (static_cast<int64_t>(key) <= last_key) return Status::Corrupt(what + ": bitmap keys are not increasing");
    last_key = key;
    RAP_RETURN_NOT_OK(ParseRoaring32(r, key, max_values, &out));
  }
  if (!std::is_sorted(out.begin(), out.end()) || std::adjacent_find(out.begin(), out.end()) != out.end()) {
    return Status::Corrupt(what + ": deletion vector values are not strictly increasing");
  }
  return out;
}

Result<std::vector<uint64_t>> ParseRoaringBitmap32(std::span<const uint8_t> bytes, const std::string& what,
                                                   uint64_t max_values) {
  Reader r(bytes, what);
  std::vector<uint64_t> out;
  RAP_RETURN_NOT_OK(ParseRoaring32(r, 0, max_values, &out));
  if (r.pos() != bytes.size()) {
    return Status::Corrupt(what + ": " + std::to_string(bytes.size() - r.pos()) +
                           " bytes after the roaring bitmap at byte offset " + std::to_string(r.pos()));
  }
  if (std::adjacent_find(out.begin(), out.end(), [](uint64_t a, uint64_t b) { return a >= b; }) != out.end()) {
    return Status::Corrupt(what + ": roaring bitmap values are not strictly increasing");
  }
  return out;
}

Result<std::vector<uint64_t>> LoadDeletionVector(const io::ObjectStorePtr& store, const std::string& table_root,
                                                 const DeletionVectorDescriptor& dv) {
  const std::string what = "deletion vector " + dv.UniqueId();
  std::string bitmap;
  std::string where;
  if (dv.storage_type == "i") {
    RAP_ASSIGN_OR_RETURN(bitmap, DecodeZ85(dv.path_or_inline));
    if (dv.size_in_bytes > 0 && static_cast<size_t>(dv.size_in_bytes) < bitmap.size()) bitmap.resize(static_cast<size_t>(dv.size_in_bytes));
    where = what;
  } else if (dv.storage_type == "u") {
    RAP_ASSIGN_OR_RETURN(std::string path, DeletionVectorPath(table_root, dv));
    where = path;
    if (dv.size_in_bytes <= 0 || dv.size_in_bytes > (int64_t{1} << 31)) {
      return Status::Corrupt(what + ": sizeInBytes " + std::to_string(dv.size_in_bytes) + " out of range");
    }
    const int64_t offset = dv.offset.value_or(1);
    if (offset < 0) return Status::Corrupt(what + ": negative offset");
    // u32 size, the bitmap, u32 CRC.
    ByteRange range{static_cast<uint64_t>(offset), static_cast<uint64_t>(dv.size_in_bytes) + 8};
    RAP_ASSIGN_OR_RETURN(std::vector<Buffer> bufs,
                         store->ReadRanges(path, std::span<const ByteRange>(&range, 1), io::ReadOptions{}, nullptr));
    if (bufs.size() != 1 || bufs[0].size() != range.length) return Status::Corrupt(path + ": short deletion vector read");
    const uint8_t* p = bufs[0].data();
    uint32_t size = LoadBE32(p);
    if (size != static_cast<uint64_t>(dv.size_in_bytes)) {
      return Status::Corrupt(path + ": deletion vector at byte offset " + std::to_string(offset) + " has size " +
                             std::to_string(size) + ", the log says " + std::to_string(dv.size_in_bytes));
    }
    uint32_t crc = LoadBE32(p + 4 + size);
    uint32_t actual = static_cast<uint32_t>(crc32(0L, p + 4, size));
    if (crc != actual) {
      return Status::Corrupt(path + ": deletion vector at byte offset " + std::to_string(offset) + ": CRC-32 mismatch");
    }
    bitmap.assign(reinterpret_cast<const char*>(p + 4), size);
  } else {
    return Status::NotSupported(what + ": deletion vector storage type '" + dv.storage_type + "' is not supported");
  }
  RAP_ASSIGN_OR_RETURN(std::vector<uint64_t> rows,
                       ParseRoaringBitmapArray(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bitmap.data()),
                                                                        bitmap.size()),
                                               where, kMaxDeletedRows));
  if (dv.cardinality != static_cast<int64_t>(rows.size())) {
    return Status::Corrupt(where + ": deletion vector holds " + std::to_string(rows.size()) + " rows, the log says " +
                           std::to_string(dv.cardinality));
  }
  return rows;
}

}  // namespace rap::table
