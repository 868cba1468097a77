// rap-test-labels: network
// S3Store::PutIfAbsent when an answer is lost: rap-netsim's `lost` fault stores the object and then
// resets the connection, so the client retries and the retry meets its own object (HTTP 412). The
// store reads the object back after a retried 412: exactly our bytes is our create (OK); other bytes
// is a real conflict (Changed), also when the first attempt failed without storing anything.
#include <gtest/gtest.h>

#include <filesystem>

#include "rap/io/s3_store.h"
#include "testing/netsim_fixture.h"
#include "testing/paths.h"

namespace rap::io {
namespace {

namespace fs = std::filesystem;

class S3ConditionalPut : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.Join("bkt"));
    rap::testing::NetsimOptions o;
    o.root = dir_.path();
    auto s = rap::testing::NetsimServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    S3Config c;
    c.access_key_id = "netsim";  // rap-netsim accepts any signature
    c.secret_access_key = "netsim-secret";
    c.endpoint_url = server_->url();
    c.credentials_source = "test";
    HttpOptions h;
    h.max_attempts = 4;
    auto store = MakeS3Store("bkt", c, h);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }

  std::string Stored(const std::string& key) { return rap::testing::ReadFileToString(dir_.Join("bkt/" + key)); }
  uint64_t Fired(const std::string& kind) {
    auto st = server_->Stats();
    EXPECT_TRUE(st.ok());
    return st.ok() && st->faults.count(kind) ? st->faults.at(kind) : 0;
  }

  rap::testing::TempDir dir_;
  std::unique_ptr<rap::testing::NetsimServer> server_;
  ObjectStorePtr store_;
};

TEST_F(S3ConditionalPut, LostAnswerOfOwnCreateIsSuccess) {
  ASSERT_TRUE(server_->AddFault("kind=lost&count=1&path=/bkt/log/").ok());
  Status st = store_->PutIfAbsent("log/00000000000000000000.json", Buffer::Copy("{\"commitInfo\":{}}"));
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(Fired("lost"), 1u);  // the first attempt stored the object and its answer was dropped
  EXPECT_EQ(Stored("log/00000000000000000000.json"), "{\"commitInfo\":{}}");
  // A second writer of the same key, with other bytes, still loses.
  Status again = store_->PutIfAbsent("log/00000000000000000000.json", Buffer::Copy("{\"other\":1}"));
  EXPECT_TRUE(again.Is(StatusCode::kChanged)) << again.ToString();
}

TEST_F(S3ConditionalPut, RetriedCreateOverAnotherWritersObjectIsChanged) {
  ASSERT_TRUE(store_->Put("log/1.json", Buffer::Copy("theirs")).ok());
  // The first attempt fails without storing (503), the retry meets the other writer's object.
  ASSERT_TRUE(server_->AddFault("kind=503&count=1&retry_after=0&path=/bkt/log/").ok());
  Status st = store_->PutIfAbsent("log/1.json", Buffer::Copy("mine"));
  EXPECT_TRUE(st.Is(StatusCode::kChanged)) << st.ToString();
  EXPECT_EQ(Fired("503"), 1u);
  EXPECT_EQ(Stored("log/1.json"), "theirs");
  // Also when the answer of a conflicting attempt is lost (the retry's 412 is then checked too).
  ASSERT_TRUE(server_->AddFault("kind=lost&count=1&path=/bkt/log/").ok());
  st = store_->PutIfAbsent("log/1.json", Buffer::Copy("mine, longer"));
  EXPECT_TRUE(st.Is(StatusCode::kChanged)) << st.ToString();
  EXPECT_EQ(Stored("log/1.json"), "theirs");
}

TEST_F(S3ConditionalPut, LostAnswersOfPutAndDeleteAreRetried) {
  ASSERT_TRUE(server_->AddFault("kind=lost&count=2&path=/bkt/d/").ok());
  ASSERT_TRUE(store_->Put("d/x.bin", Buffer::Copy("payload")).ok());  // lost once, PUT again: same bytes
  EXPECT_EQ(Stored("d/x.bin"), "payload");
  ASSERT_TRUE(store_->Delete("d/x.bin").ok());  // deleted, answer lost, DELETE again: 200 for a missing key
  EXPECT_FALSE(fs::exists(dir_.Join("bkt/d/x.bin")));
  EXPECT_EQ(Fired("lost"), 2u);
}

}  // namespace
}  // namespace rap::io
