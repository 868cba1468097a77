// Helpers of the ORC scan tests (orc_scan_test.cc, orc_scan_examples_test.cc): the Apache ORC
// example files, whole-file reads by the ORC module and fingerprinted scans of a folder's files.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rap/io/object_store.h"
#include "rap/orc/reader.h"
#include "rap/read/fingerprint.h"
#include "rap/read/orc_file_reader.h"
#include "rap/read/scanner.h"
#include "testing/paths.h"

namespace rap::read::orc_scan_testing {

inline std::string Examples() { return rap::testing::SharedDir() + "/orc/examples"; }

inline std::unique_ptr<orc::OrcReader> OpenWhole(const std::string& path) {
  auto r = orc::OrcReader::Open(path, Buffer::FromString(rap::testing::ReadFileToString(path)));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(*r) : nullptr;
}

// The fingerprint of files read whole by the ORC module (row ids as a scan numbers them).
inline std::string WholeFingerprint(const std::vector<std::vector<RecordBatch>>& files) {
  Fingerprinter fp;
  for (size_t f = 0; f < files.size(); ++f) {
    uint64_t row = 0;
    for (const RecordBatch& b : files[f]) {
      std::vector<uint64_t> ids;
      for (int64_t i = 0; i < b.num_rows; ++i) ids.push_back((uint64_t{f} << 40) + row++);
      EXPECT_TRUE(fp.Add(b, ids).ok());
    }
  }
  return fp.ToString();
}

struct ScanResult {
  std::string fingerprint;
  ScanStats stats;
  int64_t max_batch_rows = 0;
};

// Scans the files `names` of the folder `dir`, in that order.
inline Result<ScanResult> Scan(const std::string& dir, const std::vector<std::string>& names, ScanOptions o) {
  ScanSource src;
  RAP_ASSIGN_OR_RETURN(io::ResolvedUrl root, io::OpenUrl(dir));
  src.store = root.store;
  for (const std::string& n : names) {
    ScanFile f;
    f.path = io::JoinPath(root.path, n);
    src.files.push_back(f);
  }
  RAP_ASSIGN_OR_RETURN(auto scanner, Scanner::Make(std::move(src), std::move(o)));
  Fingerprinter fp;
  ScanResult out;
  while (true) {
    RAP_ASSIGN_OR_RETURN(auto b, scanner->Next());
    if (!b) break;
    out.max_batch_rows = std::max(out.max_batch_rows, b->batch.num_rows);
    RAP_RETURN_NOT_OK(fp.Add(b->batch, b->row_ids));
  }
  out.fingerprint = fp.ToString();
  out.stats = scanner->stats();
  return out;
}

}  // namespace rap::read::orc_scan_testing
