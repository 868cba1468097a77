// Result<T>: a value or an error Status.
#pragma once

#include <cassert>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "rap/util/status.h"

namespace rap {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status without a value");
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status>>>
  Result(U&& value) : value_(std::forward<U>(value)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { Check(); return *value_; }
  const T& value() const& { Check(); return *value_; }
  T&& value() && { Check(); return std::move(*value_); }
  T ValueOr(T other) const& { return ok() ? *value_ : std::move(other); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void Check() const {
    if (!value_) {
      // Accessing the value of an error is a programming bug.
      std::abort();
    }
  }
  Status status_;
  std::optional<T> value_;
};

}  // namespace rap

// Evaluates `rexpr` (a Result); on error returns its Status, else moves the value into `lhs`.
#define RAP_ASSIGN_OR_RETURN(lhs, rexpr) RAP_ASSIGN_OR_RETURN_IMPL(RAP_CONCAT(_rap_res_, __LINE__), lhs, rexpr)
#define RAP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
