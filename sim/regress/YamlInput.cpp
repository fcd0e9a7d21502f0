#include "sim/regress/YamlInput.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace gtw::regress {

namespace fs = std::filesystem;

std::optional<std::string> read_yaml_input(const std::string& path, const std::string& what, Diagnostics& diags) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    diags.error(SourceLoc{path, 0, 0}, "", "cannot read the " + what + ": no such file");
    return std::nullopt;
  }
  if (fs::file_size(path, ec) > MAX_YAML_INPUT_BYTES) {
    diags.error(SourceLoc{path, 0, 0}, "", what + " is larger than 1 MiB");
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::optional<YAML::Node> parse_yaml_input(const std::string& text, const std::string& path,
                                           const std::string& expected, Diagnostics& diags) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{path, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1}, "",
                "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
  if (!root || root.IsNull()) {
    diags.error(SourceLoc{path, 1, 1}, "", "file is empty: expected " + expected);
    return std::nullopt;
  }
  return root;
}

}  // namespace gtw::regress
