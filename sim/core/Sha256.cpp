// SHA-256 through OpenSSL's EVP interface (one implementation of the digest, the one the platform audits).
#include "Sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace gtw {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xF]);
  }
  return out;
}

}  // namespace gtw
