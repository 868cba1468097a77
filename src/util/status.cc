#include "rap/util/status.h"

namespace rap {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kCorrupt: return "Corrupt";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kAccessDenied: return "Access denied";
    case StatusCode::kIOError: return "IO error";
    case StatusCode::kTimeout: return "Timeout";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kChanged: return "Changed";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kResourceExhausted: return "Resource exhausted";
    case StatusCode::kInternal: return "Internal error";
  }
  return "Unknown";
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) state_ = std::make_shared<State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(StatusCodeName(code()));
  s += ": ";
  s += state_->message;
  return s;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += state_->message;
  return Status(code(), std::move(m));
}

}  // namespace rap
