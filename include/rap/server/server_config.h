// Configuration of `rap serve`: a small JSON file plus command-line flags (flags win).
//
//   {
//     "listen": "127.0.0.1:8080",
//     "tables": { "events": { "url": "s3://bucket/events", "index": "s3://bucket/events/_rap_index/id" },
//                 "ice": { "url": "/data/ice", "snapshot": 7490459762454857930,       // or "as_of": "2026-02-12 13:37:44"
//                          "location_map": ["hdfs://nn:8020/wh/ice=/data/ice"] } },
//     "limits": { "max_in_flight": 32, "max_keys": 1000, "request_deadline_s": 30, ... },
//     "io_threads": 1, "scan_threads": 1, "refresh_interval_s": 10, "access_log": "-", "hedge_reads": true,
//     "hedge_quantile": 0.975, "hedge_max_extra": 0.05
//   }
//
// Every key of ServerLimits (rap/server/server.h) may appear under "limits"; an unknown key is an
// error (so a typo never silently leaves a default). S3 credentials come from the AWS environment
// variables (rap/io/s3_config.h), never from this file.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "rap/server/server.h"
#include "rap/util/result.h"

namespace rap::server {

// Parses a config document (JSON text) into `options` (keys present override its values).
Status ParseServerConfig(const std::string& json_text, const std::string& origin, ServerOptions* options);
// Reads and parses a config file.
Status LoadServerConfig(const std::string& path, ServerOptions* options);
// "host:port" or ":port" (host 127.0.0.1) or "[v6]:port".
Result<std::pair<std::string, uint16_t>> ParseListen(const std::string& text);
// "name=URL" then settings ",index=INDEX_URL", ",snapshot=ID", ",as-of=TIME", ",location-map=OLD=NEW"
// (repeatable) in any order.
Result<TableConfig> ParseTableFlag(const std::string& text);
// A URL with any user:password@ and query string (signatures, tokens) removed, for logs and /v1/tables.
std::string RedactUrl(const std::string& url);

}  // namespace rap::server
