// Writer time zones (src/orc/timezone.h) from the system tz database: transitions, the POSIX
// footer rule after the last transition, UTC names, and malformed zone files.
#include "orc/timezone.h"

#include <gtest/gtest.h>

namespace rap::orc {
namespace {

constexpr int64_t kHour = 3600;

TEST(OrcTimeZone, UtcNames) {
  for (const char* n : {"", "UTC", "GMT", "Etc/UTC"}) {
    auto z = TimeZone::Load(n);
    ASSERT_TRUE(z.ok()) << z.status().ToString();
    EXPECT_EQ((*z)->OffsetAt(1420070400), 0);
  }
}

TEST(OrcTimeZone, LosAngelesTransitionsAndFooterRule) {
  auto z = TimeZone::Load("America/Los_Angeles");
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ((*z)->OffsetAt(1420070400), -8 * kHour);                // 2015-01-01: PST
  EXPECT_EQ((*z)->OffsetAt(1435708800), -7 * kHour);                // 2015-07-01: PDT (a transition of the table)
  EXPECT_EQ((*z)->OffsetAt(2156630400 + 12 * kHour), -7 * kHour);   // 2038-05-05: PDT from the footer rule
  EXPECT_EQ((*z)->OffsetAt(2176416000), -8 * kHour);                // 2038-12-20: PST
  EXPECT_EQ((*z)->OffsetAt(4102444800 + 180 * 86400), -7 * kHour);  // 2100-06-30: PDT
  // 2038-03-14 (second Sunday of March) 02:00 PST = 10:00 UTC: PDT from then on.
  EXPECT_EQ((*z)->OffsetAt(2152173600 - 1), -8 * kHour);
  EXPECT_EQ((*z)->OffsetAt(2152173600), -7 * kHour);
}

TEST(OrcTimeZone, SouthernHemisphereRule) {
  auto z = TimeZone::Load("Australia/Sydney");
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ((*z)->OffsetAt(4102444800 + 15 * 86400), 11 * kHour);   // January 2100: AEDT
  EXPECT_EQ((*z)->OffsetAt(4102444800 + 180 * 86400), 10 * kHour);  // June 2100: AEST
}

TEST(OrcTimeZone, MissingAndMalformed) {
  auto missing = TimeZone::Load("Nowhere/Atlantis");
  EXPECT_TRUE(missing.status().Is(StatusCode::kNotFound)) << missing.status().ToString();
  auto escape = TimeZone::Load("../../etc/passwd");
  EXPECT_FALSE(escape.ok());
  EXPECT_TRUE(TimeZone::Parse("x", "TZif2").status().Is(StatusCode::kCorrupt));
  EXPECT_TRUE(TimeZone::Parse("x", std::string(60, 'a')).status().Is(StatusCode::kCorrupt));
  // A v1 header claiming more transitions than the bytes hold.
  std::string cut = "TZif";
  cut.resize(44, '\0');
  cut[20 + 3 * 4 + 3] = 100;  // timecnt = 100
  cut[20 + 4 * 4 + 3] = 1;    // typecnt = 1
  EXPECT_TRUE(TimeZone::Parse("x", cut).status().Is(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace rap::orc
