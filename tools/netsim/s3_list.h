// The S3 ListObjectsV2 call of rap-netsim (path-style: GET /BUCKET/?list-type=2&prefix=P
// [&continuation-token=T][&max-keys=N]): the regular files under ROOT/BUCKET whose key (path
// relative to the bucket directory) starts with P, sorted, at most N (default 1000) per page, as the
// XML S3 returns. Any signature is accepted (rap-netsim never checks Authorization). Together with
// GET (ranged) and HEAD of ROOT/BUCKET/KEY this is every S3 call rap's S3 store makes, so
// `s3://BUCKET/...` tables can be read through rap-netsim with AWS_ENDPOINT_URL pointing at it.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "rap/util/result.h"

namespace rap::netsim {

// True when the request is a ListObjectsV2 call.
bool IsListObjectsV2(const std::map<std::string, std::string>& query);

// The response body; NotFound when the bucket directory does not exist, InvalidArgument for a bad
// max-keys.
Result<std::string> ListObjectsV2(const std::filesystem::path& root, const std::string& bucket,
                                  const std::map<std::string, std::string>& query);

}  // namespace rap::netsim
