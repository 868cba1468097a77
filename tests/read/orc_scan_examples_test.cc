// The Apache ORC example files through the scan path (issue 31): each scans to the rows of the
// whole-file ORC reader with one read range per stripe; malformed and truncated files give errors
// naming the file. Apart from orc_scan_test.cc (prefetch and warmup settings, labelled concurrent)
// so that the ThreadSanitizer suite does not re-read every example file.
#include <gtest/gtest.h>

#include <filesystem>

#include "read/orc_scan_testing.h"

namespace rap::read {
namespace {

using namespace orc_scan_testing;  // NOLINT(build/namespaces)

TEST(OrcScanTest, ExamplesReadLikeTheWholeFileReader) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(Examples())) {
    const std::string path = e.path().string();
    if (!IsOrcPath(path) || !e.is_regular_file()) continue;
    SCOPED_TRACE(path);
    auto whole = orc::OrcReader::Open(path, Buffer::FromString(rap::testing::ReadFileToString(path)));
    if (!whole.ok()) continue;
    auto schema = (*whole)->schema();
    auto all = (*whole)->ReadAll();
    if (!schema.ok() || !all.ok()) {
      // What the whole-file reader refuses, the scan refuses too (with the file's name).
      auto r = Scan(Examples(), {e.path().filename().string()}, ScanOptions{});
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.status().message().find(e.path().filename().string()), std::string::npos) << r.status().ToString();
      continue;
    }
    ++files;
    const std::string want = WholeFingerprint({*all});
    ScanOptions o;
    auto r = Scan(Examples(), {e.path().filename().string()}, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->fingerprint, want);
    EXPECT_EQ(r->stats.row_groups, static_cast<int64_t>((*whole)->num_stripes()));  // a range per stripe
  }
  EXPECT_GE(files, 20);
}

TEST(OrcScanTest, MalformedFilesNameTheFile) {
  for (const auto& e : std::filesystem::directory_iterator(Examples() + "/corrupt")) {
    SCOPED_TRACE(e.path().string());
    auto r = Scan(Examples() + "/corrupt", {e.path().filename().string()}, ScanOptions{});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(e.path().filename().string()), std::string::npos) << r.status().ToString();
  }
  // Truncations: never a crash, an error naming the file.
  rap::testing::TempDir dir;
  const std::string bytes = rap::testing::ReadFileToString(Examples() + "/TestOrcFile.testSeek.orc");
  for (size_t cut : {size_t{3}, size_t{100}, bytes.size() / 2, bytes.size() - 10}) {
    const std::string path = dir.Join("cut" + std::to_string(cut) + ".orc");
    rap::testing::WriteStringToFile(path, bytes.substr(0, cut));
    auto r = Scan(dir.path(), {"cut" + std::to_string(cut) + ".orc"}, ScanOptions{});
    ASSERT_FALSE(r.ok()) << cut;
    EXPECT_NE(r.status().message().find("cut" + std::to_string(cut) + ".orc"), std::string::npos)
        << r.status().ToString();
  }
}

}  // namespace
}  // namespace rap::read
