// Every value decoder (encoding.h) on a raw value section: PLAIN, dictionary indices, RLE booleans,
// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, for every
// physical type, decoding and skipping in steps the input chooses.
//
// Input: encoding (byte, mod 10), type (byte, mod 8), FLBA type_length (byte, 1..32), value count
// (u16, at most 4096), step pattern (byte), then the value section.
#include <algorithm>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_target.h"
#include "rap/format/encoding.h"

RAP_FUZZ_TARGET(encoding) {
  using namespace rap::parquet;
  rap::fuzz::FuzzInput in(data, size);
  const auto encoding = static_cast<Encoding>(in.Byte() % 10);
  const auto type = static_cast<Type>(in.Byte() % 8);
  const int32_t type_length = 1 + in.Byte() % 32;
  const int64_t num_values = in.U16() % 4097;
  const uint8_t pattern = in.Byte();
  auto section = in.Rest();
  auto decoder = MakeValueDecoder(encoding, type, type_length, section, num_values);
  if (!decoder.ok()) return 0;
  const bool indices = encoding == Encoding::PLAIN_DICTIONARY || encoding == Encoding::RLE_DICTIONARY;
  const int width = PhysicalWidth(type, type_length);
  std::vector<uint8_t> fixed;
  std::vector<int32_t> codes;
  rap::UninitVector<int32_t> offsets{0};
  rap::ByteVector bytes;
  int64_t done = 0;
  for (int step = 0; done < num_values; ++step) {
    const int64_t n = std::min<int64_t>(num_values - done, 1 + ((pattern >> (step % 4 * 2)) & 3) * 37);
    rap::Status st;
    if ((pattern >> 7) != 0 && step % 2 == 1) {
      st = (*decoder)->Skip(n);
    } else if (indices) {
      codes.resize(static_cast<size_t>(n));
      st = (*decoder)->DecodeIndices(codes.data(), n);
    } else if (width < 0) {
      st = (*decoder)->DecodeBinary(n, BinaryOut{&offsets, &bytes});
    } else if (step % 3 == 2) {
      auto p = (*decoder)->TakePlainFixed(n);
      st = p.status();
    } else {
      fixed.resize(static_cast<size_t>(n * width));
      st = (*decoder)->DecodeFixed(fixed.data(), n);
    }
    if (!st.ok()) break;
    done += n;
  }
  return 0;
}
