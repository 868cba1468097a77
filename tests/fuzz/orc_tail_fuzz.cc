// The ORC file tail (postscript, footer, metadata: rap/orc/tail.h), the stripe footers, and the
// decoding of small stripes (at most 65,536 rows and 2^18 values per column, so that one input
// stays within libFuzzer's memory limit: a larger stripe is a legal file that takes memory in
// proportion).
//
// Input: the bytes of an ORC file. Seeds: the Apache ORC example files up to 64 KiB (rap_fuzz_seeds).
#include "rap/orc/reader.h"

#include "fuzz/fuzz_target.h"

RAP_FUZZ_TARGET(orc_tail) {
  auto reader = rap::orc::OrcReader::Open("fuzz.orc", rap::Buffer::Copy(data, size));
  if (!reader.ok()) return 0;
  (*reader)->set_max_stripe_values(1 << 18);  // within libFuzzer's 512 MiB allocation limit
  const rap::orc::FileTail& tail = (*reader)->tail();
  (void)tail.types.ToString();
  (void)(*reader)->schema();
  for (size_t s = 0; s < (*reader)->num_stripes() && s < 8; ++s) {
    if (!(*reader)->StripeFooter(s).ok()) continue;
    if (tail.stripes[s].num_rows > 65536) continue;
    auto batch = (*reader)->ReadStripe(s);
    if (!batch.ok()) continue;
    for (const auto& col : batch->columns) {
      if (!rap::columnar::ValidateArray(*col).ok()) __builtin_trap();  // a decoded stripe is always well-formed
    }
  }
  return 0;
}
