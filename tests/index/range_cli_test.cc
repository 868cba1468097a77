// `rap index build --kind sorted`, `rap index list`, `rap lookup --index NAME --range/--prefix` and
// `rap index compact --rebalance` end to end: the CLI's CSV rows equal the library's range lookup,
// pages follow the printed token, and bad syntax fails with a message.
#include <gtest/gtest.h>

#include "rap/index/build.h"
#include "rap/index/index.h"
#include "testing/cli_run.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using rap::testing::RunCli;
using rap::testing::RunShell;

std::string Csv(const RecordBatch& b) {
  std::string out = "k,v\n";
  for (int64_t r = 0; r < b.num_rows; ++r) {
    out += FormatValue(*b.columns[0], r) + "," + (b.columns[1]->IsNull(r) ? "" : FormatValue(*b.columns[1], r)) + "\n";
  }
  return out;
}

TEST(RangeCliTest, SortedBuildListRangePrefixAndRebalance) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  rap::testing::IndexTableOptions opts;
  opts.files = 2;
  opts.rows = 600;
  opts.key_space = 100;
  const std::string t = dir.Join("t");
  rap::testing::WriteIndexTable(t, opts);
  auto b = RunCli("index build '" + t + "' --key k --kind sorted --buckets 3 --name by_k -q");
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_NE(b.out.find("sorted index"), std::string::npos) << b.out;
  ASSERT_EQ(RunCli("index build '" + t + "' --key s -q").exit_code, 0);
  auto l = RunCli("index list '" + t + "'");
  ASSERT_EQ(l.exit_code, 0) << l.out;
  EXPECT_NE(l.out.find("by_k             sorted key k"), std::string::npos) << l.out;
  EXPECT_NE(l.out.find("default          hash   key s"), std::string::npos) << l.out;

  auto idx = Index::Open(DefaultIndexUrl(t, "by_k"));
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  RangeLookupOptions ro;
  ro.columns = {"k", "v"};
  for (const char* text : {"10..20", "10<..<20", "90..", "..5", "50..40"}) {
    SCOPED_TRACE(text);
    auto want = (*idx)->LookupRange(*ParseKeyRange((*idx)->info().key, text), ro);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto r = RunCli("lookup '" + t + "' --index by_k --range '" + std::string(text) + "' -c k,v --format csv", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, Csv(want->rows));
  }
  // Pages: --limit prints the token on stderr; following it ends where the whole range ends.
  auto whole = RunCli("lookup '" + t + "' --index by_k --range 30..60 -c k,v --format csv", false);
  ASSERT_EQ(whole.exit_code, 0);
  std::string paged = "k,v\n", token;
  for (int page = 0; page < 100; ++page) {
    auto r = RunShell(rap::testing::RapBinary() + " lookup '" + t + "' --index by_k --range 30..60 -c k,v --format csv " +
                      "--limit 25" + (token.empty() ? "" : " --page-token " + token) + " 2>'" + dir.Join("err") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    paged += r.out.substr(r.out.find('\n') + 1);
    auto err = RunShell("cat '" + dir.Join("err") + "'");
    const size_t at = err.out.find("--page-token ");
    if (at == std::string::npos) break;
    token = err.out.substr(at + 13, err.out.find('\n', at) - at - 13);
  }
  EXPECT_EQ(paged, whole.out);
  EXPECT_FALSE(token.empty());
  // A prefix over the string index (the default one): "s1" matches s1, s10..s19.
  auto p = RunCli("lookup '" + t + "' --prefix s1 -c s --format csv", false);
  ASSERT_EQ(p.exit_code, 0) << p.out;
  for (size_t at = p.out.find('\n') + 1; at < p.out.size(); at = p.out.find('\n', at) + 1) {
    EXPECT_EQ(p.out.compare(at, 2, "s1"), 0) << p.out.substr(at, 10);
  }
  auto bad = RunCli("lookup '" + t + "' --index by_k --range 10");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.out.find("expected LO..HI"), std::string::npos) << bad.out;
  auto both = RunCli("lookup '" + t + "' --index by_k --range 1..2 --key 3");
  EXPECT_NE(both.exit_code, 0);
  auto c = RunCli("index compact '" + t + "/_rap_index/by_k' --rebalance --buckets 2");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  auto i = RunCli("index inspect '" + t + "/_rap_index/by_k'");
  EXPECT_NE(i.out.find("buckets    2 (range)"), std::string::npos) << i.out;
  auto again = RunCli("lookup '" + t + "' --index by_k --range 30..60 -c k,v --format csv", false);
  EXPECT_EQ(again.out, whole.out);
}

}  // namespace
}  // namespace rap::index
