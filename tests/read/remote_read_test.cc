// rap-test-labels: network
// The reader over every object store: parquet-testing files read through file://, http:// (nginx
// serving the directory) and s3:// (Swift s3api, files uploaded with the S3 store) give identical
// rows — same fingerprint, whole files and row selections. This cross-layer test lives under
// tests/read because io sits below read and tests/io cannot use the FileReader.
#include <gtest/gtest.h>

#include <numeric>

#include "rap/io/object_store.h"
#include "rap/io/s3_store.h"
#include "rap/read/file_reader.h"
#include "rap/read/fingerprint.h"
#include "testing/nginx_fixture.h"
#include "testing/paths.h"
#include "testing/swift_fixture.h"

namespace rap::read {
namespace {

using rap::testing::SwiftEnvironment;

::testing::Environment* const kSwift = ::testing::AddGlobalTestEnvironment(new SwiftEnvironment());

const char* kFiles[] = {"alltypes_plain.parquet", "alltypes_tiny_pages_plain.parquet", "nested_lists.snappy.parquet",
                        "datapage_v2.snappy.parquet", "nulls.snappy.parquet", "delta_byte_array.parquet"};

// The fingerprint of `selection` of the file, or the error.
Result<std::string> Fingerprint(io::ObjectStorePtr store, const std::string& path,
                                std::optional<RowSelection> selection, int64_t* rows_out = nullptr) {
  FileReaderOptions opts;
  opts.use_metadata_cache = false;  // every store reads its own footer
  RAP_ASSIGN_OR_RETURN(auto reader, FileReader::Open(store, path, opts));
  RAP_ASSIGN_OR_RETURN(Projection all, reader->Project());
  RAP_ASSIGN_OR_RETURN(auto batches, reader->ReadAll(selection, all));
  Fingerprinter fp;
  uint64_t next = 0;
  for (const auto& b : batches) {
    std::vector<uint64_t> ids(static_cast<size_t>(b.num_rows));
    std::iota(ids.begin(), ids.end(), next);
    next += ids.size();
    RAP_RETURN_NOT_OK(fp.Add(b, ids));
  }
  if (rows_out) *rows_out = reader->num_rows();
  return fp.ToString() + "/" + std::to_string(fp.rows());
}

TEST(RemoteRead, SameRowsThroughEveryStore) {
  auto* swift = SwiftEnvironment::Get();
  if (!swift || !swift->ok()) GTEST_SKIP() << (swift ? swift->error() : "no Swift environment");
  rap::testing::NginxServer nginx(rap::testing::ParquetTestingData());
  if (!nginx.ok()) GTEST_SKIP() << nginx.error();

  auto s3 = io::MakeS3Store(SwiftEnvironment::kBucket, swift->s3_config());
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();

  for (const char* name : kFiles) {
    SCOPED_TRACE(name);
    std::string local = rap::testing::ParquetTestingData() + "/" + name;
    auto file = io::OpenUrl("file://" + local);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto http = io::OpenUrl(nginx.base_url() + "/" + name);
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    std::string key = std::string("parquet-testing/") + name;
    ASSERT_TRUE((*s3)->Put(key, Buffer::Copy(rap::testing::ReadFileToString(local))).ok());

    int64_t rows = 0;
    auto want = Fingerprint(file->store, file->path, std::nullopt, &rows);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto via_http = Fingerprint(http->store, http->path, std::nullopt);
    ASSERT_TRUE(via_http.ok()) << via_http.status().ToString();
    auto via_s3 = Fingerprint(*s3, key, std::nullopt);
    ASSERT_TRUE(via_s3.ok()) << via_s3.status().ToString();
    EXPECT_EQ(*via_http, *want);
    EXPECT_EQ(*via_s3, *want);

    // A row selection (page-level reads where there is an OffsetIndex) agrees as well.
    if (rows >= 4) {
      RowSelection sel = RowSelection::FromRanges({{1, 2}, {rows / 2, rows - 1}});
      auto sel_file = Fingerprint(file->store, file->path, sel);
      auto sel_http = Fingerprint(http->store, http->path, sel);
      auto sel_s3 = Fingerprint(*s3, key, sel);
      ASSERT_TRUE(sel_file.ok() && sel_http.ok() && sel_s3.ok());
      EXPECT_EQ(*sel_http, *sel_file);
      EXPECT_EQ(*sel_s3, *sel_file);
      EXPECT_NE(*sel_file, *want);
    }
  }
}

}  // namespace
}  // namespace rap::read
