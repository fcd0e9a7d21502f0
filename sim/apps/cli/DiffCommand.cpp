// gputwin diff BASE NEW: what moved between two runs' report.json, with a tolerance per metric. Exits
// like `kubectl diff`: 0 the same (within tolerance), 1 they differ, 2 an error (missing or unreadable
// reports, bad options).
#include <filesystem>
#include <iostream>
#include <memory>

#include "Commands.hpp"
#include "Diff.hpp"
#include "Errors.hpp"
#include "InputFile.hpp"
#include "StrictJson.hpp"

namespace fs = std::filesystem;

namespace gtw::cli {
namespace {

struct DiffCliOptions {
  std::string base, fresh;
  std::vector<std::string> tolerances;
  std::vector<std::string> ignore;
  bool quiet = false;
};

// A result folder (its report.json) or a report.json itself.
bool load_report(const std::string& arg, regress::Json& out) {
  fs::path p(arg);
  std::error_code ec;
  if (fs::is_directory(p, ec)) p /= "report.json";
  Diagnostics diags;
  const auto text = read_input_file(p.string(), InputKind::REPORT_JSON, diags);
  if (!text) {
    std::cerr << diags.format_all();
    return false;
  }
  try {
    out = parse_json_strict<regress::Json>(*text);
  } catch (const std::exception& e) {
    std::cerr << p.string() << ": error: " << e.what() << "\n";
    return false;
  }
  if (!out.is_object() || !out.contains("schema_version")) {
    std::cerr << "gputwin: error: diff: " << p.string() << " is not a gputwin report (no schema_version)\n";
    return false;
  }
  return true;
}

int run_diff_command(const DiffCliOptions& o) {
  regress::DiffOptions options;
  for (const auto& t : o.tolerances) {
    regress::ToleranceRule rule;
    std::string error;
    if (!regress::parse_tolerance_rule(t, rule, error)) {
      std::cerr << "gputwin: error: " << error << "\n";
      return EXIT_INVALID_INPUT;
    }
    options.tolerances.push_back(rule);
  }
  options.ignore = o.ignore;
  regress::Json base, fresh;
  if (!load_report(o.base, base) || !load_report(o.fresh, fresh)) return EXIT_INVALID_INPUT;
  if (base["schema_version"] != fresh["schema_version"])
    std::cerr << "gputwin: warning: diff: schema versions differ (" << base["schema_version"].dump() << " vs "
              << fresh["schema_version"].dump() << ")\n";
  if (const auto problems = regress::check_diff_inputs(base, fresh, options); !problems.empty()) {
    for (const auto& p : problems) std::cerr << "gputwin: error: diff: " << p << "\n";
    return EXIT_INVALID_INPUT;
  }
  const auto result = regress::diff_reports(base, fresh, options);
  if (!o.quiet) std::cout << regress::format_diff(result);
  std::cout << result.differences.size() << " differ, " << result.within_tolerance << " moved within tolerance, "
            << result.compared << " compared\n";
  return result.differences.empty() ? EXIT_OK : EXIT_EXPECTATION;
}

}  // namespace

Subcommand register_diff_command(CLI::App& app) {
  auto options = std::make_shared<DiffCliOptions>();
  auto* cmd = app.add_subcommand("diff", "Compare two result folders (report.json); exit 0 same, 1 differ, 2 error");
  cmd->add_option("base", options->base, "Baseline result folder or report.json")->required();
  cmd->add_option("new", options->fresh, "New result folder or report.json")->required();
  cmd->add_option("--tolerance", options->tolerances,
                  "METRIC=REL relative tolerance for real-valued metrics (repeatable), e.g. p99_s=5% or '*=0'");
  cmd->add_option("--ignore", options->ignore, "Skip metrics matching this key or path glob (repeatable)");
  cmd->add_flag("-q,--quiet", options->quiet, "Print only the closing count");
  return {cmd, [options] { return run_diff_command(*options); }};
}

}  // namespace gtw::cli
