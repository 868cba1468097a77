#include "rap/util/hash.h"

#include <cstdio>

namespace rap {

std::string Fnv1a64::ToString() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace rap
