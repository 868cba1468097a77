// The fingerprint: a hand-computed byte stream (docs/fingerprint.md), and its sensitivity to values,
// order, row ids and null positions but not to array offsets or integer width.
#include <gtest/gtest.h>

#include <cstring>

#include "rap/read/fingerprint.h"
#include "testing/arrays.h"

namespace rap::read {
namespace {

using rap::testing::Fixed;

ArrayPtr Strings(const std::vector<std::string>& v) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kString);
  a->length = static_cast<int64_t>(v.size());
  std::vector<int32_t> offsets{0};
  std::string data;
  for (const auto& s : v) {
    data += s;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers = {Buffer(), Buffer::Copy(offsets.data(), offsets.size() * 4), Buffer::Copy(data)};
  return a;
}

RecordBatch Batch(std::vector<ArrayPtr> cols) {
  auto s = std::make_shared<Schema>();
  for (size_t i = 0; i < cols.size(); ++i) s->fields.push_back(Field{"c" + std::to_string(i), cols[i]->type});
  RecordBatch b;
  b.schema = s;
  b.num_rows = cols[0]->length;
  b.columns = std::move(cols);
  return b;
}

std::string Fp(const RecordBatch& b, std::vector<uint64_t> ids) {
  Fingerprinter f;
  EXPECT_TRUE(f.Add(b, ids).ok());
  return f.ToString();
}

// An independent FNV-1a over an explicitly built byte stream.
struct Stream {
  std::string bytes;
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(v >> (8 * i)));
  }
  void U8(uint8_t v) { bytes.push_back(static_cast<char>(v)); }
  std::string Hash() const {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : bytes) {
      h ^= c;
      h *= 0x100000001b3ULL;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
};

TEST(Fingerprint, MatchesTheDocumentedByteStream) {
  RecordBatch b = Batch({Fixed<int32_t>(MakeType(TypeId::kInt32), {7, std::nullopt}), Strings({"ab", ""})});
  Stream s;
  s.U64(10);           // row id
  s.U8(1);             // c0 valid
  s.U64(7);            // int32 7 as i64
  s.U8(1);             // c1 valid
  s.U64(2);            // length
  s.bytes += "ab";
  s.U64(11);
  s.U8(0);             // c0 null
  s.U8(1);
  s.U64(0);
  s.U64(2);            // row count
  EXPECT_EQ(Fp(b, {10, 11}), s.Hash());
  Fingerprinter empty;
  Stream none;
  none.U64(0);
  EXPECT_EQ(empty.ToString(), none.Hash());
}

TEST(Fingerprint, SensitiveToWhatMatters) {
  auto i64 = MakeType(TypeId::kInt64);
  RecordBatch base = Batch({Fixed<int64_t>(i64, {1, 2, 3})});
  std::string fp = Fp(base, {0, 1, 2});
  EXPECT_NE(fp, Fp(Batch({Fixed<int64_t>(i64, {1, 3, 2})}), {0, 1, 2}));              // order/values
  EXPECT_NE(fp, Fp(base, {0, 1, 3}));                                                  // row ids
  EXPECT_NE(fp, Fp(Batch({Fixed<int64_t>(i64, {1, std::nullopt, 3})}), {0, 1, 2}));   // null position
  EXPECT_NE(Fp(Batch({Fixed<int64_t>(i64, {0, std::nullopt})}), {0, 1}),
            Fp(Batch({Fixed<int64_t>(i64, {std::nullopt, 0})}), {0, 1}));
  // Integer width and array offsets do not matter; batch boundaries do not either.
  EXPECT_EQ(fp, Fp(Batch({Fixed<int32_t>(MakeType(TypeId::kInt32), {1, 2, 3})}), {0, 1, 2}));
  RecordBatch wide = Batch({Fixed<int64_t>(i64, {9, 1, 2, 3, 9})});
  RecordBatch sliced = base;
  sliced.columns[0] = SliceArray(wide.columns[0], 1, 3);
  EXPECT_EQ(fp, Fp(sliced, {0, 1, 2}));
  Fingerprinter split;
  RecordBatch first = base, rest = base;
  first.num_rows = 1;
  first.columns[0] = SliceArray(base.columns[0], 0, 1);
  rest.num_rows = 2;
  rest.columns[0] = SliceArray(base.columns[0], 1, 2);
  uint64_t ids0[] = {0}, ids1[] = {1, 2};
  ASSERT_TRUE(split.Add(first, ids0).ok());
  ASSERT_TRUE(split.Add(rest, ids1).ok());
  EXPECT_EQ(split.ToString(), fp);
  // A row-id count that does not match is an error.
  Fingerprinter bad;
  EXPECT_FALSE(bad.Add(base, std::vector<uint64_t>{0}).ok());
}

TEST(Fingerprint, NestedValues) {
  // list<int64>: [[1, 2], [], null]
  auto item = Fixed<int64_t>(MakeType(TypeId::kInt64), {1, 2});
  auto list = std::make_shared<ArrayData>();
  list->type = MakeList(Field{"item", MakeType(TypeId::kInt64), true});
  list->length = 3;
  int32_t offs[] = {0, 2, 2, 2};
  uint8_t valid = 0b011;
  list->buffers = {Buffer::Copy(&valid, 1), Buffer::Copy(offs, sizeof offs)};
  list->children = {item};
  Stream s;
  s.U64(0); s.U8(1); s.U64(2); s.U8(1); s.U64(1); s.U8(1); s.U64(2);
  s.U64(1); s.U8(1); s.U64(0);
  s.U64(2); s.U8(0);
  s.U64(3);
  EXPECT_EQ(Fp(Batch({list}), {0, 1, 2}), s.Hash());
}

}  // namespace
}  // namespace rap::read
