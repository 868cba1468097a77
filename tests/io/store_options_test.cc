// StoreOptions (rap/io/store_options.h): per-call store settings over the environment — set fields
// override their variables, unset ones keep the environment's value, an empty one reads as unset;
// S3 configuration, HTTP options and OpenUrl's shared stores follow them.
#include <gtest/gtest.h>

#include <cstdlib>

#include "rap/io/store_options.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

class StoreOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
    setenv("AWS_SHARED_CREDENTIALS_FILE", dir_.Join("credentials").c_str(), 1);  // (absent files)
    setenv("AWS_CONFIG_FILE", dir_.Join("config").c_str(), 1);
  }
  void TearDown() override {
    for (const char* v : kVars) unsetenv(v);
  }
  static constexpr const char* kVars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                          "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                                          "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
                                          "AWS_CONFIG_FILE", "RAP_S3_ANONYMOUS", "RAP_HTTP_DEADLINE_S",
                                          "RAP_HTTP_MAX_ATTEMPTS"};
  rap::testing::TempDir dir_;
};

TEST_F(StoreOptionsTest, FieldsOverrideTheEnvironmentAndUnsetOnesKeepIt) {
  setenv("AWS_REGION", "eu-west-1", 1);
  setenv("AWS_ENDPOINT_URL", "http://env.example:9000", 1);
  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  StoreOptions o;
  o.endpoint = "http://127.0.0.1:9999/";
  o.access_key_id = "CALLKEY";
  o.secret_access_key = "callsecret";
  auto c = LoadS3Config(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->endpoint_url, "http://127.0.0.1:9999");
  EXPECT_EQ(c->access_key_id, "CALLKEY");
  EXPECT_EQ(c->secret_access_key, "callsecret");
  EXPECT_EQ(c->region, "eu-west-1");  // not set for the call: the environment's
  auto env = LoadS3Config();
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->endpoint_url, "http://env.example:9000");  // the environment itself is untouched
  EXPECT_EQ(env->access_key_id, "ENVKEY");
}

TEST_F(StoreOptionsTest, EmptyReadsAsUnsetAndAnonymousApplies) {
  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  StoreOptions o;
  o.access_key_id = "";
  o.secret_access_key = "";
  auto c = LoadS3Config(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->anonymous);
  StoreOptions a;
  a.anonymous = "1";
  auto d = LoadS3Config(a);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->anonymous);
  StoreOptions half;
  half.access_key_id = "K";  // with no secret anywhere: refused as when the environment has only a key
  unsetenv("AWS_SECRET_ACCESS_KEY");
  EXPECT_TRUE(LoadS3Config(half).status().Is(StatusCode::kInvalidArgument));
}

TEST_F(StoreOptionsTest, HttpSettings) {
  setenv("RAP_HTTP_MAX_ATTEMPTS", "3", 1);
  StoreOptions o;
  o.timeout = "7.5";
  HttpOptions h = HttpOptionsFor(o);
  EXPECT_DOUBLE_EQ(h.deadline_s, 7.5);
  EXPECT_EQ(h.max_attempts, 3);  // the environment's
  EXPECT_DOUBLE_EQ(HttpOptionsFromEnv().deadline_s, HttpOptions{}.deadline_s);
}

TEST_F(StoreOptionsTest, OpenUrlSharesStoresPerSettings) {
  StoreOptions a, b;
  a.endpoint = "http://127.0.0.1:1";
  a.anonymous = "1";
  b = a;
  b.region = "ap-south-1";
  auto ra = OpenUrl("s3://bkt/x", a);
  auto ra2 = OpenUrl("s3://bkt/y", a);
  auto rb = OpenUrl("s3://bkt/x", b);
  auto renv = OpenUrl("s3://bkt/x");
  ASSERT_TRUE(ra.ok() && ra2.ok() && rb.ok() && renv.ok());
  EXPECT_EQ(ra->store, ra2->store);
  EXPECT_NE(ra->store, rb->store);
  EXPECT_NE(ra->store, renv->store);
  EXPECT_NE(ra->store->endpoint().find("127.0.0.1:1"), std::string::npos) << ra->store->endpoint();
  EXPECT_TRUE(StoreOptions{}.empty());
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a.CacheKey().find("secret"), std::string::npos);
  StoreOptions s = a;
  s.secret_access_key = "topsecret";
  EXPECT_EQ(s.CacheKey().find("topsecret"), std::string::npos);  // digested
  EXPECT_NE(s.CacheKey(), a.CacheKey());
}

}  // namespace
}  // namespace rap::io
