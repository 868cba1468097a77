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

TEST(ServerConfig, RedactsCredentialsAndQueries) {
  EXPECT_EQ(RedactUrl("https://user:secret@host/p?X-Amz-Signature=abc"), "https://<redacted>@host/p?<redacted>");
  EXPECT_EQ(RedactUrl("s3://bucket/events"), "s3://bucket/events");
  EXPECT_EQ(RedactUrl("/local/path"), "/local/path");
}

}  // namespace
}  // namespace rap::server
