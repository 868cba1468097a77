// The Apache ORC example files (../shared/orc/examples, see its README.md): metadata against
// EXPECTED_METADATA.tsv and every row against the expected JSON lines of orc-contents.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "rap/orc/reader.h"

#include "orc/orc_json.h"
#include "testing/paths.h"

namespace rap::orc {
namespace {

std::string OrcDir() { return rap::testing::SharedDir() + "/orc"; }

Buffer ReadFile(const std::string& path) { return Buffer::FromString(rap::testing::ReadFileToString(path)); }

std::vector<std::string> GunzipLines(const std::string& path) {
  std::vector<std::string> lines;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return lines;
  std::string all;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) all.append(buf, static_cast<size_t>(n));
  gzclose(f);
  std::istringstream in(all);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

struct Expected {
  std::string file, rows_file, type, version, software, rows, content_length, stripes, compression, block_size, stride;
};

std::vector<Expected> LoadExpected() {
  std::vector<Expected> out;
  std::ifstream in(OrcDir() + "/EXPECTED_METADATA.tsv");
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) c.push_back(cell);
    if (c.size() < 11) continue;
    out.push_back(Expected{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]});
  }
  return out;
}

class OrcExamples : public ::testing::TestWithParam<Expected> {};

TEST_P(OrcExamples, MetadataAndRows) {
  const Expected& e = GetParam();
  const std::string path = OrcDir() + "/examples/" + e.file;
  std::ifstream probe(path);
  if (!probe) GTEST_SKIP() << e.file << " is not in the snapshot (README: files of 4 MiB or more were left out)";
  auto reader = OrcReader::Open(e.file, ReadFile(path));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const FileTail& t = (*reader)->tail();
  EXPECT_EQ(t.types.ToString(), e.type);
  EXPECT_EQ(t.VersionString(), e.version);
  EXPECT_EQ(std::to_string(t.num_rows), e.rows);
  EXPECT_EQ(std::to_string(t.content_length), e.content_length);
  EXPECT_EQ(std::to_string(t.stripes.size()), e.stripes);
  EXPECT_EQ(CompressionName(t.compression), e.compression);
  EXPECT_EQ(std::to_string(t.compression_block_size), e.block_size);
  EXPECT_EQ(std::to_string(t.row_index_stride), e.stride);

  const std::string rows_path = OrcDir() + "/examples/expected/" + e.rows_file;
  std::ifstream rprobe(rows_path);
  if (!rprobe) GTEST_SKIP() << e.rows_file << " is not in the snapshot";
  const std::vector<std::string> expected = GunzipLines(rows_path);
  ASSERT_EQ(expected.size(), t.num_rows);
  if (t.types.ToString().find("uniontype") != std::string::npos) {
    auto batch = (*reader)->ReadStripe(0);
    ASSERT_FALSE(batch.ok());
    EXPECT_TRUE(batch.status().Is(StatusCode::kNotSupported)) << batch.status().ToString();
    return;
  }
  const bool struct_root = t.types.nodes[0].kind == TypeKind::kStruct;
  size_t row = 0, mismatches = 0;
  for (size_t s = 0; s < (*reader)->num_stripes(); ++s) {
    auto batch = (*reader)->ReadStripe(s);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_EQ(static_cast<uint64_t>(batch->num_rows), t.stripes[s].num_rows);
    for (const ArrayPtr& col : batch->columns) {
      ASSERT_EQ(col->length, batch->num_rows);
      ASSERT_TRUE(ValidateArray(*col).ok()) << ValidateArray(*col).ToString();
    }
    for (int64_t r = 0; r < batch->num_rows; ++r, ++row) {
      const std::string got = testing::OrcRowJson(*batch, r, struct_root);
      if (got != expected[row] && ++mismatches <= 3) {
        ADD_FAILURE() << e.file << " row " << row << "\n  got:      " << got << "\n  expected: " << expected[row];
      }
    }
  }
  EXPECT_EQ(row, expected.size());
  EXPECT_EQ(mismatches, 0u) << e.file;
}

std::string Name(const ::testing::TestParamInfo<Expected>& info) {
  std::string n = info.param.file;
  for (char& c : n) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Apache, OrcExamples, ::testing::ValuesIn(LoadExpected()), Name);

}  // namespace
}  // namespace rap::orc
