// BuildIndex and RewriteTable refuse a table of a format rap does not read yet (Paimon,
// Hudi: rap/table/table_format.h) with the NotSupported of OpenTable naming the format, and write
// nothing (no index under the table, no output folder).
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/index/build.h"
#include "rap/index/rewrite.h"
#include "testing/paths.h"
#include "testing/unread_tables.h"

namespace rap::index {
namespace {

namespace fs = std::filesystem;

void ExpectRefused(const Status& st, const std::string& url, const std::string& format) {
  EXPECT_TRUE(st.Is(StatusCode::kNotSupported)) << st.ToString();
  EXPECT_NE(st.message().find(url + ": this is a"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("rap does not read " + format + " tables yet"), std::string::npos) << st.ToString();
}

TEST(UnreadFormat, BuildAndRewriteRefuse) {
  rap::testing::TempDir dir;
  for (const rap::testing::UnreadTable& t : rap::testing::MakeUnreadTables(dir.Join("tables"))) {
    const std::string url = dir.Join("tables/" + t.folder);
    SCOPED_TRACE(url);
    BuildOptions bo;
    bo.key_columns = {"id"};
    auto built = BuildIndex(url, bo);
    ASSERT_FALSE(built.ok());
    ExpectRefused(built.status(), url, t.format);
    EXPECT_FALSE(fs::exists(url + "/_rap_index"));
    RewriteOptions ro;
    ro.key_columns = {"id"};
    const std::string out = dir.Join("out-" + t.folder);
    auto rewritten = RewriteTable(url, out, ro);
    ASSERT_FALSE(rewritten.ok());
    ExpectRefused(rewritten.status(), url, t.format);
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace
}  // namespace rap::index
