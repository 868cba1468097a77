#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "rap/columnar/literal.h"

namespace rap::columnar {
namespace {

TEST(Literal, Parsing) {
  EXPECT_EQ(ParseDate("1970-01-01"), 0);
  EXPECT_EQ(ParseDate("2000-03-01"), 11017);
  EXPECT_EQ(ParseDate("1969-12-31"), -1);
  EXPECT_FALSE(ParseDate("2023-02-29").has_value());
  EXPECT_EQ(ParseTimestampMicros("1970-01-01 00:00:01.5"), 1500000);
  EXPECT_EQ(ParseTimestampMicros("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(ParseTimestampMicros("1970-01-01 00:00:00.123456789"), 123456);
  EXPECT_FALSE(ParseTimestampMicros("1970-01-01 25:00:00").has_value());
  // int64 microseconds reach 294247-01-10T04:00:54.775807Z; later (or before -290308) is no timestamp
  // (the year 400448 overflowed the multiplication, found by the where fuzz target).
  EXPECT_EQ(ParseTimestampMicros("294247-01-10T04:00:54.775807"), std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(ParseTimestampMicros("294247-01-10T04:00:54.775808").has_value());
  EXPECT_FALSE(ParseTimestampMicros("400448-04-01T00:00:04-04:00").has_value());
  EXPECT_FALSE(ParseTimestampMicros("-400448-04-01").has_value());
  EXPECT_EQ(ParseDecimal("-12.5", 2), static_cast<__int128>(-1250));
  EXPECT_EQ(ParseDecimal("1E+3", 0), static_cast<__int128>(1000));
  EXPECT_EQ(ParseDecimal("1.50", 1), static_cast<__int128>(15));
  EXPECT_FALSE(ParseDecimal("1.55", 1).has_value());
  EXPECT_FALSE(ParseDecimal("1" + std::string(40, '0'), 0).has_value());
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808").has_value());
  EXPECT_FALSE(ParseDouble("1.5x").has_value());
}

}  // namespace
}  // namespace rap::columnar
