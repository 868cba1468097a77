// rap-test-labels: network
// The fault-injection matrix (docs/reliability.md): every fault rap-netsim injects, on every remote
// read path: a single-file read, a Delta table scan (with a deletion vector), a directory-table scan
// with prefetch and warmup, and a RAP index lookup, all over s3:// against rap-netsim. For every cell
// the outcome is either exactly the rows of the same read on the local copy (transient faults,
// after retries) or an error that names the object (persistent faults, a stall past the deadline,
// an object replaced between footer and pages, a file of the table gone), never wrong or partial
// rows, within a bounded time. Each cell runs against its own rap-netsim, so no transport state
// (connections, estimator) carries from one cell to the next. After every cell: failed plans taught
// the endpoint's estimator nothing (its samples are exactly those of the cell's successful plans),
// and once the cell's readers and its store are gone the process holds no more threads or sockets
// than before it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "rap/index/build.h"
#include "rap/index/latest_bundle.h"
#include "rap/index/index.h"
#include "rap/io/object_store.h"
#include "rap/plan/estimator.h"
#include "rap/plan/plan_record.h"
#include "rap/read/file_reader.h"
#include "rap/read/scanner.h"
#include "rap/table/scan_source.h"
#include "rap/table/table.h"
#include "testing/index_table.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"
#include "testing/process_resources.h"
#include "testing/scan_table.h"
#include "testing/result_check.h"

namespace rap {
namespace {

namespace fs = std::filesystem;

// What one path produced: the rows rendered as text, in order.
using Rows = std::vector<std::string>;

enum class Path { kFile, kDelta, kPrefetch, kLookup };
const char* PathName(Path p) {
  switch (p) {
    case Path::kFile: return "single-file read";
    case Path::kDelta: return "Delta scan";
    case Path::kPrefetch: return "prefetch+warmup scan";
    case Path::kLookup: return "RAP lookup";
  }
  return "?";
}
constexpr Path kPaths[] = {Path::kFile, Path::kDelta, Path::kPrefetch, Path::kLookup};

// The object each path's persistent faults target (a data file it must read), relative to the root.
std::string TargetObject(Path p) {
  switch (p) {
    case Path::kFile: return "bkt/t/part=b/data.parquet";
    case Path::kDelta: return "bkt/dv/part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet";
    case Path::kPrefetch: return "bkt/t/part=b/data.parquet";
    case Path::kLookup: return "bkt/idx/f01.parquet";
  }
  return "";
}

class FaultMatrix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Bounded retries and deadline for every store created in this process (all are created after
    // this: each cell's rap-netsim is a new endpoint).
    setenv("RAP_HTTP_MAX_ATTEMPTS", "4", 1);
    setenv("RAP_HTTP_DEADLINE_S", "4", 1);
    setenv("RAP_HTTP_LOW_SPEED_TIME_S", "1", 1);
    setenv("AWS_ACCESS_KEY_ID", "netsim", 1);  // rap-netsim accepts any signature
    setenv("AWS_SECRET_ACCESS_KEY", "netsim-secret", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }
  static void TearDownTestSuite() {
    for (const char* v : {"RAP_HTTP_MAX_ATTEMPTS", "RAP_HTTP_DEADLINE_S", "RAP_HTTP_LOW_SPEED_TIME_S", "AWS_ENDPOINT_URL",
                          "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}) {
      unsetenv(v);
    }
  }

  void SetUp() override {
    root_ = dir_.Join("root");
    rap::testing::ScanTableOptions t;
    t.files = 3;
    t.rows_per_file = 1500;
    t.row_group_rows = 500;
    auto files = rap::testing::MakeScanTable(t);
    ASSERT_TRUE(files.ok());
    rap::testing::WriteScanTable(root_ + "/bkt/t", *files);
    fs::copy(rap::testing::SharedDir() + "/delta-tables/table-with-dv-small", root_ + "/bkt/dv",
             fs::copy_options::recursive);
    rap::testing::IndexTableOptions it;
    it.files = 3;
    it.rows = 1000;
    it.key_space = 200;
    rap::testing::WriteIndexTable(root_ + "/bkt/idx", it);
    index::BuildOptions bo;
    bo.key_columns = {"k"};
    auto built = index::BuildIndex(root_ + "/bkt/idx", bo);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    for (Path p : kPaths) {
      auto want = Run(p, root_ + "/bkt");
      ASSERT_TRUE(want.ok()) << PathName(p) << ": " << want.status().ToString();
      ASSERT_FALSE(want->empty()) << PathName(p);
      want_[static_cast<int>(p)] = *want;
    }
    ASSERT_NO_FATAL_FAILURE(UseRemoteEtags(*built));
  }

  // The index was built from the local files, so its manifest holds their local ETags; rap-netsim
  // serves other ETags (size and mtime in its own form). Rewrites the manifest with the ETags the
  // S3 endpoint reports, as if the index had been built through it, so that a replaced data file
  // is told by its ETag.
  void UseRemoteEtags(const index::BuildResult& built) {
    rap::testing::NetsimOptions no;
    no.root = root_;
    auto server = rap::testing::NetsimServer::Start(no);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    setenv("AWS_ENDPOINT_URL", (*server)->url().c_str(), 1);
    index::Manifest m = built.manifest;
    const std::string index_rel = fs::relative(built.index_url, root_ + "/bkt").string();
    auto etag = [&](const std::string& rel) -> std::string {
      auto u = io::OpenUrl("s3://bkt/" + rel);
      RAP_TEST_CHECK_OK(u);
      auto info = u->store->Head(u->path);
      EXPECT_TRUE(info.ok()) << rel << ": " << info.status().ToString();
      return info.ok() ? info->etag : "";
    };
    // Every cell's rap-netsim is another endpoint: no etag_source, so the ETags are always compared.
    m.etag_source.clear();
    for (index::FileEntry& f : m.files) f.etag = etag("idx/" + f.path);
    for (index::FragmentEntry& f : m.fragments) f.etag = etag(index_rel + "/" + f.path);
    rap::testing::WriteStringToFile(index::ManifestPath(built.index_url, m.version), index::ManifestToJson(m));
    // And its copy in the latest bundle, which readers open from.
    auto local = io::OpenUrl(built.index_url);
    RAP_TEST_CHECK_OK(local);
    RAP_TEST_CHECK_OK(index::WriteLatestBundle(*local->store, local->path, m));
  }

  // Replaces the bytes of the file at `path` for one cell, then restores them and their mtime (the
  // ETag rap-netsim serves), so the next cells see the original object.
  static void RestoreAfter(const std::string& path, const std::function<void()>& cell) {
    const std::string original = rap::testing::ReadFileToString(path);
    const auto mtime = fs::last_write_time(path);
    cell();
    rap::testing::WriteStringToFile(path, original);
    fs::last_write_time(path, mtime);
  }

  // Runs path `p` over the bucket at `base` ("s3://bkt" or the local directory) and returns its rows.
  // When `log` is given, every range plan of the path's data reads is appended to it and plans with
  // (and reports to) `estimator`.
  static Result<Rows> Run(Path p, const std::string& base, const std::function<void()>& between = {},
                          plan::PlanLog* log = nullptr, std::shared_ptr<plan::TransportEstimator> estimator = nullptr) {
    Rows rows;
    switch (p) {
      case Path::kFile: {
        RAP_ASSIGN_OR_RETURN(io::ResolvedUrl u, io::OpenUrl(base + "/t/part=b/data.parquet"));
        read::FileReaderOptions o;
        o.use_metadata_cache = false;
        o.plan.log = log;
        o.plan.estimator = estimator;
        RAP_ASSIGN_OR_RETURN(auto reader, read::FileReader::Open(u.store, u.path, o));
        if (between) between();  // after the footer, before the pages
        RAP_ASSIGN_OR_RETURN(read::Projection all, reader->Project());
        RAP_ASSIGN_OR_RETURN(auto batches, reader->ReadAll(std::nullopt, all));
        for (const RecordBatch& b : batches) {
          for (int64_t r = 0; r < b.num_rows; ++r) rows.push_back(rap::testing::RowText(b, r));
        }
        return rows;
      }
      case Path::kDelta:
      case Path::kPrefetch: {
        RAP_ASSIGN_OR_RETURN(table::TableSnapshot snap, table::OpenTable(base + (p == Path::kDelta ? "/dv" : "/t")));
        RAP_ASSIGN_OR_RETURN(read::ScanSource src, table::ToScanSource(snap));
        if (between) between();  // after the listing / log, before the files
        read::ScanOptions o;
        o.reader.use_metadata_cache = false;
        o.reader.plan.log = log;
        o.reader.plan.estimator = estimator;
        if (p == Path::kPrefetch) {
          o.prefetch.producers = 3;
          o.prefetch.min_file_bytes = 0;
          o.prefetch.ranges.natural_read_size = 4096;
          o.warmup.level = read::WarmupLevel::kRaw;
          o.batch_size = 400;
        } else {
          o.prefetch.producers = 1;
          o.warmup.level = read::WarmupLevel::kNone;
        }
        RAP_ASSIGN_OR_RETURN(rap::testing::ScanRows got, rap::testing::RunScan(std::move(src), std::move(o)));
        return got.values;
      }
      case Path::kLookup: {
        index::IndexOpenOptions oo;
        oo.page_cache_bytes = 0;
        oo.plan.log = log;
        oo.plan.estimator = estimator;
        RAP_ASSIGN_OR_RETURN(auto idx, index::Index::Open(base + "/idx", oo));
        if (between) between();  // after the manifest and fragment footers, before the pages
        std::vector<index::Key> keys;
        for (int k = 0; k < 200; k += 9) {
          RAP_ASSIGN_OR_RETURN(index::Key key, idx->ParseKey({std::to_string(k)}));
          keys.push_back(key);
        }
        RAP_ASSIGN_OR_RETURN(index::LookupResult res, idx->Lookup(keys, {}));
        for (const index::KeyRows& k : res.keys) {
          rows.push_back("key " + FormatKey(idx->info().key, k.key));
          for (std::string& r : rap::testing::ResultRows(k)) rows.push_back(std::move(r));
        }
        return rows;
      }
    }
    return Status::Internal("unknown path");
  }

  // One cell: a fresh rap-netsim over the root with `fault` (query syntax; empty: none), the path
  // run over s3:// through it; `between` runs after the path opened its metadata. `failing`: from
  // `between` on (or from the start, without one) every request for the object whose path ends so
  // fails, so every plan reading it must fail. Checks the estimator and the resources after the cell
  // (CheckEstimator, the leak check below).
  Result<Rows> Cell(Path p, const std::string& fault, const std::function<void()>& between = {},
                    const std::string& failing = "") {
    const rap::testing::ProcessResources before = rap::testing::CurrentResources();
    Result<Rows> rows = Status::Internal("not run");
    {
      rap::testing::NetsimOptions no;
      no.root = root_;
      auto server = rap::testing::NetsimServer::Start(no);
      if (!server.ok()) return server.status();
      if (!fault.empty()) RAP_RETURN_NOT_OK((*server)->AddFault(fault));
      setenv("AWS_ENDPOINT_URL", (*server)->url().c_str(), 1);
      plan::PlanLog log;
      auto estimator = std::make_shared<plan::TransportEstimator>();
      size_t mark = 0;  // the plans before `between` ran
      const std::function<void()> marked = [&] {
        mark = log.size();
        between();
      };
      const auto start = std::chrono::steady_clock::now();
      rows = Run(p, "s3://bkt", between ? marked : between, &log, estimator);
      last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      CheckEstimator(*estimator, log, mark, failing);
    }
    // The cell's readers are gone; its store (connections, transfer thread) goes with the registry's
    // reference. Nothing of the cell may be left.
    io::ReleaseUnusedStores();
    const rap::testing::ProcessResources after = rap::testing::ResourcesSettledTo(before);
    EXPECT_LE(after.threads, before.threads) << "threads left after the cell";
    EXPECT_LE(after.sockets, before.sockets) << "sockets left after the cell";
    return rows;
  }

  // Failed plans never teach the estimator: every plan that added a sample succeeded, every plan
  // from `mark` on that sent a request for the `failing` object failed, and the cell's estimator
  // holds exactly the samples of the successful plans and counts every other plan as rejected.
  static void CheckEstimator(const plan::TransportEstimator& estimator, const plan::PlanLog& log, size_t mark,
                             const std::string& failing) {
    size_t latency = 0, throughput = 0, rejected = 0, i = 0;
    for (const plan::PlanRecord& r : log.Records()) {
      const bool after_mark = i++ >= mark;
      if (r.outcome != plan::PlanOutcomeKind::kSuccess) {
        ++rejected;
        EXPECT_FALSE(r.latency_sample_added || r.throughput_sample_added) << r.object;
      }
      if (after_mark && !failing.empty() && r.object.size() >= failing.size() &&
          r.object.compare(r.object.size() - failing.size(), failing.size(), failing) == 0) {
        EXPECT_FALSE(r.chosen_requests > 0 && r.outcome == plan::PlanOutcomeKind::kSuccess)
            << r.object << " cannot have been read";
      }
      latency += r.latency_sample_added;
      throughput += r.throughput_sample_added + r.pooled_samples_added;  // a scan's samples are pooled
    }
    const size_t window = estimator.config().window;
    const plan::TransportEstimate e = estimator.Estimate();
    EXPECT_EQ(e.latency_samples, std::min(latency, window));
    EXPECT_EQ(e.throughput_samples, std::min(throughput, window));
    EXPECT_EQ(estimator.rejected_plans(), rejected);
  }

  // A transient fault: the rows are exactly the local ones.
  void ExpectRows(Path p, const std::string& fault) {
    SCOPED_TRACE(fmt::format("{} under '{}'", PathName(p), fault));
    auto got = Cell(p, fault);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, want_[static_cast<int>(p)]);
    EXPECT_LT(last_seconds_, 60.0);  // a hang guard, not a timing assertion
  }

  // A fault that cannot be retried away: an error naming `object`, no rows.
  void ExpectError(Path p, const std::string& fault, const std::string& object, const std::function<void()>& between = {},
                   std::optional<StatusCode> code = std::nullopt, const std::string& or_message = "",
                   bool target_gone = false) {
    SCOPED_TRACE(fmt::format("{} under '{}'", PathName(p), fault.empty() ? "(change)" : fault));
    // A fault on every request for the path's target (count=-1), or the target deleted by `between`,
    // fails every plan that reads it from then on.
    const bool target_fails = target_gone || fault.find("count=-1") != std::string::npos;
    auto got = Cell(p, fault, between, target_fails ? TargetObject(p).substr(std::string("bkt/").size()) : "");
    ASSERT_FALSE(got.ok()) << "returned " << got->size() << " rows";
    EXPECT_NE(got.status().ToString().find(object), std::string::npos) << got.status().ToString();
    if (code) {
      EXPECT_TRUE(got.status().Is(*code) ||
                  (!or_message.empty() && got.status().message().find(or_message) != std::string::npos))
          << got.status().ToString();
    }
    EXPECT_LT(last_seconds_, 60.0);
  }

  rap::testing::TempDir dir_;
  std::string root_;
  Rows want_[4];
  double last_seconds_ = 0;
};

// Transient faults on the data objects (".parquet": footers, pages, fragments) and, for the first
// requests, on whatever comes first (listing, log, manifest): retried to the right rows.
const char* kTransient[] = {
    "kind=reset&count=2&path=.parquet",
    "kind=500&count=2&path=.parquet",
    "kind=503&count=2&path=.parquet",
    "kind=429&count=1&retry_after=1&path=.parquet",
    "kind=503&count=1&retry_after=1",  // S3 SlowDown is a 503 with Retry-After
    "kind=truncate&count=2&path=.parquet",
    "kind=bad_range&count=2&path=.parquet",
    "kind=reset&count=1",
    "kind=truncate&count=1",
};

TEST_F(FaultMatrix, TransientFaultsGiveTheRightRows) {
  for (Path p : kPaths) {
    for (const char* f : kTransient) ExpectRows(p, f);
  }
}

TEST_F(FaultMatrix, PersistentServerErrorNamesTheObject) {
  for (Path p : kPaths) {
    const std::string obj = TargetObject(p);
    ExpectError(p, "kind=503&count=-1&path=/" + obj, fs::path(obj).filename().string());
  }
}

TEST_F(FaultMatrix, StallPastTheDeadlineIsATimeoutNamingTheObject) {
  for (Path p : kPaths) {
    const std::string obj = TargetObject(p);
    // A Timeout when the deadline ends it, else (every attempt cut off by the low-speed limit first)
    // an IOError that says the transfer stalled.
    ExpectError(p, "kind=stall&seconds=30&count=-1&path=/" + obj, fs::path(obj).filename().string(), {},
                StatusCode::kTimeout, "stalled");
  }
}

TEST_F(FaultMatrix, ObjectReplacedBetweenFooterAndPagesFails) {
  for (Path p : kPaths) {
    const std::string obj = TargetObject(p);
    const std::string path = root_ + "/" + obj;
    // The same length with one byte of the first page changed: a new version (rap-netsim's ETag
    // follows size and mtime) that only a version check can tell from the old one.
    RestoreAfter(path, [&] {
      ExpectError(p, "", fs::path(obj).filename().string(), [&] {
        std::string changed = rap::testing::ReadFileToString(path);
        changed[4] = static_cast<char>(changed[4] ^ 0x5a);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        rap::testing::WriteStringToFile(path, changed);
      });
    });
  }
}

TEST_F(FaultMatrix, MissingFileOfTheTableNamesIt) {
  for (Path p : kPaths) {
    const std::string obj = TargetObject(p);
    const std::string path = root_ + "/" + obj;
    RestoreAfter(path, [&] {
      ExpectError(p, "", fs::path(obj).filename().string(), [&] { fs::remove(path); }, std::nullopt, "", true);
    });
  }
}

}  // namespace
}  // namespace rap
