#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rap/columnar/column_builder.h"
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


// The grammar in literal.h, case by case, through the Status forms (which say what was wrong).
TEST(Literal, OneGrammar) {
  TimestampLiteral t;
  ASSERT_TRUE(ParseTimestamp(" 2024-01-02T03:04:05.000000007+0130 ", &t).ok());
  EXPECT_EQ(t.seconds, *ParseTimestampMicros("2024-01-02 01:34:05") / 1000000);
  EXPECT_EQ(t.nanos, 7);
  EXPECT_EQ(ParseTimestampMicros("2024-01-02+02"), ParseTimestampMicros("2024-01-01T22:00"));
  EXPECT_EQ(ParseTimestampMicros("2024-01-02t00:00z"), ParseTimestampMicros("2024-01-02"));
  EXPECT_EQ(ParseTimestampMicros("1970-01-01 00:00:00.1234567891234"), 123456);  // past 9 digits: ignored
  EXPECT_EQ(ParseTimestampMicros("1969-12-31 23:59:59.5"), -500000);
  Status bad = ParseTimestamp("2024-01-02 03:04:05+1x", &t);
  EXPECT_NE(bad.message().find("bad UTC offset"), std::string::npos) << bad.ToString();
  int64_t nanos = 0;
  EXPECT_TRUE(ParseTimeOfDay("23:59:60", &nanos).ok());  // a leap second as written
  EXPECT_FALSE(ParseTimeOfDay("12:00:00abc", &nanos).ok());
  EXPECT_TRUE(ParseTimeOfDay("14:45:38.758051837Z", &nanos).ok());  // adjusted to UTC, as rap renders it
  EXPECT_EQ(nanos, ((14 * 60 + 45) * 60 + 38) * 1000000000LL + 758051837);
  EXPECT_EQ(ParseDate("+10000-01-01").has_value(), true);
  EXPECT_FALSE(ParseDate("999-01-01").has_value());
  __int128 v = 0;
  EXPECT_NE(ParseDecimal("1.55", 1, &v).message().find("more than 1 decimal places"), std::string::npos);
  EXPECT_NE(ParseDecimal("1e", 0, &v).message().find("empty exponent"), std::string::npos);
  EXPECT_TRUE(ParseInteger("18446744073709551615", &v).ok());
  EXPECT_FALSE(ParseInteger("18446744073709551616", &v).ok());
  EXPECT_FALSE(ParseInteger("1.0", &v).ok());
  double d = 0;
  EXPECT_TRUE(ParseDouble("-INF", &d).ok());
  EXPECT_EQ(d, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseDouble("1e400", &d).ok());
  EXPECT_EQ(d, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(ParseDouble("+-1", &d).ok());
  EXPECT_FALSE(ParseDouble("0x10", &d).ok());
  bool b = false;
  EXPECT_TRUE(ParseBool(" Yes", &b).ok() && b);
  EXPECT_FALSE(ParseBool("maybe", &b).ok());
}

// The column builders read text with the same grammar as filters: the same strings give the same
// values (a timestamp column in microseconds against ParseTimestampMicros, a date column against
// ParseDate, a decimal column against ParseDecimal).
TEST(Literal, BuildersAgreeWithFilters) {
  const std::vector<std::string> stamps = {"2024-01-02", "2024-01-02T03:04:05.25Z", "1969-12-31 23:59:59",
                                           "2024-06-30 12:00-07:00", "+10000-01-01 00:00:00.000001"};
  auto ts = MakeColumnBuilder(Field{"t", MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC")});
  for (const auto& s : stamps) ASSERT_TRUE(ts->AppendText(s).ok()) << s;
  ArrayPtr a = ts->Finish();
  for (size_t i = 0; i < stamps.size(); ++i) EXPECT_EQ(a->values<int64_t>()[i], *ParseTimestampMicros(stamps[i])) << stamps[i];

  auto dec = MakeColumnBuilder(Field{"d", MakeDecimal(10, 2)});
  for (const char* s : {"-12.5", "1E+3", "0.10"}) ASSERT_TRUE(dec->AppendText(s).ok()) << s;
  EXPECT_FALSE(dec->AppendText("1.234").ok());
  EXPECT_FALSE(dec->AppendText("1e9").ok());  // 11 digits at scale 2: beyond decimal(10, 2)
  a = dec->Finish();
  EXPECT_EQ(a->values<__int128>()[0], *ParseDecimal("-12.5", 2));
  EXPECT_EQ(a->values<__int128>()[1], *ParseDecimal("1E+3", 2));

  auto i8 = MakeColumnBuilder(Field{"i", MakeType(TypeId::kInt8)});
  EXPECT_TRUE(i8->AppendText(" -128").ok());
  Status over = i8->AppendText("128");
  EXPECT_NE(over.message().find("does not fit int8"), std::string::npos) << over.ToString();
  Status notint = i8->AppendText("1.5");
  EXPECT_NE(notint.message().find("is not an integer (int8)"), std::string::npos) << notint.ToString();
}

}  // namespace
}  // namespace rap::columnar
