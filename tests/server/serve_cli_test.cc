// rap-test-labels: network
// The `rap serve` command as a process: config file plus flags, --port-file, SIGTERM ends it
// cleanly (exit 0) after the access log recorded the requests, and a bad table fails at start.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "testing/cli_run.h"
#include "testing/curl_client.h"
#include "testing/paths.h"
#include "testing/scan_table.h"

namespace rap::server {
namespace {

using rap::testing::CurlClient;

TEST(ServeCli, ConfigFileSigtermAndAccessLog) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  rap::testing::LocalScanTable table;
  ASSERT_TRUE(table.Write().ok());
  rap::testing::TempDir dir;
  const std::string config = dir.Join("serve.json"), port_file = dir.Join("port"), log = dir.Join("access.log");
  rap::testing::WriteStringToFile(config, R"({"tables": {"events": ")" + table.root() +
                                              R"("}, "limits": {"max_keys": 10}, "refresh_interval_s": 0})");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string bin = rap::testing::RapBinary();
    execl(bin.c_str(), bin.c_str(), "serve", "--config", config.c_str(), "--listen", "127.0.0.1:0", "--port-file",
          port_file.c_str(), "--access-log", log.c_str(), "--table", ("other=" + table.root()).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int port = 0;
  for (int i = 0; i < 400 && port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (std::filesystem::exists(port_file)) port = std::atoi(rap::testing::ReadFileToString(port_file).c_str());
  }
  ASSERT_GT(port, 0);
  CurlClient c("http://127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(c.Get("/readyz").status, 200);
  auto t = c.Get("/v1/tables");
  EXPECT_NE(t.body.find("\"events\""), std::string::npos);
  EXPECT_NE(t.body.find("\"other\""), std::string::npos);
  EXPECT_EQ(c.Post("/v1/tables/events/scan?secret=hunter2", R"({"limit": 5})").status, 200);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
  const std::string access = rap::testing::ReadFileToString(log);
  EXPECT_NE(access.find("\"POST /v1/tables/events/scan\" 200"), std::string::npos) << access;
  EXPECT_EQ(access.find("hunter2"), std::string::npos) << "the query string reached the access log";
}

TEST(ServeCli, UnopenableTableFailsAtStart) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  auto r = rap::testing::RunCli("serve --table t=/nonexistent/dir/x.parquet --listen 127.0.0.1:0");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("table 't'"), std::string::npos) << r.out;
}

// The --table flag's Iceberg settings: a snapshot the table lacks, a snapshot of a table of another
// format and a malformed one stop the server at start, naming the problem.
TEST(ServeCli, IcebergTableSettingsAreCheckedAtStart) {
  ASSERT_TRUE(rap::testing::RapBinaryExists());
  const std::string ice = rap::testing::SharedDir() + "/iceberg-tables/impala_v2_pos_deletes_parquet";
  auto missing = rap::testing::RunCli("serve --table 't=" + ice + ",snapshot=12345' --listen 127.0.0.1:0");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.out.find("no snapshot 12345"), std::string::npos) << missing.out;
  auto folder = rap::testing::RunCli("serve --table 't=" + ice + "/data,as-of=2026-02-12' --listen 127.0.0.1:0");
  EXPECT_NE(folder.exit_code, 0);
  EXPECT_NE(folder.out.find("this is a directory table"), std::string::npos) << folder.out;
  auto malformed = rap::testing::RunCli("serve --table 't=" + ice + ",snapshot=latest' --listen 127.0.0.1:0");
  EXPECT_NE(malformed.exit_code, 0);
  EXPECT_NE(malformed.out.find("'latest' is not a snapshot id"), std::string::npos) << malformed.out;
}

}  // namespace
}  // namespace rap::server
