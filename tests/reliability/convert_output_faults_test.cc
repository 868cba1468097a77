// rap-test-labels: network
// The write column of the fault matrix (docs/reliability.md): `rap convert INPUT s3://bkt/out/...`
// against rap-netsim (which stores PUTs atomically: object_put.h) under every fault it injects on the
// upload. Transient faults (reset mid-body, 500, 503, 429 and SlowDown with Retry-After, a truncated
// exchange, a wrong Content-Range, an answer lost after the store) end in success with exactly the bytes a local convert writes;
// persistent ones (503 on every attempt, a reset on every attempt, a stall past the deadline) end in
// an error that names the object, and no object — partial or whole — is visible afterwards.
// The rewrite column: `rap rewrite TABLE s3://bkt/rw/...` (a Delta table of Parquet files and its RAP
// index: many PUTs, the commit a conditional one) under the same faults: transient ones give the
// files a local rewrite writes, byte for byte; persistent ones an error naming the object and no
// object of the output visible.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "testing/cli_run.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap {
namespace {

namespace fs = std::filesystem;

class ConvertOutputFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "rap binary not built";
    root_ = dir_.Join("root");
    fs::create_directories(root_ + "/bkt/out");
    input_ = dir_.Join("in.csv");
    std::string csv = "id,name,score\n";
    for (int i = 0; i < 3000; ++i) csv += fmt::format("{},name-{},{}.5\n", i, i % 97, i % 1000);
    rap::testing::WriteStringToFile(input_, csv);
    const std::string local = dir_.Join("local.parquet");
    auto r = rap::testing::RunCli(fmt::format("convert --quiet '{}' '{}'", input_, local));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    want_ = rap::testing::ReadFileToString(local);
    ASSERT_GT(want_.size(), 10000u);
    fs::create_directories(dir_.Join("t"));
    fs::copy_file(local, dir_.Join("t/data.parquet"));
    r = rap::testing::RunCli(fmt::format("rewrite '{}' '{}' --key id", dir_.Join("t"), dir_.Join("rw")));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    want_rewrite_ = FilesUnder(dir_.Join("rw"));
    ASSERT_GE(want_rewrite_.size(), 4u);  // data file, commit, index manifest, fragment, ...
  }

  // The files under `dir` by relative path, the random token of fragment names masked; JSON files
  // (commit, manifest: they hold times and ETags) map to "" so only their presence is compared.
  static std::map<std::string, std::string> FilesUnder(const std::string& dir) {
    std::map<std::string, std::string> files;
    if (!fs::exists(dir)) return files;
    static const std::regex token("-[0-9a-f]{8}-");
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      const std::string rel = std::regex_replace(fs::relative(e.path(), dir).string(), token, "-TOKEN-");
      files[rel] = e.path().extension() == ".json" ? "" : rap::testing::ReadFileToString(e.path().string());
    }
    return files;
  }

  // One cell: a fresh rap-netsim with `fault`, `rap convert` to s3://bkt/out/<name>.
  rap::testing::CliRun Convert(const std::string& fault, const std::string& name) {
    return Cell(fault, fmt::format("convert --quiet '{}' s3://bkt/out/{}", input_, name));
  }

  // One cell: a fresh rap-netsim with `fault`, then the rap command `args`.
  rap::testing::CliRun Cell(const std::string& fault, const std::string& args) {
    rap::testing::NetsimOptions no;
    no.root = root_;
    auto server = rap::testing::NetsimServer::Start(no);
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    if (!server.ok()) return {};
    if (!fault.empty()) {
      EXPECT_TRUE((*server)->AddFault(fault).ok());
    }
    setenv("AWS_ENDPOINT_URL", (*server)->url().c_str(), 1);
    const auto start = std::chrono::steady_clock::now();
    auto r = rap::testing::RunCli(args);
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  // Nothing but complete objects under bkt/out: no temporary upload left visible.
  void ExpectNoPartialObjects() {
    for (const auto& e : fs::directory_iterator(root_ + "/bkt/out")) {
      const std::string n = e.path().filename().string();
      EXPECT_EQ(n.rfind(".netsim-put-", 0), std::string::npos) << n;
      if (fs::is_regular_file(e.path())) {
        EXPECT_EQ(rap::testing::ReadFileToString(e.path().string()), want_) << n;
      }
    }
  }

  void ExpectStored(const std::string& fault) {
    SCOPED_TRACE(fault);
    const std::string name = fmt::format("ok{}.parquet", cell_++);
    auto r = Convert(fault, name);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const std::string path = root_ + "/bkt/out/" + name;
    ASSERT_TRUE(fs::exists(path)) << r.out;
    EXPECT_EQ(rap::testing::ReadFileToString(path), want_);
    EXPECT_LT(seconds_, 60.0);  // a hang guard
    ExpectNoPartialObjects();
  }

  void ExpectFailed(const std::string& fault) {
    SCOPED_TRACE(fault);
    const std::string name = fmt::format("bad{}.parquet", cell_++);
    auto r = Convert(fault, name);
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("out/" + name), std::string::npos) << r.out;  // the error names the object
    std::cout << fault << " (" << seconds_ << " s): " << r.out;
    EXPECT_FALSE(fs::exists(root_ + "/bkt/out/" + name));
    EXPECT_LT(seconds_, 60.0);
    ExpectNoPartialObjects();
  }

  // `rap rewrite` of the local table to s3://bkt/rw/<name>.
  rap::testing::CliRun Rewrite(const std::string& fault, const std::string& name) {
    return Cell(fault, fmt::format("rewrite --quiet '{}' s3://bkt/rw/{} --key id", dir_.Join("t"), name));
  }

  void ExpectRewritten(const std::string& fault) {
    SCOPED_TRACE("rewrite under " + fault);
    const std::string name = fmt::format("ok{}", cell_++);
    auto r = Rewrite(fault, name);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(FilesUnder(root_ + "/bkt/rw/" + name), want_rewrite_);  // no temporary, nothing partial
    EXPECT_LT(seconds_, 60.0);
  }

  void ExpectRewriteFailed(const std::string& fault) {
    SCOPED_TRACE("rewrite under " + fault);
    const std::string name = fmt::format("bad{}", cell_++);
    auto r = Rewrite(fault, name);
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("rw/" + name + "/"), std::string::npos) << r.out;  // names the object
    std::cout << "rewrite " << fault << " (" << seconds_ << " s): " << r.out;
    EXPECT_EQ(FilesUnder(root_ + "/bkt/rw/" + name).size(), 0u);
    EXPECT_LT(seconds_, 60.0);
  }

  static void SetUpTestSuite() {
    setenv("RAP_HTTP_MAX_ATTEMPTS", "4", 1);
    setenv("RAP_HTTP_DEADLINE_S", "4", 1);
    setenv("RAP_HTTP_LOW_SPEED_TIME_S", "1", 1);
    setenv("AWS_ACCESS_KEY_ID", "netsim", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "netsim-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }
  void TearDown() override { unsetenv("AWS_ENDPOINT_URL"); }

  rap::testing::TempDir dir_;
  std::string root_, input_, want_;
  std::map<std::string, std::string> want_rewrite_;
  double seconds_ = 0;
  int cell_ = 0;
};

TEST_F(ConvertOutputFaults, TransientFaultsStoreTheRightObject) {
  for (const char* f : {"", "kind=reset&count=2&path=/bkt/out/", "kind=500&count=2&path=/bkt/out/",
                        "kind=503&count=2&path=/bkt/out/", "kind=429&count=1&retry_after=1&path=/bkt/out/",
                        "kind=503&count=1&retry_after=1", "kind=truncate&count=2&path=/bkt/out/",
                        "kind=bad_range&count=1&path=/bkt/out/", "kind=lost&count=1&path=/bkt/out/"}) {
    ExpectStored(f);
  }
}

TEST_F(ConvertOutputFaults, PersistentFaultsNameTheObjectAndStoreNothing) {
  for (const char* f : {"kind=503&count=-1&path=/bkt/out/", "kind=reset&count=-1&path=/bkt/out/",
                        "kind=stall&seconds=30&count=-1&path=/bkt/out/"}) {
    ExpectFailed(f);
  }
}

TEST_F(ConvertOutputFaults, RewriteUnderTransientFaultsWritesTheLocalFiles) {
  for (const char* f : {"", "kind=reset&count=2&path=/bkt/rw/", "kind=503&count=2&path=/bkt/rw/",
                        "kind=429&count=1&retry_after=1&path=/bkt/rw/", "kind=truncate&count=2&path=/bkt/rw/",
                        "kind=500&count=1&path=_delta_log",
                        // Lost answers (stored, then the connection reset): the conditional PUTs of the
                        // pending-write marker, the Delta commit and the index manifest are retried, meet
                        // their own object (412) and are recognised as their own; plain PUTs are redone.
                        "kind=lost&count=1&path=_rap_pending_write", "kind=lost&count=1&path=_delta_log/0",
                        "kind=lost&count=1&path=_manifest/0", "kind=lost&count=1&path=/part-00000.parquet"}) {
    ExpectRewritten(f);
  }
}

TEST_F(ConvertOutputFaults, RewriteUnderPersistentFaultsNamesTheObjectAndLeavesNothing) {
  // Every request of the output (the first is the index's version probe, a GET); the data file's
  // PUT; and the commit, after the data file and the index's fragments and schema files are stored:
  // the rewrite deletes what it wrote, so no object of the uncommitted table stays behind.
  for (const char* f : {"kind=503&count=-1&retry_after=0&path=/bkt/rw/", "kind=reset&count=-1&path=/part-00000.parquet",
                        "kind=503&count=-1&retry_after=0&path=_delta_log"}) {
    ExpectRewriteFailed(f);
  }
}

}  // namespace
}  // namespace rap
