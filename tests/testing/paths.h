// Test helpers: locations of shared/ material and scratch directories.
#pragma once

#include <string>

namespace rap::testing {

// ../shared relative to the source tree (or $RAP_SHARED_DIR). When it lacks parquet-testing/ and
// delta-tables/, says so once on stderr (naming the path and RAP_SHARED_DIR) and fails the calling test.
std::string SharedDir();
std::string ParquetTestingData();  // SharedDir()/parquet-testing/data
std::string ParquetTestingBad();   // SharedDir()/parquet-testing/bad_data
std::string SourceDir();           // the repository root
std::string BinaryDir();           // the CMake build directory

// A fresh directory under $TMPDIR (or /tmp), removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadFileToString(const std::string& path);
void WriteStringToFile(const std::string& path, const std::string& data);

}  // namespace rap::testing
