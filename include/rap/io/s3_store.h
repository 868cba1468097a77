// S3-compatible object store: SigV4-signed range GETs, HEAD, ListObjectsV2 (continuation tokens,
// parsed with pugixml) and single-request PUT. OpenUrl() creates these for s3://bucket/key URLs
// from LoadS3Config(); tests build one against a local endpoint.
//
// Signing is done by libcurl (CURLOPT_AWS_SIGV4 "aws:amz:REGION:s3"). Two curl 7.88 gaps are
// handled here: the store always sends x-amz-content-sha256 itself (UNSIGNED-PAYLOAD for GET/HEAD,
// the hex sha256 of the body for PUT), and every query string is built already sorted and encoded
// (curl signs the query as given). rap::io::sigv4 is an independent signer used by the tests to
// check both the AWS test vectors and the Authorization headers curl produced.
#pragma once

#include <string>

#include "rap/io/http_options.h"
#include "rap/io/object_store.h"
#include "rap/io/s3_config.h"

namespace rap::io {

Result<ObjectStorePtr> MakeS3Store(const std::string& bucket, const S3Config& config,
                                   const HttpOptions& options = HttpOptions());

}  // namespace rap::io
