#pragma once
// SHA-256 of a byte string, as lowercase hex. Used for provenance (scenario and profile hashes).
#include <string>
#include <string_view>

namespace gtw {
std::string sha256_hex(std::string_view data);
}
