#include "testing/paths.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rap::testing {
namespace fs = std::filesystem;

static std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string SourceDir() { return Env("RAP_SOURCE_DIR", RAP_SOURCE_DIR_DEFAULT); }
std::string BinaryDir() { return Env("RAP_BINARY_DIR", RAP_BINARY_DIR_DEFAULT); }
std::string SharedDir() { return Env("RAP_SHARED_DIR", SourceDir() + "/../shared"); }
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
