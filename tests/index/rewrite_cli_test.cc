// `rap rewrite` end to end: the CLI rewrites a table into the interleaved layout with buckets, `rap
// lookup` reads the result through the index built in the same pass (rows equal a brute-force scan
// of the input), and bad arguments or an occupied output fail with a message.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "testing/cli_run.h"
#include "testing/index_table.h"

namespace rap::index {
namespace {

using rap::testing::RunCli;

TEST(RewriteCliTest, RewritesIndexesAndLooksUp) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  rap::testing::IndexTableOptions opts;
  opts.files = 2;
  opts.rows = 800;
  opts.key_space = 100;
  const std::string in = dir.Join("in"), out = dir.Join("out");
  std::vector<std::string> paths;
  for (const std::string& n : rap::testing::WriteIndexTable(in, opts)) paths.push_back(in + "/" + n);
  auto bf = rap::testing::BruteForce::Load(paths);
  ASSERT_TRUE(bf.ok()) << bf.status().ToString();

  auto r = RunCli("rewrite '" + in + "' '" + out + "' --key k --layout interleaved --align 4KiB --buckets 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("1600 rows of 2 file(s) into 2 file(s), layout interleaved"), std::string::npos) << r.out;

  for (const char* key : {"5", "42", "77", "1000"}) {
    auto l = RunCli("lookup '" + out + "' --key " + std::string(key) + " --columns v,name --format csv", false);
    ASSERT_EQ(l.exit_code, 0) << l.out;
    // CSV: a header line, then one line per row.
    const auto lines = static_cast<size_t>(std::count(l.out.begin(), l.out.end(), '\n'));
    EXPECT_EQ(lines, 1 + bf->Rows({"k"}, {key}, {"v", "name"}).size()) << "key " << key << "\n" << l.out;
  }
  // --layout blob (with --align): lookups show the original columns, not the blob.
  const std::string blob = dir.Join("blob");
  auto b = RunCli("rewrite '" + in + "' '" + blob + "' --key k --layout blob --align 4KiB -q");
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_NE(b.out.find("layout blob"), std::string::npos) << b.out;
  auto bl = RunCli("lookup '" + blob + "' --key 42 --columns v,name --format csv", false);
  ASSERT_EQ(bl.exit_code, 0) << bl.out;
  EXPECT_EQ(bl.out.substr(0, bl.out.find('\n')), "k,v,name") << bl.out;
  EXPECT_EQ(static_cast<size_t>(std::count(bl.out.begin(), bl.out.end(), '\n')),
            1 + bf->Rows({"k"}, {"42"}, {"v", "name"}).size())
      << bl.out;
  auto again = RunCli("rewrite '" + in + "' '" + out + "' --key k -q");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.out.find("not an empty folder"), std::string::npos) << again.out;
  auto bad = RunCli("rewrite '" + in + "' '" + dir.Join("out2") + "' --key k --layout zigzag -q");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("expected sorted, page, frame, interleaved, blob or zorder"), std::string::npos) << bad.out;
  auto help = RunCli("rewrite --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--buckets"), std::string::npos) << help.out;
}

// --index-kind sorted: the rewrite's index answers ranges, and `rap scan --where` uses it (the same
// rows as --no-index; --stats names the index and the predicate).
TEST(RewriteCliTest, SortedIndexServesRangesAndScans) {
  ASSERT_TRUE(rap::testing::RapBinaryExists()) << rap::testing::RapBinary();
  rap::testing::TempDir dir;
  rap::testing::IndexTableOptions opts;
  opts.files = 2;
  opts.rows = 600;
  opts.key_space = 100;
  const std::string in = dir.Join("in"), out = dir.Join("out");
  rap::testing::WriteIndexTable(in, opts);
  auto r = RunCli("rewrite '" + in + "' '" + out + "' --key k --layout sorted --index-kind sorted --buckets 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto inspect = RunCli("index inspect '" + out + "/_rap_index/default'", false);
  EXPECT_NE(inspect.out.find("sorted"), std::string::npos) << inspect.out;
  auto range = RunCli("lookup '" + out + "' --range 10..20 --columns k --format csv", false);
  ASSERT_EQ(range.exit_code, 0) << range.out;
  const std::string where = "--where \"k BETWEEN 10 AND 20 AND v > 100\" --format csv --output ";
  auto indexed = RunCli("scan '" + out + "' " + where + "'" + dir.Join("a.csv") + "' --stats");
  auto full = RunCli("scan '" + out + "' " + where + "'" + dir.Join("b.csv") + "' --no-index --stats");
  ASSERT_EQ(indexed.exit_code, 0) << indexed.out;
  ASSERT_EQ(full.exit_code, 0) << full.out;
  EXPECT_NE(indexed.out.find("index_used default (sorted, (k) in {10..20})"), std::string::npos) << indexed.out;
  EXPECT_NE(full.out.find("index_used none (--no-index)"), std::string::npos) << full.out;
  auto slurp = [](const std::string& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  EXPECT_GT(slurp(dir.Join("b.csv")).size(), 20u);
  EXPECT_EQ(slurp(dir.Join("a.csv")), slurp(dir.Join("b.csv")));
  auto kind = RunCli("rewrite '" + in + "' '" + dir.Join("x") + "' --key k --index-kind zorder -q");
  EXPECT_EQ(kind.exit_code, 1);
  EXPECT_NE(kind.out.find("expected hash or sorted"), std::string::npos) << kind.out;
  auto both = RunCli("scan '" + out + "' --where \"k = 1\" --index default --no-index");
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.out.find("not both"), std::string::npos) << both.out;
}

}  // namespace
}  // namespace rap::index
