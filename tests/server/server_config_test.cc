// `rap serve` configuration: the JSON config file, --listen and --table flags, URL redaction.
#include <gtest/gtest.h>

#include "rap/server/server_config.h"

namespace rap::server {
namespace {

TEST(ServerConfig, ParsesTablesListenAndLimits) {
  ServerOptions o;
  Status st = ParseServerConfig(R"({"listen": "0.0.0.0:9000",
      "tables": {"events": {"url": "s3://b/events", "index": "s3://b/idx"}, "users": "/data/users"},
      "limits": {"max_in_flight": 8, "max_keys": 50, "request_deadline_s": 2.5},
      "refresh_interval_s": 3, "access_log": "", "require_index": true, "index_cache_bytes": 1048576,
      "hedge_quantile": 0.9, "hedge_max_extra": 0.02})",
                                "cfg.json", &o);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(o.host, "0.0.0.0");
  EXPECT_EQ(o.port, 9000);
  ASSERT_EQ(o.tables.size(), 2u);
  EXPECT_EQ(o.tables[0].name, "events");
  EXPECT_EQ(o.tables[0].url, "s3://b/events");
  EXPECT_EQ(o.tables[0].index_url, "s3://b/idx");
  EXPECT_EQ(o.tables[1].url, "/data/users");
  EXPECT_EQ(o.limits.max_in_flight, 8);
  EXPECT_EQ(o.limits.max_keys, 50);
  EXPECT_DOUBLE_EQ(o.limits.request_deadline_s, 2.5);
  EXPECT_DOUBLE_EQ(o.refresh_interval_s, 3);
  EXPECT_TRUE(o.require_index);
  EXPECT_EQ(o.index_cache_bytes, 1048576);
  EXPECT_DOUBLE_EQ(o.hedge_quantile, 0.9);
  EXPECT_DOUBLE_EQ(o.hedge_max_extra, 0.02);
}

TEST(ServerConfig, RejectsTyposAndWrongTypes) {
  for (const char* bad : {R"({"listn": ":1"})", R"({"limits": {"max_inflight": 3}})", R"({"limits": {"max_keys": "5"}})",
                          R"({"limits": {"max_in_flight": 0}})", R"({"tables": {"a b": "/x"}})",
                          R"({"tables": {"t": {"url": "/x", "idx": "/y"}}})", R"({"listen": "nohost"})", "[1]", R"({"index_cache_bytes": -1})",
                          R"({"hedge_quantile": 1})", R"({"hedge_quantile": 0})", R"({"hedge_max_extra": 1.5})", "{not json"}) {
    ServerOptions o;
    EXPECT_FALSE(ParseServerConfig(bad, "cfg.json", &o).ok()) << bad;
  }
}

TEST(ServerConfig, ListenAndTableFlags) {
  EXPECT_EQ(*ParseListen("127.0.0.1:8080"), std::make_pair(std::string("127.0.0.1"), uint16_t{8080}));
  EXPECT_EQ(*ParseListen(":0"), std::make_pair(std::string("127.0.0.1"), uint16_t{0}));
  EXPECT_EQ(*ParseListen("[::1]:81"), std::make_pair(std::string("::1"), uint16_t{81}));
  EXPECT_FALSE(ParseListen("host:99999").ok());
  EXPECT_FALSE(ParseListen("host").ok());
  auto t = ParseTableFlag("events=s3://b/e,index=s3://b/i");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->name, "events");
  EXPECT_EQ(t->url, "s3://b/e");
  EXPECT_EQ(t->index_url, "s3://b/i");
  EXPECT_FALSE(ParseTableFlag("events").ok());
  EXPECT_FALSE(ParseTableFlag("=x").ok());
  EXPECT_FALSE(ParseTableFlag("t=").ok());
}

// Iceberg settings of a table (docs/iceberg.md): a pinned snapshot or an as-of time, location maps in order.
TEST(ServerConfig, IcebergTableSettings) {
  ServerOptions o;
  Status st = ParseServerConfig(R"({"tables": {
      "a": {"url": "/d/a", "snapshot": 7490459762454857930, "location_map": ["hdfs://nn/wh/a/data=/d/x", "hdfs://nn/wh=/d"]},
      "b": {"url": "/d/b", "as_of": "2026-02-12 13:37:44"},
      "c": {"url": "/d/c", "as_of": 1770903464282, "index": "/i/c"}}})",
                                "cfg.json", &o);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(o.tables.size(), 3u);
  EXPECT_EQ(o.tables[0].snapshot_id, std::optional<int64_t>(7490459762454857930));
  EXPECT_FALSE(o.tables[0].as_of_ms);
  using Map = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(o.tables[0].location_map, (Map{{"hdfs://nn/wh/a/data", "/d/x"}, {"hdfs://nn/wh", "/d"}}));
  EXPECT_EQ(o.tables[1].as_of_ms, std::optional<int64_t>(1770903464000));
  EXPECT_FALSE(o.tables[1].snapshot_id);
  EXPECT_EQ(o.tables[2].as_of_ms, std::optional<int64_t>(1770903464282));
  EXPECT_EQ(o.tables[2].index_url, "/i/c");
  for (const char* bad : {R"({"tables": {"t": {"url": "/x", "snapshot": "12"}}})",
                          R"({"tables": {"t": {"url": "/x", "snapshot": -1}}})",
                          R"({"tables": {"t": {"url": "/x", "snapshot": 1, "as_of": 5}}})",
                          R"({"tables": {"t": {"url": "/x", "as_of": "yesterday"}}})",
                          R"({"tables": {"t": {"url": "/x", "location_map": {"a": "b"}}}})",
                          R"({"tables": {"t": {"url": "/x", "location_map": ["no-equals"]}}})",
                          R"({"tables": {"t": {"url": "/x", "location_map": ["=/empty-old"]}}})",
                          R"({"tables": {"t": {"url": "/x", "index": 3}}})"}) {
    ServerOptions b;
    Status s = ParseServerConfig(bad, "cfg.json", &b);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
  }
  auto t = ParseTableFlag("ice=/d/ice,location-map=hdfs://nn/wh/ice=/d/ice,snapshot=42,index=/i/ice,location-map=/a=/b");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->url, "/d/ice");
  EXPECT_EQ(t->index_url, "/i/ice");
  EXPECT_EQ(t->snapshot_id, std::optional<int64_t>(42));
  EXPECT_EQ(t->location_map, (Map{{"hdfs://nn/wh/ice", "/d/ice"}, {"/a", "/b"}}));
  auto a = ParseTableFlag("ice=s3://b/ice,as-of=2026-02-12 13:37:44");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->url, "s3://b/ice");
  EXPECT_EQ(a->as_of_ms, std::optional<int64_t>(1770903464000));
  for (const char* bad : {"ice=/d,snapshot=x", "ice=/d,snapshot=1,as-of=5", "ice=,snapshot=1", "ice=/d,location-map=nothing",
                          "ice=/d,index="}) {
    EXPECT_EQ(ParseTableFlag(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ServerConfig, RedactsCredentialsAndQueries) {
  EXPECT_EQ(RedactUrl("https://user:secret@host/p?X-Amz-Signature=abc"), "https://<redacted>@host/p?<redacted>");
  EXPECT_EQ(RedactUrl("s3://bucket/events"), "s3://bucket/events");
  EXPECT_EQ(RedactUrl("/local/path"), "/local/path");
}

}  // namespace
}  // namespace rap::server
