// Lowercase hexadecimal text of bytes: two digits per byte, most significant nibble first.
#pragma once

#include <string>
#include <string_view>

namespace rap {

std::string LowerHex(std::string_view bytes);

}  // namespace rap
