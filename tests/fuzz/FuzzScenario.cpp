// Fuzz target: the scenario loader (sim/scenario/Loader.hpp). The input is a scenario file; its first
// line, when it reads "#set path=value" (a YAML comment), is also applied as a --set override. Each
// input is written to one file in a per-process scratch directory, which also holds a link
// `fragments` -> tests/fixtures/malformed/fragments so that `$ref: fragments/...` and trace files
// resolve. Diagnostics and gtw::InputError are clean outcomes; any other exception escapes (a finding).
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "FuzzSupport.hpp"
#include "Loader.hpp"
#include "YamlDocuments.hpp"

namespace {

const std::string& scenario_path() {
  static const std::string path = [] {
    const std::string dir = gtw::fuzz::scratch_dir().path();
#ifdef GTW_SOURCE_DIR
    std::error_code ec;
    std::filesystem::create_directory_symlink(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/malformed/fragments",
                                              dir + "/fragments", ec);
#endif
    return dir + "/scenario.yaml";
  }();
  return path;
}

// Whether YAML::LoadAll never returns on this text: yaml-cpp 0.7 (Debian's) yields empty documents forever
// after a stray ',' (jbeder/yaml-cpp#1040, fixed upstream by #1319). More documents than the input has
// bytes means it loops.
bool loadall_loops(const std::string& text) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    gtw::IgnoringEventHandler counter;  // counts nothing: only whether documents keep coming
    for (size_t docs = 0; docs <= text.size() + 1; ++docs)
      if (!parser.HandleNextDocument(counter)) return false;
  } catch (const YAML::Exception&) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string first_line = text.substr(0, text.find('\n'));
  std::vector<gtw::Override> overrides;
  // parse_override sees every first line; only a "#set " one is applied (others would spoil the seeds).
  if (auto o = gtw::parse_override(first_line)) {
    GTW_FUZZ_CHECK(!o->path.empty());
    GTW_FUZZ_CHECK(o->path.size() + 1 + o->value.size() == first_line.size());
  }
  if (first_line.rfind("#set ", 0) == 0) {
    if (auto o = gtw::parse_override(first_line.substr(5))) overrides.push_back(*o);
  }
  // GTW_FUZZ_SKIP=yaml-loadall-loop: fuzz on past that known finding (every input with a stray ',' hits it).
  if (gtw::fuzz::skipped("yaml-loadall-loop")) {
    if (loadall_loops(text)) return 0;
    for (const auto& o : overrides)
      if (loadall_loops(o.value)) return 0;
  }
  const std::string path = scenario_path();
  gtw::fuzz::write_scratch("scenario.yaml", data, size);
  try {
    gtw::Diagnostics diags;
    gtw::ScenarioSpec spec = gtw::load_scenario(path, overrides, diags);
    // load_scenario runs check_references itself; a second pass on a clean spec must stay clean.
    if (!diags.has_errors()) gtw::check_references(spec, diags);
    (void)diags.format_all();
  } catch (const gtw::InputError&) {
    // a located input error: clean
  }
  return 0;
}
