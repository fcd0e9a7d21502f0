#include "OutputName.hpp"

namespace gtw {

std::string output_name(const std::string& name, const std::string& fallback) {
  std::string out;
  for (const char ch : name) {
    const bool kept = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '_' || ch == '-';
    if (kept) {
      out += ch;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  const size_t first = out.find_first_not_of(".-");
  out = first == std::string::npos ? std::string() : out.substr(first);
  if (out.size() > MAX_OUTPUT_NAME) out.resize(MAX_OUTPUT_NAME);
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  return out.empty() ? fallback : out;
}

}  // namespace gtw
