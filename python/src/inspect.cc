// rap._rap.inspect: the report of `rap inspect --json` (tools/inspect_report.h) as JSON text.
#include <nanobind/stl/string.h>

#include "binding.h"
#include "inspect_report.h"

namespace rap::py {
namespace {

std::string Inspect(const std::string& url, bool pages, bool frames, nb::handle storage_options) {
  const EnvOverlay overlay = ParseStorageOptions(storage_options);
  cli::InspectOptions o;
  o.file = url;
  o.pages = pages;
  o.frames = frames;
  Status late;
  auto report = WithStorageOptions(overlay, [&]() -> Result<std::string> {
    RAP_ASSIGN_OR_RETURN(auto j, cli::InspectReport(o, &late));
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  });
  if (!report.ok()) Raise(report.status());
  if (!late.ok()) Raise(late);  // as the CLI: a page walk that failed fails the call
  return std::move(*report);
}

}  // namespace

void BindInspect(nb::module_& m) {
  m.def("inspect", &Inspect, nb::arg("url"), nb::arg("pages") = false, nb::arg("frames") = false,
        nb::arg("storage_options") = nb::none());
}

}  // namespace rap::py
