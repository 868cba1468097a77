// RAP_TEST_CHECK_OK: for helpers that return a value, where ASSERT_* cannot stop the test. When the
// Result or Status is an error, the test fails with its message and ends (an exception GoogleTest
// catches and reports), so no later line dereferences an error (which would abort the executable).
// In a test body or a void helper, use ASSERT_TRUE(r.ok()) as usual.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "rap/util/result.h"

namespace rap::testing {

inline std::string StatusText(const Status& s) { return s.ToString(); }
template <typename T>
std::string StatusText(const Result<T>& r) {
  return r.status().ToString();
}

}  // namespace rap::testing

#define RAP_TEST_CHECK_OK(r)                                                                  \
  do {                                                                                        \
    if (!(r).ok()) {                                                                          \
      const std::string rap_check_msg_ = std::string(#r) + ": " + ::rap::testing::StatusText(r); \
      ADD_FAILURE() << rap_check_msg_;                                                        \
      throw std::runtime_error("test stopped at a failed check: " + rap_check_msg_);          \
    }                                                                                         \
  } while (0)
