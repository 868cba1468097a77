// Replays, through every fuzz target (tests/fuzz/*_fuzz.cc, compiled into this executable), the
// committed corpus (tests/fuzz/corpus/<target>/*) and every input that once crashed, leaked, hung or
// over-allocated (tests/fuzz/regressions/<target>/*, see docs/reliability.md). Each must now run to
// completion; under the ASan/UBSan suite any memory error fails the test as well.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"
#include "testing/paths.h"

namespace rap::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> InputsOf(const std::string& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FuzzReplay, EveryTargetIsRegistered) {
  // One registered body per tests/fuzz/*_fuzz.cc file.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(testing::SourceDir() + "/tests/fuzz")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 8 && name.ends_with("_fuzz.cc")) {
      ++files;
      EXPECT_TRUE(Registry().count(name.substr(0, name.size() - 8))) << name;
    }
  }
  EXPECT_EQ(Registry().size(), files);
  EXPECT_GE(files, 10u);
}

TEST(FuzzReplay, CorpusAndRegressions) {
  size_t replayed = 0;
  for (const auto& [name, body] : Registry()) {
    for (const char* kind : {"corpus", "regressions"}) {
      for (const fs::path& p : InputsOf(testing::SourceDir() + "/tests/fuzz/" + kind + "/" + name)) {
        SCOPED_TRACE(p.string());
        const std::string bytes = testing::ReadFileToString(p.string());
        EXPECT_EQ(body(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
        ++replayed;
      }
    }
    // The empty input and a single byte reach every target's shortest paths.
    const uint8_t one = 0xff;
    EXPECT_EQ(body(nullptr, 0), 0) << name;
    EXPECT_EQ(body(&one, 1), 0) << name;
  }
  EXPECT_GT(replayed, 0u);
}

}  // namespace
}  // namespace rap::fuzz
