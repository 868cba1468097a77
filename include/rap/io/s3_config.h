// S3Config: where and as whom the S3 store talks, from the standard AWS environment variables and
// shared config files, the way the AWS CLI/SDKs resolve them:
//   credentials  AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), else the profile
//                (AWS_PROFILE, default "default") in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials)
//                or AWS_CONFIG_FILE (~/.aws/config); none found, or RAP_S3_ANONYMOUS=1: anonymous
//   region       AWS_REGION, AWS_DEFAULT_REGION, the profile's region, else us-east-1
//   endpoint     AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url, else AWS
// A custom endpoint uses path-style addressing (http://host:port/bucket/key); AWS uses
// virtual-hosted style (https://bucket.s3.REGION.amazonaws.com/key), path-style for dotted buckets.
#pragma once

#include <string>

#include "rap/util/result.h"

namespace rap::io {

struct S3Config {
  std::string access_key_id;
  std::string secret_access_key;  // never printed
  std::string session_token;
  std::string region = "us-east-1";
  std::string endpoint_url;  // empty: AWS
  bool anonymous = false;
  std::string credentials_source;  // "environment", "profile 'p' in /root/.aws/credentials", ...

  // "access key id 'AKID...' (from environment)" or "anonymous access (...)": safe for messages.
  std::string DescribeCredentials() const;
  // A key that differs whenever two configs must not share a store (includes a secret digest).
  std::string CacheKey() const;
};

// Resolves the configuration from the environment and the shared files. Fails only on unreadable
// or inconsistent settings (e.g. an access key without a secret, or a missing named profile).
Result<S3Config> LoadS3Config();

}  // namespace rap::io
