// The special and malformed Apache ORC example files (../shared/orc/README.md "Other upstream
// expectations"), truncations of real files, and user metadata.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rap/orc/reader.h"

#include "orc/orc_json.h"
#include "testing/paths.h"

namespace rap::orc {
namespace {

std::string Example(const std::string& name) { return rap::testing::SharedDir() + "/orc/examples/" + name; }

Result<std::unique_ptr<OrcReader>> Open(const std::string& name) {
  return OrcReader::Open(name, Buffer::FromString(rap::testing::ReadFileToString(Example(name))));
}

// Opens and reads every stripe; the first error.
Status ReadEverything(const std::string& name, const Buffer& bytes) {
  RAP_ASSIGN_OR_RETURN(auto reader, OrcReader::Open(name, bytes));
  RAP_ASSIGN_OR_RETURN(auto batches, reader->ReadAll());
  return Status::OK();
}

void ExpectCorrupt(const std::string& name, const std::string& needle) {
  const Status st = ReadEverything(name, Buffer::FromString(rap::testing::ReadFileToString(Example(name))));
  ASSERT_FALSE(st.ok()) << name;
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find(name), std::string::npos) << "the message names the file: " << st.ToString();
}

TEST(OrcFiles, CorruptExamplesGiveCorrupt) {
  ExpectCorrupt("corrupt/missing_length_stream_in_string_dict.orc",
                "LENGTH stream not found in StringDictionaryColumn");
  ExpectCorrupt("corrupt/missing_blob_stream_in_string_dict.orc",
                "DICTIONARY_DATA stream not found in StringDictionaryColumn");
  ExpectCorrupt("corrupt/negative_dict_entry_lengths.orc", "negative dictionary length");
  // The stripe footer's compressed chunk is cut inside a stream entry (its column encodings are gone).
  ExpectCorrupt("corrupt/stripe_footer_bad_column_encodings.orc", "stripe 0 footer at offset 336");
}

TEST(OrcFiles, ZeroByteFile) { ExpectCorrupt("zero.orc", "0 bytes, too small"); }

TEST(OrcFiles, NotOrc) {
  const Status st = ReadEverything("x.orc", Buffer::Copy(std::string_view("PAR1xxxxxxxxPAR1")));
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt)) << st.ToString();
  EXPECT_NE(st.message().find("ORC magic"), std::string::npos) << st.ToString();
}

TEST(OrcFiles, EncryptedIsNotSupported) {
  for (const char* f : {"encrypted/sample1.orc", "encrypted/sample2.orc"}) {
    auto r = Open(f);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().Is(StatusCode::kNotSupported)) << r.status().ToString();
    EXPECT_NE(r.status().message().find("encryption"), std::string::npos);
  }
}

TEST(OrcFiles, UnionIsRefusedClearly) {
  auto r = Open("TestOrcFile.testUnionAndTimestamp.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto s = (*r)->schema();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.status().Is(StatusCode::kNotSupported));
  EXPECT_NE(s.status().message().find("uniontype<int,string>"), std::string::npos) << s.status().ToString();
  auto all = (*r)->ReadStripe(0);
  ASSERT_FALSE(all.ok());
  EXPECT_TRUE(all.status().Is(StatusCode::kNotSupported)) << all.status().ToString();
  // The other columns are read, with the values orc-contents prints (first rows of the expected file).
  auto b = (*r)->ReadStripe(0, {0, 2});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(testing::OrcJson(*b->columns[0], 1), "\"2000-03-20 12:00:00.123456789\"");
  EXPECT_EQ(testing::OrcJson(*b->columns[1], 1), "-5643.234000000000000000");
  EXPECT_EQ(testing::OrcJson(*b->columns[0], 2), "null");
  EXPECT_EQ(testing::OrcJson(*b->columns[1], 5), "10000000000000000000.000000000000000000");
}

TEST(OrcFiles, UnknownAndMissingVersionsOpen) {
  auto v = Open("version1999.orc");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)->tail().VersionString(), "19.99");
  EXPECT_EQ((*v)->tail().num_rows, 0u);
  auto n = Open("orc_no_format.orc");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ((*n)->tail().VersionString(), "");
  auto batches = (*n)->ReadAll();
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  int64_t rows = 0;
  for (const auto& b : *batches) rows += b.num_rows;
  EXPECT_EQ(rows, 5);
}

TEST(OrcFiles, EmptyFile) {
  auto r = Open("TestOrcFile.emptyFile.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->num_stripes(), 0u);
  auto s = (*r)->schema();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->fields.size(), 12u);
}

TEST(OrcFiles, WithoutCompressionBlockSize) {
  auto r = Open("TestOrcFile.testWithoutCompressionBlockSize.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE((*r)->tail().has_compression_block_size);
  EXPECT_EQ((*r)->tail().compression, Compression::kSnappy);
  auto b = (*r)->ReadAll();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].num_rows, 100);
}

TEST(OrcFiles, ZstdFile) {
  auto r = Open("TestVectorOrcFile.testZstd.0.12.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->tail().compression, Compression::kZstd);
  auto b = (*r)->ReadAll();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].num_rows, 10000);
  // Same generator as testLz4/testLzo (x: random longs, y: row / 1000 ... ): y is within int range.
  for (const auto& col : (*b)[0].columns) EXPECT_TRUE(ValidateArray(*col).ok());
}

TEST(OrcFiles, UserMetadata) {
  auto r = Open("TestOrcFile.metaData.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::map<std::string, std::string> m((*r)->tail().user_metadata.begin(), (*r)->tail().user_metadata.end());
  EXPECT_EQ(m["my.meta"], std::string("\x01\x02\x03\x04\x05\x06\x07\xff\xfe\x7f\x80", 11));
  EXPECT_EQ(m["clobber"], std::string("\x05\x07\x0b\x0d\x11\x13", 6));
  EXPECT_EQ(m.size(), 3u);
}

TEST(OrcFiles, Decimal64V2) {
  auto r = Open("decimal64_v2.orc");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->tail().VersionString(), "UNSTABLE-PRE-2.0");
  auto b = (*r)->ReadAll();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::ifstream in(rap::testing::SharedDir() + "/orc/expected_extra/decimal64_v2.orc.jsonl");
  std::string line;
  int64_t row = 0;
  // Expected lines quote the decimals and drop trailing fraction zeros ("63351.7").
  auto trim = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  };
  ASSERT_EQ(b->size(), 1u);
  const RecordBatch& batch = (*b)[0];
  while (std::getline(in, line)) {
    ASSERT_LT(row, batch.num_rows);
    std::string got = "{\"a\": " + testing::OrcJson(*batch.columns[0], row);
    for (size_t c = 1; c < batch.columns.size(); ++c) {
      got += ", \"" + batch.schema->fields[c].name + "\": \"" + trim(testing::OrcJson(*batch.columns[c], row)) + "\"";
    }
    got += "}";
    EXPECT_EQ(got, line) << "row " << row;
    ++row;
  }
  EXPECT_EQ(row, 10);
}

// A footer whose type tree nests deeper than 256 levels is refused before anything walks it.
TEST(OrcFiles, DeepTypeTreeIsRefused) {
  // Footer: types 0..299, each a list of the next (the last an int); no stripes, 0 rows.
  std::string footer;
  auto varint = [](std::string* out, uint64_t v) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  };
  for (uint32_t id = 0; id < 300; ++id) {
    std::string type;
    type.push_back(0x08);  // kind
    varint(&type, id + 1 < 300 ? 10 : 3);
    if (id + 1 < 300) {
      type.push_back(0x12);  // subtypes, packed
      std::string packed;
      varint(&packed, id + 1);
      varint(&type, packed.size());
      type += packed;
    }
    footer.push_back(0x22);  // types = 4
    varint(&footer, type.size());
    footer += type;
  }
  std::string ps;
  ps.push_back(0x08);  // footerLength
  varint(&ps, footer.size());
  ps.push_back(0x10);  // compression NONE
  ps.push_back(0x00);
  const std::string file = "ORC" + footer + ps + std::string(1, static_cast<char>(ps.size()));
  const Status st = ReadEverything("deep.orc", Buffer::Copy(file));
  EXPECT_TRUE(st.Is(StatusCode::kNotSupported)) << st.ToString();
  EXPECT_NE(st.message().find("nested more than 256 levels"), std::string::npos) << st.ToString();
}

// Every example file reads completely, except those that must fail (and say why).
TEST(OrcFiles, EveryExampleReadsOrFailsClearly) {
  const std::map<std::string, StatusCode> expected_failures = {
      {"zero.orc", StatusCode::kCorrupt},
      {"corrupt/missing_blob_stream_in_string_dict.orc", StatusCode::kCorrupt},
      {"corrupt/missing_length_stream_in_string_dict.orc", StatusCode::kCorrupt},
      {"corrupt/negative_dict_entry_lengths.orc", StatusCode::kCorrupt},
      {"corrupt/stripe_footer_bad_column_encodings.orc", StatusCode::kCorrupt},
      {"encrypted/sample1.orc", StatusCode::kNotSupported},
      {"encrypted/sample2.orc", StatusCode::kNotSupported},
      {"TestOrcFile.testUnionAndTimestamp.orc", StatusCode::kNotSupported},
  };
  const std::string root = rap::testing::SharedDir() + "/orc/examples/";
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".orc") continue;
    const std::string name = e.path().string().substr(root.size());
    ++files;
    const Status st = ReadEverything(name, Buffer::FromString(rap::testing::ReadFileToString(e.path().string())));
    auto it = expected_failures.find(name);
    if (it == expected_failures.end()) {
      EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
    } else {
      EXPECT_EQ(st.code(), it->second) << name << ": " << st.ToString();
    }
  }
  EXPECT_GE(files, 45);
}

// Every prefix and a sample of single-byte corruptions of real files give an error or a result,
// never a crash (the sanitizer builds check memory safety).
TEST(OrcFiles, TruncationsAndFlips) {
  for (const char* f : {"TestOrcFile.test1.orc", "TestVectorOrcFile.testLzo.orc", "TestOrcFile.testSnappy.orc",
                        "orc-file-11-format.orc", "TestVectorOrcFile.testLz4.orc", "decimal64_v2.orc"}) {
    const std::string bytes = rap::testing::ReadFileToString(Example(f));
    ASSERT_FALSE(bytes.empty()) << f;
    const size_t step = std::max<size_t>(1, bytes.size() / 400);
    for (size_t len = 0; len < bytes.size(); len += step) {
      const Status st = ReadEverything(f, Buffer::Copy(bytes.data(), len));
      EXPECT_FALSE(st.ok()) << f << " cut to " << len << " bytes was read";
    }
    for (size_t at = 0; at < bytes.size(); at += step) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
      (void)ReadEverything(f, Buffer::Copy(flipped));
    }
  }
}

}  // namespace
}  // namespace rap::orc
