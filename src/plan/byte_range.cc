#include "rap/plan/byte_range.h"

#include <fmt/format.h>

namespace rap {

std::string ByteRange::ToString() const { return fmt::format("[{}, {})", offset, end()); }

}  // namespace rap
