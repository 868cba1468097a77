// `rap serve` settings (rap/server/server_config.h): any bytes parse as a config document, and as a
// `--table` flag, into options or an error — the table's index, snapshot, as-of time and location
// map included (docs/server.md, docs/iceberg.md).
#include <string>

#include "fuzz/fuzz_target.h"
#include "rap/server/server_config.h"

RAP_FUZZ_TARGET(server_config) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  rap::server::ServerOptions options;
  (void)rap::server::ParseServerConfig(text, "fuzz", &options);
  (void)rap::server::ParseTableFlag(text);
  return 0;
}
