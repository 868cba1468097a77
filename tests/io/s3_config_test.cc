// S3 configuration resolution: environment variables, shared credentials/config files and
// profiles, precedence, anonymous access, and messages that never contain the secret.
#include <gtest/gtest.h>

#include <cstdlib>

#include "rap/io/s3_config.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
    setenv("AWS_SHARED_CREDENTIALS_FILE", dir_.Join("credentials").c_str(), 1);
    setenv("AWS_CONFIG_FILE", dir_.Join("config").c_str(), 1);
  }
  void TearDown() override {
    for (const char* v : kVars) unsetenv(v);
  }
  static constexpr const char* kVars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                          "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                                          "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
                                          "AWS_CONFIG_FILE", "RAP_S3_ANONYMOUS"};
  rap::testing::TempDir dir_;
};

TEST_F(S3ConfigTest, NothingConfiguredIsAnonymousOnAws) {
  auto c = LoadS3Config();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->anonymous);
  EXPECT_EQ(c->region, "us-east-1");
  EXPECT_TRUE(c->endpoint_url.empty());
  EXPECT_NE(c->DescribeCredentials().find("anonymous"), std::string::npos);
}

TEST_F(S3ConfigTest, EnvironmentWins) {
  rap::testing::WriteStringToFile(dir_.Join("credentials"),
                                  "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n");
  setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  setenv("AWS_SESSION_TOKEN", "tok", 1);
  setenv("AWS_DEFAULT_REGION", "eu-west-1", 1);
  setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/", 1);
  auto c = LoadS3Config();
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->anonymous);
  EXPECT_EQ(c->access_key_id, "ENVKEY");
  EXPECT_EQ(c->secret_access_key, "envsecret");
  EXPECT_EQ(c->session_token, "tok");
  EXPECT_EQ(c->region, "eu-west-1");
  EXPECT_EQ(c->endpoint_url, "http://127.0.0.1:9000");
  EXPECT_EQ(c->DescribeCredentials(), "access key id 'ENVKEY' (from environment)");
  EXPECT_EQ(c->DescribeCredentials().find("envsecret"), std::string::npos);
  setenv("AWS_REGION", "ap-south-1", 1);
  setenv("AWS_ENDPOINT_URL_S3", "https://s3.example.com", 1);
  c = LoadS3Config();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->region, "ap-south-1");
  EXPECT_EQ(c->endpoint_url, "https://s3.example.com");
  setenv("RAP_S3_ANONYMOUS", "1", 1);
  c = LoadS3Config();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->anonymous);
}

TEST_F(S3ConfigTest, ProfilesFromSharedFiles) {
  rap::testing::WriteStringToFile(dir_.Join("credentials"),
                                  "# comment\n[default]\naws_access_key_id = DEF\naws_secret_access_key = defsecret\n"
                                  "[dev]\naws_access_key_id = DEV\naws_secret_access_key = devsecret\n"
                                  "aws_session_token = devtoken\n");
  rap::testing::WriteStringToFile(dir_.Join("config"),
                                  "[default]\nregion = us-west-2\n[profile dev]\nregion = eu-central-1\n"
                                  "endpoint_url = http://minio.local:9000\ns3 =\n  addressing_style = path\n"
                                  "[profile cfgonly]\naws_access_key_id = CFG\naws_secret_access_key = cfgsecret\n");
  auto def = LoadS3Config();
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->access_key_id, "DEF");
  EXPECT_EQ(def->region, "us-west-2");
  setenv("AWS_PROFILE", "dev", 1);
  auto dev = LoadS3Config();
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->access_key_id, "DEV");
  EXPECT_EQ(dev->session_token, "devtoken");
  EXPECT_EQ(dev->region, "eu-central-1");
  EXPECT_EQ(dev->endpoint_url, "http://minio.local:9000");
  EXPECT_NE(dev->credentials_source.find("profile 'dev'"), std::string::npos);
  setenv("AWS_PROFILE", "cfgonly", 1);
  auto cfg = LoadS3Config();
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->access_key_id, "CFG");
  setenv("AWS_PROFILE", "missing", 1);
  auto missing = LoadS3Config();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'missing'"), std::string::npos);
}

TEST_F(S3ConfigTest, InconsistentSettingsAreErrors) {
  setenv("AWS_ACCESS_KEY_ID", "ONLYKEY", 1);
  EXPECT_FALSE(LoadS3Config().ok());
  unsetenv("AWS_ACCESS_KEY_ID");
  setenv("AWS_ENDPOINT_URL", "ftp://x", 1);
  EXPECT_FALSE(LoadS3Config().ok());
}

TEST_F(S3ConfigTest, CacheKeyDependsOnTheSecret) {
  S3Config a, b;
  a.access_key_id = b.access_key_id = "K";
  a.secret_access_key = "one";
  b.secret_access_key = "two";
  EXPECT_NE(a.CacheKey(), b.CacheKey());
  EXPECT_EQ(a.CacheKey().find("one"), std::string::npos);
}

}  // namespace
}  // namespace rap::io
