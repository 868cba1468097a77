#include "testing/paths.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifdef RAP_TESTING_GTEST  // the test helper library; benchmarks compile this file without GoogleTest
#include <gtest/gtest.h>
#endif

namespace rap::testing {
namespace fs = std::filesystem;

static std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string SourceDir() { return Env("RAP_SOURCE_DIR", RAP_SOURCE_DIR_DEFAULT); }
std::string BinaryDir() { return Env("RAP_BINARY_DIR", RAP_BINARY_DIR_DEFAULT); }
std::string SharedDir() {
  static const std::string dir = Env("RAP_SHARED_DIR", SourceDir() + "/../shared");
  static const bool present = fs::is_directory(dir + "/parquet-testing/data") && fs::is_directory(dir + "/delta-tables");
  if (!present) {
    const std::string what = "the shared test data is missing: expected " + dir +
                             " with parquet-testing/ and delta-tables/ (a checkout's ../shared); set RAP_SHARED_DIR "
                             "to where it is";
    static bool told = false;
    if (!told) std::fprintf(stderr, "rap tests: %s\n", what.c_str());
    told = true;
#ifdef RAP_TESTING_GTEST
    // One failure per test that needs the data (the test then stops at its first ASSERT on it).
    static const ::testing::TestInfo* failed_in = nullptr;
    const ::testing::TestInfo* current = ::testing::UnitTest::GetInstance()->current_test_info();
    if (current != failed_in || current == nullptr) ADD_FAILURE() << what;
    failed_in = current;
#endif
  }
  return dir;
}
std::string ParquetTestingData() { return SharedDir() + "/parquet-testing/data"; }
std::string ParquetTestingBad() { return SharedDir() + "/parquet-testing/bad_data"; }

TempDir::TempDir() {
  std::string base = Env("TMPDIR", "/tmp");
  std::string templ = base + "/rap-test-XXXXXX";
  if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed under " + base);
  path_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteStringToFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace rap::testing
