// rap-test-labels: network
// The write column of the fault matrix (docs/reliability.md): `rap convert INPUT s3://bkt/out/...`
// against rap-netsim (which stores PUTs atomically: object_put.h) under every fault it injects on the
// upload. Transient faults (reset mid-body, 500, 503, 429 and SlowDown with Retry-After, a truncated
// exchange, a wrong Content-Range) end in success with exactly the bytes a local convert writes;
// persistent ones (503 on every attempt, a reset on every attempt, a stall past the deadline) end in
// an error that names the object, and no object — partial or whole — is visible afterwards.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>

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
  }

  // One cell: a fresh rap-netsim with `fault`, `rap convert` to s3://bkt/out/<name>.
  rap::testing::CliRun Convert(const std::string& fault, const std::string& name) {
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
    auto r = rap::testing::RunCli(fmt::format("convert --quiet '{}' s3://bkt/out/{}", input_, name));
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
  double seconds_ = 0;
  int cell_ = 0;
};

TEST_F(ConvertOutputFaults, TransientFaultsStoreTheRightObject) {
  for (const char* f : {"", "kind=reset&count=2&path=/bkt/out/", "kind=500&count=2&path=/bkt/out/",
                        "kind=503&count=2&path=/bkt/out/", "kind=429&count=1&retry_after=1&path=/bkt/out/",
                        "kind=503&count=1&retry_after=1", "kind=truncate&count=2&path=/bkt/out/",
                        "kind=bad_range&count=1&path=/bkt/out/"}) {
    ExpectStored(f);
  }
}

TEST_F(ConvertOutputFaults, PersistentFaultsNameTheObjectAndStoreNothing) {
  for (const char* f : {"kind=503&count=-1&path=/bkt/out/", "kind=reset&count=-1&path=/bkt/out/",
                        "kind=stall&seconds=30&count=-1&path=/bkt/out/"}) {
    ExpectFailed(f);
  }
}

}  // namespace
}  // namespace rap
