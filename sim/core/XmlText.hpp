#pragma once
// Text for XML attributes and elements (JUnit files of `gputwin test` and `gputwin run`).
#include <string>

namespace gtw {

/// Escapes the five XML special characters; control characters XML 1.0 forbids even escaped (a child's
/// stderr may hold them) become '?'.
inline std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

}  // namespace gtw
