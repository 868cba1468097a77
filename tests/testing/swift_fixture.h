// SwiftEnvironment: a real S3-compatible server (OpenStack Swift with s3api, which verifies SigV4)
// for the S3 tests, started once per test executable through scripts/s3-swift.sh on free loopback
// ports and stopped at the end. Register it in a test file with
//   static auto* const kSwift = ::testing::AddGlobalTestEnvironment(new rap::testing::SwiftEnvironment());
// Listing pages hold at most 100 keys, so pagination is exercised with a few hundred keys.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rap/io/s3_config.h"
#include "testing/paths.h"

namespace rap::testing {

class SwiftEnvironment : public ::testing::Environment {
 public:
  static constexpr const char* kAccessKey = "test:tester";
  static constexpr const char* kSecret = "testing";
  static constexpr const char* kRegion = "us-east-1";
  static constexpr const char* kBucket = "rap-test";
  static constexpr int kMaxListing = 100;

  void SetUp() override;
  void TearDown() override;

  // The running instance (nullptr before SetUp); ok() false when it could not start.
  static SwiftEnvironment* Get() { return instance_; }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string endpoint_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Credentials, region and endpoint of this server, for io::MakeS3Store(kBucket, ...).
  io::S3Config s3_config() const {
    io::S3Config c;
    c.access_key_id = kAccessKey;
    c.secret_access_key = kSecret;
    c.region = kRegion;
    c.endpoint_url = endpoint_url();
    c.credentials_source = "test";
    return c;
  }

 private:
  static SwiftEnvironment* instance_;
  std::unique_ptr<TempDir> dir_;
  int port_ = 0;
  bool ok_ = false;
  std::string error_;
};

}  // namespace rap::testing
