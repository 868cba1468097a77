#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "rap/columnar/array.h"
#include "rap/columnar/array_format.h"
#include "rap/columnar/take.h"
#include "rap/format/schema.h"
#include "rap/format/statistics.h"

#include "format/layout_testing.h"

namespace rap::columnar {
namespace {

template <typename T>
Buffer Values(std::vector<T> v) {
  return Buffer::Copy(v.data(), v.size() * sizeof(T));
}

Buffer Bitmap(const std::vector<bool>& bits) {
  std::vector<uint8_t> b((bits.size() + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) b[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return Buffer::FromVector(std::move(b));
}

ArrayPtr Int32Array(std::vector<int32_t> v, std::vector<bool> valid = {}) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kInt32);
  a->length = static_cast<int64_t>(v.size());
  a->buffers = {valid.empty() ? Buffer() : Bitmap(valid), Values(v)};
  for (bool b : valid) a->null_count += b ? 0 : 1;
  return a;
}

ArrayPtr StringArray(const std::vector<std::string>& v, std::vector<bool> valid = {}) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeType(TypeId::kString);
  a->length = static_cast<int64_t>(v.size());
  std::vector<int32_t> offs{0};
  std::string data;
  for (const auto& s : v) {
    data += s;
    offs.push_back(static_cast<int32_t>(data.size()));
  }
  a->buffers = {valid.empty() ? Buffer() : Bitmap(valid), Values(offs), Buffer::FromString(std::move(data))};
  for (bool b : valid) a->null_count += b ? 0 : 1;
  return a;
}

ArrayPtr ListArray(ArrayPtr child, std::vector<int32_t> offs, std::vector<bool> valid = {}) {
  auto a = std::make_shared<ArrayData>();
  a->type = MakeList(Field{"item", child->type, true});
  a->length = static_cast<int64_t>(offs.size()) - 1;
  a->buffers = {valid.empty() ? Buffer() : Bitmap(valid), Values(offs)};
  for (bool b : valid) a->null_count += b ? 0 : 1;
  a->children = {std::move(child)};
  return a;
}

TEST(DataType, ToStringAndWidths) {
  EXPECT_EQ(MakeType(TypeId::kInt64)->ToString(), "int64");
  EXPECT_EQ(MakeTemporal(TypeId::kTimestamp, TimeUnit::kMicro, "UTC")->ToString(), "timestamp[us, tz=UTC]");
  EXPECT_EQ(MakeTemporal(TypeId::kTime32, TimeUnit::kMilli)->ToString(), "time32[ms]");
  EXPECT_EQ(MakeDecimal(10, 2)->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(MakeList(Field{"item", MakeType(TypeId::kString), true})->ToString(), "list<item: string>");
  EXPECT_EQ(MakeMap(Field{"key", MakeType(TypeId::kString)}, Field{"value", MakeType(TypeId::kInt32)})->ToString(),
            "map<string, int32>");
  EXPECT_EQ(MakeStruct({Field{"a", MakeType(TypeId::kInt32), false}})->ToString(), "struct<a: int32 not null>");
  EXPECT_EQ(MakeType(TypeId::kBool)->FixedWidth(), 0);
  EXPECT_EQ(MakeType(TypeId::kFloat16)->FixedWidth(), 2);
  EXPECT_EQ(MakeDecimal(38, 0)->FixedWidth(), 16);
  EXPECT_EQ(MakeFixedSizeBinary(7)->FixedWidth(), 7);
  EXPECT_EQ(MakeType(TypeId::kString)->FixedWidth(), -1);
  Schema s{{Field{"x", MakeType(TypeId::kInt8)}, Field{"y", MakeType(TypeId::kInt8)}}};
  EXPECT_EQ(s.FieldIndex("y"), 1);
  EXPECT_EQ(s.FieldIndex("z"), -1);
}

TEST(Array, ValidateCatchesProblems) {
  auto ok = Int32Array({1, 2, 3}, {true, false, true});
  EXPECT_TRUE(ValidateArray(*ok).ok());
  auto bad = std::make_shared<ArrayData>(*ok);
  bad->null_count = 2;
  EXPECT_TRUE(ValidateArray(*bad).Is(StatusCode::kCorrupt));
  bad = std::make_shared<ArrayData>(*ok);
  bad->length = 4;
  bad->null_count = -1;
  EXPECT_TRUE(ValidateArray(*bad).Is(StatusCode::kCorrupt));

  auto s = StringArray({"ab", "", "cde"});
  EXPECT_TRUE(ValidateArray(*s).ok());
  auto bs = std::make_shared<ArrayData>(*s);
  bs->buffers[1] = Values(std::vector<int32_t>{0, 2, 1, 5});
  Status st = ValidateArray(*bs);
  EXPECT_TRUE(st.Is(StatusCode::kCorrupt));
  EXPECT_NE(st.message().find("offsets decrease"), std::string::npos) << st.ToString();
  bs->buffers[1] = Values(std::vector<int32_t>{0, 2, 2, 9});
  EXPECT_TRUE(ValidateArray(*bs).Is(StatusCode::kCorrupt));

  auto l = ListArray(Int32Array({1, 2, 3}), {0, 2, 3});
  EXPECT_TRUE(ValidateArray(*l).ok());
  auto bl = ListArray(Int32Array({1, 2, 3}), {0, 2, 4});
  EXPECT_TRUE(ValidateArray(*bl).Is(StatusCode::kCorrupt));
}

TEST(Array, SliceIsZeroCopy) {
  auto a = Int32Array({1, 2, 3, 4}, {true, false, true, true});
  auto s = SliceArray(a, 1, 2);
  EXPECT_EQ(s->length, 2);
  EXPECT_EQ(s->null_count, -1);
  EXPECT_EQ(s->buffers[1].data(), a->buffers[1].data());
  EXPECT_TRUE(s->IsNull(0));
  EXPECT_EQ(s->values<int32_t>()[1], 3);
  EXPECT_TRUE(ValidateArray(*s).ok());
  auto clamped = SliceArray(a, 3, 10);
  EXPECT_EQ(clamped->length, 1);
}

TEST(Array, ConcatFixedStringsAndLists) {
  auto a = Int32Array({1, 2}, {true, false});
  auto b = SliceArray(Int32Array({7, 8, 9}), 1, 2);
  auto r = ConcatArrays({a, b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ArrayData& c = **r;
  EXPECT_EQ(c.length, 4);
  EXPECT_EQ(c.null_count, 1);
  EXPECT_TRUE(ValidateArray(c).ok());
  EXPECT_EQ(FormatValue(c, 0), "1");
  EXPECT_EQ(FormatValue(c, 1), "null");
  EXPECT_EQ(FormatValue(c, 3), "9");

  auto s = ConcatArrays({SliceArray(StringArray({"x", "yy", "zzz"}), 1, 2), StringArray({"w"}, {false})});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(ValidateArray(**s).ok());
  EXPECT_EQ(FormatValue(**s, 0), "yy");
  EXPECT_EQ(FormatValue(**s, 1), "zzz");
  EXPECT_EQ(FormatValue(**s, 2), "null");

  auto l1 = ListArray(StringArray({"a", "b", "c"}), {0, 1, 3});
  auto l2 = ListArray(StringArray({"d"}), {0, 0, 1}, {false, true});
  auto l = ConcatArrays({SliceArray(l1, 1, 1), l2});
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(ValidateArray(**l).ok());
  EXPECT_EQ((*l)->length, 3);
  EXPECT_EQ(FormatValue(**l, 0), "[\"b\", \"c\"]");
  EXPECT_EQ(FormatValue(**l, 1), "null");
  EXPECT_EQ(FormatValue(**l, 2), "[\"d\"]");

  EXPECT_TRUE(ConcatArrays({a, StringArray({"x"})}).status().Is(StatusCode::kInvalidArgument));
  EXPECT_FALSE(ConcatArrays({}).ok());
}

TEST(Array, FormatTemporalDecimalStruct) {
  auto d = std::make_shared<ArrayData>();
  d->type = MakeTemporal(TypeId::kDate32, TimeUnit::kSecond);
  d->length = 2;
  d->buffers = {Buffer(), Values(std::vector<int32_t>{0, 19000})};
  EXPECT_EQ(FormatValue(*d, 0), "1970-01-01");
  EXPECT_EQ(FormatValue(*d, 1), "2022-01-08");

  auto ts = std::make_shared<ArrayData>();
  ts->type = MakeTemporal(TypeId::kTimestamp, TimeUnit::kMilli, "UTC");
  ts->length = 2;
  ts->buffers = {Buffer(), Values(std::vector<int64_t>{1230768000000LL, -1})};
  EXPECT_EQ(FormatValue(*ts, 0), "2009-01-01 00:00:00.000Z");
  EXPECT_EQ(FormatValue(*ts, 1), "1969-12-31 23:59:59.999Z");

  auto dec = std::make_shared<ArrayData>();
  dec->type = MakeDecimal(10, 2);
  dec->length = 2;
  std::vector<int64_t> raw{12345, 0, -5, -1};  // two 16-byte LE values
  dec->buffers = {Buffer(), Values(raw)};
  EXPECT_EQ(FormatValue(*dec, 0), "123.45");
  EXPECT_EQ(FormatValue(*dec, 1), "-0.05");

  auto st = std::make_shared<ArrayData>();
  st->type = MakeStruct({Field{"a", MakeType(TypeId::kInt32)}, Field{"b", MakeType(TypeId::kString)}});
  st->length = 2;
  st->buffers = {Buffer()};
  st->children = {Int32Array({1, 2}), StringArray({"p", "q\"r"})};
  EXPECT_TRUE(ValidateArray(*st).ok());
  EXPECT_EQ(FormatValue(*SliceArray(st, 1, 1), 0), "{\"a\": 2, \"b\": \"q\\\"r\"}");

  auto h = std::make_shared<ArrayData>();
  h->type = MakeType(TypeId::kFloat16);
  h->length = 3;
  h->buffers = {Buffer(), Values(std::vector<uint16_t>{0x3c00, 0xc000, 0x7e00})};
  EXPECT_EQ(FormatValue(*h, 0), "1.0");
  EXPECT_EQ(FormatValue(*h, 1), "-2.0");
  EXPECT_EQ(FormatValue(*h, 2), "NaN");
}

// --- output rules (README "Output values"), one test each --------------------------------------

ArrayPtr Fixed(DataTypePtr type, Buffer values, int64_t n) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = n;
  a->buffers = {Buffer(), std::move(values)};
  return a;
}

DataTypePtr WithExtension(DataTypePtr t, const std::string& ext) {
  auto c = std::make_shared<DataType>(*t);
  c->extension = ext;
  return c;
}

// Floats read back bit-exact as floats of their type, and always look like floats.
TEST(OutputRules, FloatsReadBackBitExactAndLookLikeFloats) {
  const std::vector<double> d = {13165.0, -0.0, 0.0, 0.1, 1e300, -2.5e-310, 123456789012345680.0, 1.0 / 3};
  auto da = Fixed(MakeType(TypeId::kFloat64), Values(d), static_cast<int64_t>(d.size()));
  EXPECT_EQ(FormatValue(*da, 0), "13165.0");
  EXPECT_EQ(FormatValue(*da, 1), "-0.0");
  EXPECT_EQ(FormatValue(*da, 2), "0.0");
  EXPECT_EQ(FormatValue(*da, 3), "0.1");
  EXPECT_EQ(FormatJsonValue(*da, 0), "13165.0");
  for (size_t i = 0; i < d.size(); ++i) {
    const std::string text = FormatValue(*da, static_cast<int64_t>(i));
    EXPECT_NE(text.find_first_of(".e"), std::string::npos) << text;
    const double back = std::strtod(text.c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&back, &d[i], 8), 0) << text;
  }
  const std::vector<float> f = {0.1f, 13165.0f, -0.0f, 3.4e38f, 1e-45f};
  auto fa = Fixed(MakeType(TypeId::kFloat32), Values(f), static_cast<int64_t>(f.size()));
  EXPECT_EQ(FormatValue(*fa, 0), "0.1");  // the float's shortest form, not the double's
  EXPECT_EQ(FormatValue(*fa, 1), "13165.0");
  EXPECT_EQ(FormatValue(*fa, 2), "-0.0");
  for (size_t i = 0; i < f.size(); ++i) {
    const std::string text = FormatValue(*fa, static_cast<int64_t>(i));
    const float back = std::strtof(text.c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&back, &f[i], 4), 0) << text;
  }
}

// NaN and infinities: bare in text, quoted strings in JSON (JSON has no such numbers).
TEST(OutputRules, NanAndInfinities) {
  const std::vector<double> d = {std::nan(""), INFINITY, -INFINITY};
  auto da = Fixed(MakeType(TypeId::kFloat64), Values(d), 3);
  EXPECT_EQ(FormatValue(*da, 0), "NaN");
  EXPECT_EQ(FormatValue(*da, 1), "inf");
  EXPECT_EQ(FormatValue(*da, 2), "-inf");
  EXPECT_EQ(FormatJsonValue(*da, 0), "\"NaN\"");
  EXPECT_EQ(FormatJsonValue(*da, 1), "\"inf\"");
  EXPECT_EQ(FormatJsonValue(*da, 2), "\"-inf\"");
}

// One rendering for all binary: 0x and lowercase hex, for BYTE_ARRAY and for FIXED_LEN_BYTE_ARRAY
// without a logical type alike (never the bytes as text); UUIDs keep their own form.
TEST(OutputRules, BinaryIsHexWithMarker) {
  auto b = std::make_shared<ArrayData>();
  b->type = MakeType(TypeId::kBinary);
  b->length = 3;
  b->buffers = {Buffer(), Values(std::vector<int32_t>{0, 3, 3, 5}), Buffer::Copy(std::string("ab\\\x00\xff", 5))};
  EXPECT_EQ(FormatValue(*b, 0), "0x61625c");
  EXPECT_EQ(FormatValue(*b, 1), "0x");
  EXPECT_EQ(FormatValue(*b, 2), "0x00ff");
  EXPECT_EQ(FormatJsonValue(*b, 0), "\"0x61625c\"");
  auto fsb = Fixed(MakeFixedSizeBinary(2), Buffer::Copy(std::string("ab")), 1);
  EXPECT_EQ(FormatValue(*fsb, 0), "0x6162");
  std::string u(16, '\0');
  u[0] = '\x12';
  u[15] = '\x34';
  auto uuid = Fixed(WithExtension(MakeFixedSizeBinary(16), "uuid"), Buffer::Copy(u), 1);
  EXPECT_EQ(FormatValue(*uuid, 0), "12000000-0000-0000-0000-000000000034");
}

// INTERVAL (months, days, milliseconds) as an ISO 8601 duration.
TEST(OutputRules, IntervalIsIso8601Duration) {
  const std::vector<uint32_t> v = {14, 3, 3723004, 0, 0, 0, 1, 0, 0, 0, 0, 500, 0, 40, 60000};
  auto a = Fixed(WithExtension(MakeFixedSizeBinary(12), "interval"), Values(v), 5);
  EXPECT_EQ(FormatValue(*a, 0), "P1Y2M3DT1H2M3.004S");
  EXPECT_EQ(FormatValue(*a, 1), "PT0S");
  EXPECT_EQ(FormatValue(*a, 2), "P1M");
  EXPECT_EQ(FormatValue(*a, 3), "PT0.500S");
  EXPECT_EQ(FormatValue(*a, 4), "P40DT1M");
  EXPECT_EQ(FormatJsonValue(*a, 0), "\"P1Y2M3DT1H2M3.004S\"");
}

// TIME adjusted to UTC keeps its marker, as timestamps do; local times have none.
TEST(OutputRules, TimeAdjustedToUtcEndsInZ) {
  auto utc = Fixed(MakeTemporal(TypeId::kTime64, TimeUnit::kMicro, "UTC"), Values(std::vector<int64_t>{3723000004}), 1);
  EXPECT_EQ(FormatValue(*utc, 0), "01:02:03.000004Z");
  auto local = Fixed(MakeTemporal(TypeId::kTime32, TimeUnit::kMilli), Values(std::vector<int32_t>{3723004}), 1);
  EXPECT_EQ(FormatValue(*local, 0), "01:02:03.004");
  auto utc32 = Fixed(MakeTemporal(TypeId::kTime32, TimeUnit::kMilli, "UTC"), Values(std::vector<int32_t>{0}), 1);
  EXPECT_EQ(FormatJsonValue(*utc32, 0), "\"00:00:00.000Z\"");
}

// JSON columns are inlined as JSON values in JSON output (compact, keys in order); invalid JSON
// text stays a string; text output prints the text.
TEST(OutputRules, JsonColumnsInlineInJson) {
  auto s = StringArray({"{\"b\": [1, 2.5],\n \"a\": null}", "not json", "\"x\""});
  auto j = std::make_shared<ArrayData>(*s);
  j->type = WithExtension(MakeType(TypeId::kString), "json");
  EXPECT_EQ(FormatJsonValue(*j, 0), "{\"b\":[1,2.5],\"a\":null}");
  EXPECT_EQ(FormatJsonValue(*j, 1), "\"not json\"");
  EXPECT_EQ(FormatJsonValue(*j, 2), "\"x\"");
  EXPECT_EQ(FormatValue(*j, 1), "not json");
  EXPECT_EQ(FormatJsonValue(*s, 0), "\"{\\\"b\\\": [1, 2.5],\\n \\\"a\\\": null}\"");  // plain strings stay strings
}

// Random doubles (any bit pattern: subnormals, huge and tiny exponents) and the edges read back bit
// for bit from the text and from the JSON, where a parser sees a float, not an integer.
TEST(OutputRules, RandomDoublesAndFloatsRoundTripBitExact) {
  std::mt19937_64 rng(20261201);
  std::vector<double> d = {-0.0,
                           0.0,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::min(),
                           -std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(),
                           -std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::epsilon(),
                           9007199254740993.0,
                           1e22,
                           1e23,
                           5e-324,
                           2.2250738585072009e-308};  // the largest subnormal
  for (int k = 0; k < 4000; ++k) {
    uint64_t bits = rng();
    if (k % 4 == 0) bits &= 0x800fffffffffffffull;  // a subnormal (or zero)
    double v;
    std::memcpy(&v, &bits, 8);
    if (std::isfinite(v)) d.push_back(v);
  }
  for (int k = 0; k < 500; ++k) d.push_back(static_cast<double>(static_cast<int64_t>(rng() % 2000001) - 1000000));
  auto da = Fixed(MakeType(TypeId::kFloat64), Values(d), static_cast<int64_t>(d.size()));
  for (size_t i = 0; i < d.size(); ++i) {
    const std::string text = FormatValue(*da, static_cast<int64_t>(i));
    ASSERT_NE(text.find_first_of(".e"), std::string::npos) << text;
    const double back = std::strtod(text.c_str(), nullptr);
    ASSERT_EQ(std::memcmp(&back, &d[i], 8), 0) << text;
    const std::string json = FormatJsonValue(*da, static_cast<int64_t>(i));
    const auto parsed = nlohmann::json::parse(json);
    ASSERT_TRUE(parsed.is_number_float()) << json;
    const double from_json = parsed.get<double>();
    ASSERT_EQ(std::memcmp(&from_json, &d[i], 8), 0) << json;
  }
  std::vector<float> f = {-0.0f, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                          std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(), 16777217.0f};
  for (int k = 0; k < 4000; ++k) {
    uint32_t bits = static_cast<uint32_t>(rng());
    if (k % 4 == 0) bits &= 0x807fffffu;
    float v;
    std::memcpy(&v, &bits, 4);
    if (std::isfinite(v)) f.push_back(v);
  }
  auto fa = Fixed(MakeType(TypeId::kFloat32), Values(f), static_cast<int64_t>(f.size()));
  for (size_t i = 0; i < f.size(); ++i) {
    const std::string text = FormatJsonValue(*fa, static_cast<int64_t>(i));
    ASSERT_NE(text.find_first_of(".e"), std::string::npos) << text;
    const float back = std::strtof(text.c_str(), nullptr);
    ASSERT_EQ(std::memcmp(&back, &f[i], 4), 0) << text;
    std::string digits = text.substr(0, text.find('e'));  // the significant digits: at most 9 for a float
    std::erase_if(digits, [](char c) { return c == '-' || c == '.'; });
    digits.erase(0, digits.find_first_not_of('0'));
    digits.erase(digits.find_last_not_of('0') + 1);
    ASSERT_LE(digits.size(), 9u) << text;  // the float's own shortest form, not the double's 17 digits
  }
}

// The float16 nearest to `v` (ties to the even bit pattern), found by search over the float16
// values themselves: an oracle independent of the formatter's conversion.
uint16_t NearestHalf(double v) {
  auto value = [](uint16_t h) { return static_cast<double>(parquet::HalfToFloat(h)); };
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  uint16_t lo = 0, hi = 0x7c00;  // +0 .. +inf, increasing with the bit pattern
  while (hi - lo > 1) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    (value(mid) <= a ? lo : hi) = mid;
  }
  const double dl = a - value(lo), dh = value(hi) - a;
  const uint16_t pick = dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo);
  return sign | pick;
}

// Every float16 prints as the shortest decimal that reads back as the same float16 (not the
// float32 text of its value), looking like a float.
TEST(OutputRules, EveryFloat16ReadsBackBitExact) {
  std::vector<uint16_t> all;
  for (uint32_t h = 0; h < 0x10000; ++h) all.push_back(static_cast<uint16_t>(h));
  auto a = Fixed(WithExtension(MakeType(TypeId::kFloat16), "float16"), Values(all), static_cast<int64_t>(all.size()));
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const std::string text = FormatValue(*a, h);
    const float v = parquet::HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(v)) {
      ASSERT_EQ(text, "NaN");
      continue;
    }
    if (std::isinf(v)) {
      ASSERT_EQ(text, v > 0 ? "inf" : "-inf");
      continue;
    }
    ASSERT_NE(text.find_first_of(".e"), std::string::npos) << text;
    ASSERT_EQ(NearestHalf(std::strtod(text.c_str(), nullptr)), h) << std::hex << h << " " << text;
    ASSERT_EQ(NearestHalf(std::strtof(text.c_str(), nullptr)), h) << std::hex << h << " " << text;
  }
  EXPECT_EQ(FormatValue(*a, 0x2e66), "0.1");  // 0.0999755859375; its float32 text is 0.099975586
  EXPECT_EQ(FormatValue(*a, 0x3c00), "1.0");
  EXPECT_EQ(FormatValue(*a, 0x8000), "-0.0");
  EXPECT_EQ(FormatValue(*a, 0x7bff), "65500.0");  // the largest float16, 65504: 65500 is nearer to it than to 65472
  EXPECT_EQ(FormatValue(*a, 0x5bff), "255.9");    // 255.875
  EXPECT_EQ(FormatValue(*a, 0x0001), "6e-08");  // the smallest subnormal, 2^-24
  EXPECT_EQ(FormatValue(*a, 0x3555), "0.3333");
  EXPECT_EQ(FormatJsonValue(*a, 0x7e00), "\"NaN\"");
}

// JSON strings are always valid UTF-8: a byte that starts no well-formed sequence (a stray
// continuation, an overlong form, a surrogate, a truncated sequence, > U+10FFFF) becomes U+FFFD.
TEST(OutputRules, JsonStringsAreValidUtf8) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(columnar::JsonQuote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  EXPECT_EQ(columnar::JsonQuote("a\xFFz"), "\"a" + replacement + "z\"");
  EXPECT_EQ(columnar::JsonQuote("\xC0\xAF"), "\"" + replacement + replacement + "\"");          // overlong '/'
  EXPECT_EQ(columnar::JsonQuote("\xED\xA0\x80"), "\"" + replacement + replacement + replacement + "\"");  // a surrogate
  EXPECT_EQ(columnar::JsonQuote("\xE2\x82"), "\"" + replacement + replacement + "\"");          // truncated
  EXPECT_EQ(columnar::JsonQuote("\xF4\x90\x80\x80"),
            "\"" + replacement + replacement + replacement + replacement + "\"");  // above U+10FFFF
  EXPECT_EQ(columnar::JsonQuote(std::string("\x01\x7f\"\\", 4)), "\"\\u0001\x7f\\\"\\\\\"");
  auto s = StringArray({"ok", std::string("\x80\xC3\xA9\xC3", 4)});
  for (int64_t i = 0; i < 2; ++i) EXPECT_TRUE(nlohmann::json::accept(FormatJsonValue(*s, i))) << i;
  EXPECT_EQ(FormatValue(*s, 1), std::string("\x80\xC3\xA9\xC3", 4));  // text output keeps the bytes
}

// JSON values are inlined as written (on one line): numbers keep every digit (a number beyond the
// double range is refused by the parser, so that text stays a string),
// keys keep their order and duplicates, strings their spaces; a byte order mark is dropped; a JSON
// column inside a list is inlined too; invalid JSON (or invalid UTF-8) stays a valid JSON string.
TEST(OutputRules, JsonColumnsInlineAsWritten) {
  auto s = StringArray({"12345678901234567890123", "1e400", " [1.10, -0.0 ,\t\"a b\\\" \\n\"]\r\n",
                        "{\"k\": 1, \"k\": 2}", "\xEF\xBB\xBF{\"bom\": true}", "{\"a\": \"\xFF\"}", "", "[1,",
                        "null"});
  auto j = std::make_shared<ArrayData>(*s);
  j->type = WithExtension(MakeType(TypeId::kString), "json");
  EXPECT_EQ(FormatJsonValue(*j, 0), "12345678901234567890123");
  EXPECT_EQ(FormatJsonValue(*j, 1), "\"1e400\"");  // beyond a double: not accepted by nlohmann-json, a string
  EXPECT_EQ(FormatJsonValue(*j, 2), "[1.10,-0.0,\"a b\\\" \\n\"]");
  EXPECT_EQ(FormatJsonValue(*j, 3), "{\"k\":1,\"k\":2}");
  EXPECT_EQ(FormatJsonValue(*j, 4), "{\"bom\":true}");
  EXPECT_EQ(FormatJsonValue(*j, 5), "\"{\\\"a\\\": \\\"\xEF\xBF\xBD\\\"}\"");
  EXPECT_EQ(FormatJsonValue(*j, 6), "\"\"");
  EXPECT_EQ(FormatJsonValue(*j, 7), "\"[1,\"");
  EXPECT_EQ(FormatJsonValue(*j, 8), "null");  // the JSON text null, not a SQL NULL
  for (int64_t i = 0; i < j->length; ++i) EXPECT_TRUE(nlohmann::json::accept(FormatJsonValue(*j, i))) << i;
  EXPECT_EQ(FormatValue(*j, 2), " [1.10, -0.0 ,\t\"a b\\\" \\n\"]\r\n");  // table/csv: the text itself

  auto list = std::make_shared<ArrayData>();
  list->type = MakeList(Field{"element", j->type});
  list->length = 1;
  list->buffers = {Buffer(), Values(std::vector<int32_t>{0, 2})};
  list->children = {SliceArray(j, 3, 2)};
  EXPECT_EQ(FormatJsonValue(*list, 0), "[{\"k\":1,\"k\":2}, {\"bom\":true}]");
}

// TIME of every unit, adjusted to UTC or local, from the Parquet schema (the logical type and the
// converted types TIME_MILLIS/TIME_MICROS, which mean adjusted to UTC) to the printed text: the
// UTC marker Z exactly when adjusted, as for timestamps.
TEST(OutputRules, TimeOfEveryUnitKeepsItsUtcMarker) {
  using parquet::ConvertedType;
  using parquet::LogicalType;
  struct Case {
    parquet::Type physical;
    std::optional<parquet::TimeUnit> unit;  // logical type TIME, or none
    std::optional<ConvertedType> converted;
    bool utc;
    int64_t value;
    std::string text;
  };
  const std::vector<Case> cases = {
      {parquet::Type::INT32, parquet::TimeUnit::MILLIS, std::nullopt, true, 3723004, "01:02:03.004Z"},
      {parquet::Type::INT32, parquet::TimeUnit::MILLIS, std::nullopt, false, 3723004, "01:02:03.004"},
      {parquet::Type::INT64, parquet::TimeUnit::MICROS, std::nullopt, true, 3723000004, "01:02:03.000004Z"},
      {parquet::Type::INT64, parquet::TimeUnit::MICROS, std::nullopt, false, 3723000004, "01:02:03.000004"},
      {parquet::Type::INT64, parquet::TimeUnit::NANOS, std::nullopt, true, 86399999999999, "23:59:59.999999999Z"},
      {parquet::Type::INT64, parquet::TimeUnit::NANOS, std::nullopt, false, 86399999999999, "23:59:59.999999999"},
      {parquet::Type::INT32, parquet::TimeUnit::MILLIS, ConvertedType::TIME_MILLIS, true, 0, "00:00:00.000Z"},
      {parquet::Type::INT64, parquet::TimeUnit::MICROS, ConvertedType::TIME_MICROS, true, 1, "00:00:00.000001Z"},
      {parquet::Type::INT32, std::nullopt, ConvertedType::TIME_MILLIS, true, 3723004, "01:02:03.004Z"},
      {parquet::Type::INT64, std::nullopt, ConvertedType::TIME_MICROS, true, 3723000004, "01:02:03.000004Z"},
  };
  for (const Case& c : cases) {
    parquet::SchemaNode n;
    n.is_leaf = true;
    n.physical_type = c.physical;
    n.converted_type = c.converted;
    if (c.unit) {
      n.logical_type.kind = LogicalType::Kind::TIME;
      n.logical_type.unit = *c.unit;
      n.logical_type.is_adjusted_to_utc = c.utc;
    }
    const DataTypePtr type = parquet::LeafArrowType(n);
    const std::string what = type->ToString() + " " + c.text;
    ASSERT_EQ(type->id, c.physical == parquet::Type::INT32 ? TypeId::kTime32 : TypeId::kTime64) << what;
    EXPECT_EQ(type->timezone.empty(), !c.utc) << what;
    ArrayPtr a = c.physical == parquet::Type::INT32
                     ? Fixed(type, Values(std::vector<int32_t>{static_cast<int32_t>(c.value)}), 1)
                     : Fixed(type, Values(std::vector<int64_t>{c.value}), 1);
    EXPECT_EQ(FormatValue(*a, 0), c.text) << what;
    EXPECT_EQ(FormatJsonValue(*a, 0), "\"" + c.text + "\"") << what;
  }
}

// UUID, DECIMAL and FLOAT16 keep their own renderings (not binary hex); BSON, which has no text
// form, prints as binary.
TEST(OutputRules, UuidDecimalFloat16KeepTheirForms) {
  parquet::SchemaNode n;
  n.is_leaf = true;
  n.physical_type = parquet::Type::FIXED_LEN_BYTE_ARRAY;
  n.type_length = 16;
  n.logical_type.kind = parquet::LogicalType::Kind::UUID;
  std::string u = "\x12\x34\x56\x78\x9a\xbc\xde\xf0\x01\x23\x45\x67\x89\xab\xcd\xef";
  auto uuid = Fixed(parquet::LeafArrowType(n), Buffer::Copy(u), 1);
  EXPECT_EQ(FormatJsonValue(*uuid, 0), "\"12345678-9abc-def0-0123-456789abcdef\"");
  n.logical_type = {};
  auto raw16 = Fixed(parquet::LeafArrowType(n), Buffer::Copy(u), 1);
  EXPECT_EQ(FormatValue(*raw16, 0), "0x123456789abcdef00123456789abcdef");
  n.type_length = 12;
  n.converted_type = parquet::ConvertedType::INTERVAL;
  const std::vector<uint32_t> iv = {25, 0, 1};
  auto interval = Fixed(parquet::LeafArrowType(n), Values(iv), 1);
  EXPECT_EQ(FormatValue(*interval, 0), "P2Y1MT0.001S");
  n.converted_type.reset();
  n.type_length = 2;
  n.logical_type.kind = parquet::LogicalType::Kind::FLOAT16;
  auto half = Fixed(parquet::LeafArrowType(n), Values(std::vector<uint16_t>{0xc500}), 1);
  EXPECT_EQ(FormatJsonValue(*half, 0), "-5.0");
  auto dec = Fixed(MakeDecimal(38, 3), Values(std::vector<int64_t>{-1, -1}), 1);  // -1 unscaled
  EXPECT_EQ(FormatJsonValue(*dec, 0), "-0.001");
  EXPECT_TRUE(nlohmann::json::parse(FormatJsonValue(*dec, 0)).is_number_float());
  n = {};
  n.is_leaf = true;
  n.physical_type = parquet::Type::BYTE_ARRAY;
  n.logical_type.kind = parquet::LogicalType::Kind::BSON;
  auto bson = std::make_shared<ArrayData>();
  bson->type = parquet::LeafArrowType(n);
  bson->length = 1;
  bson->buffers = {Buffer(), Values(std::vector<int32_t>{0, 5}), Buffer::Copy(std::string("\x05\0\0\0\0", 5))};
  EXPECT_EQ(FormatJsonValue(*bson, 0), "\"0x0500000000\"");
}

TEST(Array, TakeGathersEveryTypeInOrder) {
  const RecordBatch b = rap::testing::KeyedBatch(400, 9);  // int64, int32, string, double, list, bool; nulls
  std::vector<int64_t> idx;
  for (int64_t i = 399; i >= 0; i -= 3) idx.push_back(i);
  idx.push_back(5);
  idx.push_back(5);
  for (const auto& col : b.columns) {
    const ArrayPtr sliced = SliceArray(col, 7, 393);  // a non-zero offset too
    std::vector<int64_t> in_slice;
    for (int64_t i : idx) {
      if (i >= 7) in_slice.push_back(i - 7);
    }
    for (const auto& [src, ix] : {std::pair{col, idx}, std::pair{sliced, in_slice}}) {
      auto t = TakeArray(src, ix);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      ASSERT_EQ((*t)->length, static_cast<int64_t>(ix.size()));
      EXPECT_TRUE(ValidateArray(**t).ok()) << ValidateArray(**t).ToString();
      for (size_t i = 0; i < ix.size(); ++i) {
        ASSERT_EQ(rap::testing::CompareValues(*src, ix[i], **t, static_cast<int64_t>(i)), "")
            << col->type->ToString() << " row " << i;
      }
    }
  }
  auto bad = TakeArray(b.columns[0], std::vector<int64_t>{0, 400});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("index 400 at position 1"), std::string::npos);
}

}  // namespace
}  // namespace rap::columnar
