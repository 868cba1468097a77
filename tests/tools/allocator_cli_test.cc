// The rap binary's allocator settings (rap/util/allocator.h): when it allocates through jemalloc, it
// runs with one arena (its `malloc_conf` in tools/main.cc), so a scan's per-file threads reuse the
// memory the previous file's threads freed; the environment's MALLOC_CONF still overrides it; and
// `rap serve`'s io threads and workers each take an arena of their own. The test binaries themselves
// use the C library's allocator, where UseOwnMallocArena does nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "rap/format/writer.h"
#include "rap/util/allocator.h"
#include "testing/arrays.h"
#include "testing/cli_run.h"
#include "testing/paths.h"

namespace {

using rap::testing::RapBinary;
using rap::testing::RunShell;

bool RapLinksJemalloc() { return RunShell("ldd " + RapBinary() + " 2>/dev/null").out.find("libjemalloc") != std::string::npos; }

// jemalloc's "Arenas: N" line of stats_print (the number of arenas at exit), or -1.
int ArenasAtExit(const std::string& stats) {
  const size_t at = stats.find("\nArenas: ");
  return at == std::string::npos ? -1 : std::stoi(stats.substr(at + 9));
}

class AllocatorCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rap::testing::RapBinaryExists()) GTEST_SKIP() << "the rap CLI is not built";
    if (!RapLinksJemalloc()) GTEST_SKIP() << "this rap binary uses the C library's allocator (no libjemalloc-dev)";
  }
};

TEST_F(AllocatorCli, RapBinaryRunsJemallocWithOneArena) {
  // jemalloc prints its options at exit with stats_print; the binary's own malloc_conf comes first.
  auto run = RunShell("MALLOC_CONF=stats_print:true " + RapBinary() + " --version 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("opt.narenas: 1\n"), std::string::npos) << run.out.substr(0, 2000);
  // The environment overrides the binary's setting.
  run = RunShell("MALLOC_CONF=stats_print:true,narenas:3 " + RapBinary() + " --version 2>&1");
  EXPECT_NE(run.out.find("opt.narenas: 3\n"), std::string::npos) << run.out.substr(0, 2000);
}

TEST_F(AllocatorCli, ServerThreadsTakeArenasOfTheirOwn) {
  using namespace rap;
  rap::testing::TempDir dir;
  {
    auto schema = std::make_shared<Schema>();
    schema->fields.push_back(Field{"k", MakeType(TypeId::kInt64)});
    RecordBatch batch;
    batch.schema = schema;
    batch.num_rows = 3;
    batch.columns.push_back(rap::testing::Fixed<int64_t>(MakeType(TypeId::kInt64), {1, 2, 3}));
    auto bytes = parquet::WriteParquetToString(schema, {batch});
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    std::ofstream(dir.Join("part-0.parquet"), std::ios::binary) << *bytes;
  }
  // Started, listening (its port file written), then stopped by SIGTERM: a graceful exit, where
  // jemalloc prints its statistics. 2 io threads and 3 workers: 5 arenas besides the shared one
  // (and jemalloc's own arena for huge blocks, when it made one).
  const std::string port_file = dir.Join("port");
  const std::string cmd = "MALLOC_CONF=stats_print:true " + RapBinary() + " serve --table t=" + dir.Join("") +
                          " --listen 127.0.0.1:0 --port-file " + port_file +
                          " --io-threads 2 --max-in-flight 3 > " + dir.Join("stats") + " 2>&1 & pid=$!; " +
                          "for i in $(seq 200); do [ -s " + port_file + " ] && break; sleep 0.05; done; " +
                          "kill -TERM $pid; wait $pid; cat " + dir.Join("stats");
  const auto run = RunShell(cmd);
  ASSERT_EQ(run.exit_code, 0) << run.out.substr(0, 2000);
  const int arenas = ArenasAtExit(run.out);
  EXPECT_GE(arenas, 1 + 5) << run.out.substr(0, 2000);
  EXPECT_LE(arenas, 2 + 5) << run.out.substr(0, 2000);
}

TEST(AllocatorNoJemalloc, UseOwnMallocArenaIsANoOp) {
  // This test binary does not link jemalloc (only the rap binary does): nothing to bind.
  EXPECT_FALSE(rap::UseOwnMallocArena());
}

}  // namespace
