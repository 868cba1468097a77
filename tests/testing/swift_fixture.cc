#include "testing/swift_fixture.h"

#include <unistd.h>

#include <cstdlib>

#include "testing/nginx_fixture.h"

namespace rap::testing {

SwiftEnvironment* SwiftEnvironment::instance_ = nullptr;

void SwiftEnvironment::SetUp() {
  instance_ = this;
  std::string script = SourceDir() + "/scripts/s3-swift.sh";
  if (::access(script.c_str(), X_OK) != 0 || ::access("/usr/bin/swift-proxy-server", X_OK) != 0) {
    error_ = "Swift is not available (" + script + ", package swift-proxy; see scripts/install-deps.sh)";
    return;
  }
  dir_ = std::make_unique<TempDir>();
  for (int attempt = 0; attempt < 3 && !ok_; ++attempt) {
    port_ = PickFreePort(5);
    std::string cmd = "RAP_SWIFT_MAX_LISTING=" + std::to_string(kMaxListing) + " '" + script + "' start '" +
                      dir_->Join("swift") + "' " + std::to_string(port_) + " " + kBucket + " > '" +
                      dir_->Join("start.log") + "' 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
    if (!ok_) error_ = "scripts/s3-swift.sh start failed: " + ReadFileToString(dir_->Join("start.log"));
  }
}

void SwiftEnvironment::TearDown() {
  if (dir_) {
    std::string cmd = "'" + SourceDir() + "/scripts/s3-swift.sh' stop '" + dir_->Join("swift") + "' > /dev/null 2>&1";
    (void)std::system(cmd.c_str());
  }
  dir_.reset();
  instance_ = nullptr;
}

}  // namespace rap::testing
