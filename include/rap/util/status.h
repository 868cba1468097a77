// Status: the error value of rap. Errors are values; no exceptions cross a module boundary.
// A message names the object, the structure and the byte offset, and says what was expected,
// e.g. "data.parquet: page header at offset 4242: compressed_page_size -5 is negative".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace rap {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,   // bad input from the caller (options, CLI arguments, expressions)
  kCorrupt,           // malformed bytes in a file or a response
  kNotFound,          // object, column or key does not exist
  kAccessDenied,      // 401/403 from a store
  kIOError,           // transport or filesystem failure
  kTimeout,           // deadline exceeded
  kCancelled,         // the caller cancelled the operation
  kChanged,           // the object changed while it was being read
  kNotSupported,      // valid input that rap does not handle (e.g. encrypted Parquet)
  kResourceExhausted, // a configured memory/size limit would be exceeded
  kInternal,          // a bug in rap
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status Corrupt(std::string m) { return {StatusCode::kCorrupt, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AccessDenied(std::string m) { return {StatusCode::kAccessDenied, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Changed(std::string m) { return {StatusCode::kChanged, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  // "Corrupt: <message>" or "OK".
  std::string ToString() const;
  // Returns a copy whose message is "<context>: <message>" (OK stays OK).
  Status WithContext(std::string_view context) const;

  bool Is(StatusCode c) const { return code() == c; }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

}  // namespace rap

#define RAP_CONCAT_IMPL(a, b) a##b
#define RAP_CONCAT(a, b) RAP_CONCAT_IMPL(a, b)

// Returns the Status of `expr` from the enclosing function if it is not OK.
#define RAP_RETURN_NOT_OK(expr)                 \
  do {                                          \
    ::rap::Status _rap_st = (expr);             \
    if (!_rap_st.ok()) return _rap_st;          \
  } while (false)
