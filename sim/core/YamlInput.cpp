#include "YamlInput.hpp"

#include "Errors.hpp"
#include "InputFile.hpp"
#include "YamlDocuments.hpp"

namespace gtw {

std::optional<std::string> read_yaml_input(const std::string& path, Diagnostics& diags) {
  return read_input_file(path, InputKind::TEST_YAML, diags);
}

std::optional<YAML::Node> parse_yaml_input(const std::string& text, const std::string& path,
                                           const std::string& expected, Diagnostics& diags) {
  if (!check_yaml_item_count(text, path, diags)) return std::nullopt;
  YAML::Node root;
  try {
    // LoadAll: Load keeps the first document and silently drops the rest.
    const auto docs = load_all_documents(text);
    if (docs.size() > 1) {
      diags.error(SourceLoc{path, docs[1].Mark().line + 1, docs[1].Mark().column + 1}, "",
                  "a second YAML document starts here; the file holds exactly one");
      return std::nullopt;
    }
    if (!docs.empty()) root = docs.front();
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

YAML::Node load_yaml_input(const std::string& path, InputKind kind) {
  const std::string text = read_input_file_or_throw(path, kind);
  Diagnostics diags;
  if (!check_yaml_item_count(text, path, diags)) throw InputError(diags.all().front().format());
  return YAML::Load(text);
}

}  // namespace gtw
