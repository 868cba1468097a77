// rap-test-labels: concurrent
// Many scans and RAP lookups at once over one HTTP endpoint — so over one shared range-planner
// estimator (the endpoint's), the process-wide metadata cache and one shared Index — while another
// thread keeps injecting faults (connection resets, 503 and 429 with Retry-After 0, truncated bodies,
// a lying Content-Range) into the in-process FaultServer (tests/testing/fault_server.h; rap-netsim
// is a child process, which ThreadSanitizer cannot watch, so this test uses the in-process server
// and also runs under TSan). Every result is either exactly the local result (the scan's
// fingerprint and rows, the lookup's rows) or an error that names the object it failed on; no
// thread of the readers is left behind once they are gone. Scans run with 2 producers, RAW warmup
// and a small memory budget, so the budget's waits are exercised under faults too.
#include <gtest/gtest.h>

#include <chrono>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "rap/io/object_store.h"
#include "rap/read/scanner.h"
#include "testing/fault_server.h"
#include "testing/index_table.h"
#include "testing/paths.h"
#include "testing/process_resources.h"
#include "testing/scan_table.h"

namespace rap {
namespace {

namespace fs = std::filesystem;
using rap::testing::Fault;
using rap::testing::FaultSpec;

using rap::testing::ThreadCount;

class ConcurrentStress : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.Join("root");
    rap::testing::ScanTableOptions t;
    t.files = 3;
    t.rows_per_file = 900;
    t.row_group_rows = 300;
    t.page_rows = 100;
    auto files = rap::testing::MakeScanTable(t);
    ASSERT_TRUE(files.ok());
    scan_files_ = *files;
    rap::testing::WriteScanTable(root_ + "/t", scan_files_);
    rap::testing::IndexTableOptions it;
    it.files = 2;
    it.rows = 600;
    it.key_space = 100;
    rap::testing::WriteIndexTable(root_ + "/idx", it);
    index::BuildOptions bo;
    bo.key_columns = {"k"};
    auto built = index::BuildIndex(root_ + "/idx", bo);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (e.is_regular_file()) {
        server_.AddObject("/" + fs::relative(e.path(), root_).string(), rap::testing::ReadFileToString(e.path().string()));
      }
    }
    auto local = io::OpenUrl(root_ + "/t");
    ASSERT_TRUE(local.ok());
    auto want = rap::testing::RunScan(rap::testing::ScanTableSource(local->store, root_ + "/t", scan_files_), Options());
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    want_scan_ = *want;
    auto idx = index::Index::Open(root_ + "/idx");
    ASSERT_TRUE(idx.ok()) << idx.status().ToString();
    auto rows = Lookup(**idx);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    want_lookup_ = *rows;
  }

  static read::ScanOptions Options() {
    read::ScanOptions o;
    o.prefetch.producers = 2;
    o.prefetch.min_file_bytes = 0;
    o.prefetch.ranges.natural_read_size = 4096;
    o.warmup.level = read::WarmupLevel::kRaw;
    o.batch_size = 250;
    o.memory_limit = 64 << 10;
    return o;
  }

  static Result<std::vector<std::string>> Lookup(index::Index& idx) {
    std::vector<index::Key> keys;
    for (int k = 0; k < 100; k += 7) {
      RAP_ASSIGN_OR_RETURN(index::Key key, idx.ParseKey({std::to_string(k)}));
      keys.push_back(key);
    }
    RAP_ASSIGN_OR_RETURN(index::LookupResult res, idx.Lookup(keys, {}));
    std::vector<std::string> rows;
    for (const index::KeyRows& k : res.keys) {
      rows.push_back("key " + FormatKey(idx.info().key, k.key));
      for (std::string& r : rap::testing::ResultRows(k)) rows.push_back(std::move(r));
    }
    return rows;
  }

  // An error must say which object it failed on.
  static bool NamesAnObject(const Status& st) {
    const std::string s = st.ToString();
    return s.find(".parquet") != std::string::npos || s.find("_rap_index") != std::string::npos ||
           s.find("/idx") != std::string::npos || s.find("/t/") != std::string::npos;
  }

  rap::testing::TempDir dir_;
  std::string root_;
  std::vector<rap::testing::ScanTableFile> scan_files_;
  rap::testing::FaultServer server_;
  rap::testing::ScanRows want_scan_;
  std::vector<std::string> want_lookup_;
};

TEST_F(ConcurrentStress, ScansAndLookupsUnderFaults) {
  auto remote = io::OpenUrl(server_.base_url() + "/t");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  const read::ScanSource source = rap::testing::ScanTableSource(remote->store, "t", scan_files_);
  auto idx = index::Index::Open(server_.base_url() + "/idx");
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  std::shared_ptr<index::Index> shared_index = *idx;
  // One scan and one lookup first, so the endpoint's long-lived state (its transport) exists
  // before the threads are counted.
  ASSERT_TRUE(rap::testing::RunScan(source, Options()).ok());
  ASSERT_TRUE(Lookup(*shared_index).ok());
  const int threads_before = ThreadCount();
  const int live_before = server_.live_connections();

  std::atomic<bool> stop{false};
  std::atomic<int> ok_scans{0}, ok_lookups{0}, errors{0}, fault_rounds{1};
  std::mutex mu;
  std::vector<std::string> failures;  // wrong results or errors that name nothing
  auto fail = [&](std::string what) {
    std::lock_guard<std::mutex> lock(mu);
    failures.push_back(std::move(what));
  };
  std::thread faults([&] {
    const std::vector<FaultSpec> round = {{Fault::kReset}, {Fault::k503, 0}, {Fault::kTruncate}, {Fault::k429, 0},
                                          {Fault::kLieRange}};
    // One round of five faults per 40 requests served: about one request in eight fails once.
    int last = server_.requests();
    server_.QueueFaults(round);
    while (!stop.load()) {
      if (server_.requests() - last >= 40) {
        last = server_.requests();
        server_.QueueFaults(round);
        ++fault_rounds;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&, w] {
      for (int i = 0; i < 4; ++i) {
        read::ScanOptions o = Options();
        // Alternate the estimator scope: the endpoint's shared estimator and a per-scan one.
        if ((w + i) % 2) o.estimator_scope = read::ScanOptions::EstimatorScope::kScan;
        auto got = rap::testing::RunScan(source, o);
        if (got.ok()) {
          if (got->fingerprint != want_scan_.fingerprint || got->values != want_scan_.values) {
            fail(fmt::format("scan {}/{}: wrong rows ({} of {}), fingerprint {}", w, i, got->values.size(),
                             want_scan_.values.size(), got->fingerprint));
          }
          ++ok_scans;
        } else {
          ++errors;
          if (!NamesAnObject(got.status())) fail("scan error names no object: " + got.status().ToString());
        }
      }
    });
  }
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&, w] {
      for (int i = 0; i < 6; ++i) {
        auto got = Lookup(*shared_index);
        if (got.ok()) {
          if (*got != want_lookup_) fail(fmt::format("lookup {}/{}: wrong rows ({})", w, i, got->size()));
          ++ok_lookups;
        } else {
          ++errors;
          if (!NamesAnObject(got.status())) fail("lookup error names no object: " + got.status().ToString());
        }
      }
    });
  }
  for (std::thread& t : workers) t.join();
  stop = true;
  faults.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  std::cout << "scans ok " << ok_scans << "/12, lookups ok " << ok_lookups << "/18, errors " << errors
            << ", threads " << threads_before << " -> " << ThreadCount() << ", fault rounds " << fault_rounds << ", requests " << server_.requests() << ", connections " << server_.connections() << "\n";
  // Retries absorb single faults: most operations succeed (an error is allowed, a wrong row is not).
  EXPECT_GT(ok_scans.load() + ok_lookups.load(), 15);
  EXPECT_GT(fault_rounds.load(), 1);
  // Every scanner (producers, warmup) and lookup has ended: no thread of theirs is left. The
  // FaultServer runs a thread per open connection, and the clients' pooled connections stay open
  // (how many depends on how many requests were in flight at once), so those threads are taken out
  // of both counts. A serving thread that has just returned may not have exited yet: wait up to 5 s,
  // and allow 2 such stragglers; a leaked scanner or lookup pool would leave far more (3 threads
  // per scan, 12 scans).
  auto own_threads = [&] { return ThreadCount() - server_.live_connections(); };
  for (int i = 0; i < 50 && own_threads() > threads_before - live_before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LE(own_threads(), threads_before - live_before + 2)
      << "threads " << ThreadCount() << ", serving threads " << server_.live_connections() << ", before "
      << threads_before << " with " << live_before << " serving";
}

}  // namespace
}  // namespace rap
