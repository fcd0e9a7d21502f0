// gputwin: the command-line front end. Thin: every subcommand wires the libraries together and maps
// outcomes to the exit codes of the contract (0 ok, 1 expectation failed, 2 invalid input, 3 internal).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <simgrid/s4u/Engine.hpp>  // before simgrid/version.h, which needs its macros

#include <simgrid/version.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include "Analysis.hpp"
#include "AuditWriters.hpp"
#include "BuiltinRules.hpp"
#include "Commands.hpp"
#include "Engine.hpp"
#include "Errors.hpp"
#include "FieldDocs.hpp"
#include "HardwareProfile.hpp"
#include "ModelCatalogue.hpp"
#include "OutputName.hpp"
#include "PackCommand.hpp"
#include "ParameterProvenance.hpp"
#include "Placement.hpp"
#include "Process.hpp"
#include "RunBudget.hpp"
#include "ServingCommand.hpp"
#include "Setup.hpp"
#include "Units.hpp"
#include "Writers.hpp"

#ifndef GTW_VERSION
#define GTW_VERSION "0.0.0"
#endif

namespace fs = std::filesystem;
using namespace gtw;

namespace {

// SOURCE_DATE_EPOCH (the reproducible-builds convention) pins the provenance clock, so that two runs
// of one scenario can be compared byte for byte, results.h5 included (scripts/same-outputs.sh).
// Latest accepted: 9999-12-31T23:59:59Z (gmtime fails beyond the years it can print).
constexpr long long MAX_SOURCE_DATE_EPOCH = 253402300799LL;

// Unset or empty: none. A malformed value is refused before anything runs (source_date_epoch_error),
// as the convention asks, so here it is either valid or absent.
std::optional<std::time_t> source_date_epoch() {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr || *text == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || errno != 0 || value < 0 || value > MAX_SOURCE_DATE_EPOCH) return std::nullopt;
  return static_cast<std::time_t>(value);
}

// The message for a SOURCE_DATE_EPOCH that is set but not seconds since 1970 in range; empty when fine.
std::string source_date_epoch_error() {
  const char* text = std::getenv("SOURCE_DATE_EPOCH");
  if (text == nullptr || *text == '\0' || source_date_epoch()) return "";
  return "SOURCE_DATE_EPOCH: expected whole seconds since 1970-01-01 (0.." + std::to_string(MAX_SOURCE_DATE_EPOCH) +
         "), got '" + text + "'";
}

std::string utc_now() {
  const std::time_t t = source_date_epoch().value_or(std::time(nullptr));
  char buf[32];
  const std::tm* utc = std::gmtime(&t);
  if (utc == nullptr) return "unknown";
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", utc);
  return buf;
}

std::string hostname() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

bool parse_overrides(const std::vector<std::string>& sets, std::vector<Override>& out) {
  for (const auto& s : sets) {
    auto o = parse_override(s);
    if (!o) {
      std::cerr << "gputwin: error: --set expects path=value, got '" << s << "'\n";
      return false;
    }
    out.push_back(*o);
  }
  return true;
}

// Prints the diagnostics; returns true when there is no error.
bool report_diagnostics(const Diagnostics& diags) {
  std::cerr << diags.format_all();
  if (diags.has_errors()) {
    std::cerr << diags.distinct_error_count() << " error(s)\n";
    return false;
  }
  return true;
}

enum class ProgressMode { AUTO, PLAIN, JSON, NONE };

// --max-events N and --max-memory SIZE (sim/engine/RunBudget.hpp).
struct BudgetOptions {
  std::string max_events, max_memory;
};

bool parse_budget(const BudgetOptions& o, RunLimits& limits) {
  if (!o.max_events.empty()) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(o.max_events.data(), o.max_events.data() + o.max_events.size(), v);
    if (ec != std::errc() || ptr != o.max_events.data() + o.max_events.size() || !(v >= 1) || !std::isfinite(v)) {
      std::cerr << "gputwin: error: --max-events: expected a number of events >= 1 (e.g. 2e8), got '" << o.max_events
                << "'\n";
      return false;
    }
    limits.max_events = v;
  }
  if (!o.max_memory.empty()) {
    const auto r = parse_bytes(o.max_memory);
    if (!r || !std::isfinite(r.quantity->value) || r.quantity->value < (1 << 20)) {
      std::cerr << "gputwin: error: --max-memory: expected a size of at least 1MiB (e.g. 32GiB), got '" << o.max_memory
                << "'\n";
      return false;
    }
    limits.max_memory_bytes = r.quantity->value;
  }
  return true;
}

// --seed: a decimal integer 0..2^64-1 (CLI11 would wrap "-1" to 2^64-1 and clamp 2^64).
std::optional<uint64_t> parse_seed(const std::string& text) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

int cmd_validate(const std::string& file, const std::vector<std::string>& sets, const BudgetOptions& budget) {
  std::vector<Override> overrides;
  if (!parse_overrides(sets, overrides)) return EXIT_INVALID_INPUT;
  RunLimits limits;
  if (!parse_budget(budget, limits)) return EXIT_INVALID_INPUT;
  Diagnostics diags;
  auto prepared = prepare_scenario(file, overrides, diags, limits);
  if (!report_diagnostics(diags)) return EXIT_INVALID_INPUT;
  const auto& spec = prepared.spec;
  const RunEstimate estimate = estimate_run(spec);
  std::cout << file << ": valid (" << spec.node_pools.size() << " node pool(s), " << spec.total_gpus() << " GPUs, "
            << spec.tenants.size() << " tenants, " << spec.workloads.size() << " workloads; estimate "
            << static_cast<long long>(estimate.events) << " events, " << format_bytes(Bytes(estimate.memory_bytes))
            << ")\n";
  return EXIT_OK;
}

// A SimGrid log control setting of the forms gputwin documents: a threshold with one of SimGrid's level
// names, a layout, or additivity. Checked here because xbt_log_control_set throws on an unknown level in
// the middle of the run (after the output folder exists); appenders are not offered: logs go to stderr.
bool valid_log_setting(const std::string& setting) {
  static const std::regex form(
      R"(^[A-Za-z0-9_]+\.((thres|threshold):(trace|debug|verbose|info|warning|error|critical)|fmt:[^\s]+|)"
      R"((add|additivity):(on|off|yes|no|1|0))$)");
  return std::regex_match(setting, form);
}

int cmd_run(const std::string& file, std::string out_dir, const std::optional<std::string>& seed_text,
            const std::vector<std::string>& sets, const std::string& formats, ProgressMode progress,
            const BudgetOptions& budget, const std::vector<std::string>& log_settings, bool detailed_trace,
            const std::string& command_line) {
  for (const auto& setting : log_settings)
    if (!valid_log_setting(setting)) {
      std::cerr
          << "gputwin: error: --log: expected CATEGORY.thres:LEVEL with LEVEL one of trace, debug, verbose, info, "
             "warning, error, critical (e.g. gtw.thres:verbose, gtw_engine.thres:verbose), CATEGORY.fmt:FORMAT or "
             "CATEGORY.add:on|off, got '"
          << setting << "'\n";
      return EXIT_INVALID_INPUT;
    }
  if (const std::string error = source_date_epoch_error(); !error.empty()) {
    std::cerr << "gputwin: error: " << error << "\n";
    return EXIT_INVALID_INPUT;
  }
  std::vector<Override> overrides;
  if (!parse_overrides(sets, overrides)) return EXIT_INVALID_INPUT;
  if (seed_text) {
    const auto seed = parse_seed(*seed_text);
    if (!seed) {
      std::cerr << "gputwin: error: --seed: expected an integer 0..18446744073709551615, got '" << *seed_text << "'\n";
      return EXIT_INVALID_INPUT;
    }
    overrides.push_back({"spec.seed", std::to_string(*seed)});
  }
  RunLimits limits;
  if (!parse_budget(budget, limits)) return EXIT_INVALID_INPUT;
  limits.detailed_trace = detailed_trace;
  bool want_json = false, want_md = false, want_h5 = false, want_sarif = false, want_policyreport = false,
       want_junit = false, want_audit = false, want_trace = false, want_metrics = false, want_csv = false;
  // "default": json, md, h5, sarif, and policyreport.yaml when the scenario has compliance rules, audit.jsonl when
  // it has an audit trail.
  const bool default_formats = formats == "default";
  if (default_formats) {
    want_json = want_md = want_h5 = want_sarif = want_audit = true;
  } else {
    std::stringstream ss(formats);
    std::string f;
    while (std::getline(ss, f, ',')) {
      if (f == "json")
        want_json = true;
      else if (f == "md")
        want_md = true;
      else if (f == "h5")
        want_h5 = true;
      else if (f == "sarif")
        want_sarif = true;
      else if (f == "policyreport")
        want_policyreport = true;
      else if (f == "junit")
        want_junit = true;
      else if (f == "audit")
        want_audit = true;
      else if (f == "trace")
        want_trace = true;
      else if (f == "metrics")
        want_metrics = true;
      else if (f == "csv")
        want_csv = true;
      else if (f == "all")
        want_json = want_md = want_h5 = want_sarif = want_policyreport = want_junit = want_audit = want_trace =
            want_metrics = want_csv = true;
      else {
        std::cerr << "gputwin: error: --format: unknown format '" << f << "'"
                  << suggest(f, {"json", "md", "h5", "sarif", "policyreport", "junit", "audit", "trace", "metrics",
                                 "csv", "all"})
                  << "\n";
        return EXIT_INVALID_INPUT;
      }
    }
  }
  Diagnostics diags;
  // Refuses a run beyond the limits with its estimate, before the engine (SimGrid would abort).
  auto prepared = prepare_scenario(file, overrides, diags, limits);
  if (!report_diagnostics(diags)) return EXIT_INVALID_INPUT;
  const auto& spec = prepared.spec;
  // Leakage channels: the built-in catalogue plus the profiles' calibrated `spec.channels`.
  // Its own diagnostics: the scenario's warnings are printed once, above.
  Diagnostics catalogue_diags;
  const auto catalogue = channel_catalogue(spec, profile_search_path(), catalogue_diags);
  if (!report_diagnostics(catalogue_diags)) return EXIT_INVALID_INPUT;
  // The scenario's name picks a folder under out/, never a path: -o is the only way to choose one.
  if (out_dir.empty()) out_dir = "out/" + output_name(spec.name);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "gputwin: error: cannot create output directory " << out_dir << ": " << ec.message() << "\n";
    return EXIT_INTERNAL;
  }

  if (progress == ProgressMode::AUTO) {
    const char* ci = std::getenv("CI");
    progress = (::isatty(STDERR_FILENO) && !(ci && *ci)) ? ProgressMode::AUTO : ProgressMode::PLAIN;
  }
  RunOptions options;
  options.log_settings = log_settings;
  options.max_events = limits.max_events;
  options.max_memory_bytes = limits.max_memory_bytes;
  options.detailed_trace = detailed_trace;
  int last_plain = -1;
  // The name inside a JSON string: names hold no control characters (the loader refuses them), but may
  // hold quotes and backslashes.
  std::string name_json;
  for (const char ch : spec.name) {
    if (ch == '"' || ch == '\\') name_json += '\\';
    name_json += ch;
  }
  options.on_progress = [&](const Progress& p) {
    const int percent = static_cast<int>(std::lround(100.0 * p.sim_time / p.sim_end));
    switch (progress) {
      case ProgressMode::JSON:
        std::fprintf(stderr,
                     "{\"phase\":\"run\",\"scenario\":\"%s\",\"sim_time_s\":%.6g,\"sim_end_s\":%.6g,\"percent\":%d,"
                     "\"events\":%llu,\"wall_s\":%.3f}\n",
                     name_json.c_str(), p.sim_time, p.sim_end, percent, static_cast<unsigned long long>(p.events),
                     p.wall_seconds);
        break;
      case ProgressMode::PLAIN:
        if (percent / 10 != last_plain) {
          last_plain = percent / 10;
          std::fprintf(stderr, "gputwin: %3d%%  sim %.1f/%.1f s  %llu events  %.1f s wall\n", percent, p.sim_time,
                       p.sim_end, static_cast<unsigned long long>(p.events), p.wall_seconds);
        }
        break;
      case ProgressMode::AUTO: {
        const int width = 30;
        const int filled = percent * width / 100;
        std::fprintf(stderr, "\r[%s%s] %3d%%  sim %.1f s  %llu events",
                     std::string(static_cast<size_t>(filled), '#').c_str(),
                     std::string(static_cast<size_t>(width - filled), '.').c_str(), percent, p.sim_time,
                     static_cast<unsigned long long>(p.events));
        if (percent >= 100) std::fprintf(stderr, "\n");
        break;
      }
      case ProgressMode::NONE:
        break;
    }
  };
  if (progress == ProgressMode::NONE) options.on_progress = nullptr;

  // After the engine, one line per stage (plain and json progress): where a long run's wall time and memory go.
  const auto wall_start = std::chrono::steady_clock::now();
  const auto stage_done = [&](const char* stage) {
    if (progress != ProgressMode::PLAIN && progress != ProgressMode::JSON) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const double rss = resident_memory_bytes() / (1 << 20);
    // The kernel updates the high-water mark lazily: it can trail the resident size just read.
    const double peak = std::max(rss, peak_resident_memory_bytes() / (1 << 20));
    if (progress == ProgressMode::JSON)
      std::fprintf(stderr,
                   "{\"phase\":\"%s\",\"scenario\":\"%s\",\"wall_s\":%.3f,\"rss_mb\":%.0f,\"peak_rss_mb\":%.0f}\n",
                   stage, name_json.c_str(), wall, rss, peak);
    else
      std::fprintf(stderr, "gputwin: %s done  %.1f s wall  %.0f MB resident (peak %.0f MB)\n", stage, wall, rss, peak);
  };

  const std::string started = utc_now();
  RunResult run = run_simulation(spec, prepared.profiles, options);
  stage_done("engine");
  const RunIndex index(spec, run);  // one reading of the log for every analysis and compliance rule
  stage_done("index");
  Analysis analysis = analyse(spec, run, index);
  stage_done("analysis");
  Provenance prov;
  prov.gputwin_version = GTW_VERSION;
  prov.simgrid_version = std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) + "." +
                         std::to_string(SIMGRID_VERSION_PATCH);
  prov.allocator = active_allocator();
  prov.command_line = command_line;
  prov.host = hostname();
  prov.started_utc = started;
  prov.wall_seconds = source_date_epoch() ? 0.0 : run.wall_seconds;

  const LeakageReport leakage = analyse_leakage(spec, run, index, catalogue, isolation_options(spec));
  stage_done("leakage");
  const ComplianceReport compliance = evaluate_compliance(spec, run, &leakage, index);
  stage_done("compliance");

  if (want_h5) {
    write_results_h5((fs::path(out_dir) / "results.h5").string(), spec, run, analysis, prov, &leakage, &compliance);
    stage_done("results.h5");
  }
  if (want_md) {
    write_file_atomic((fs::path(out_dir) / "report.md").string(),
                      report_markdown(spec, run, analysis, &leakage, &compliance));
    stage_done("report.md");
  }
  if (want_json) {
    produce_file_atomic((fs::path(out_dir) / "report.json").string(), [&](const std::string& temporary) {
      std::ofstream out(temporary, std::ios::binary);
      write_report_json(out, spec, run, analysis, prov, &leakage, &compliance);
      out.close();
      if (!out) throw RuntimeError("cannot write " + temporary);
    });
    stage_done("report.json");
  }
  if (want_sarif)
    write_file_atomic((fs::path(out_dir) / "findings.sarif").string(),
                      findings_sarif(spec, run, leakage, GTW_VERSION, &compliance));
  if (want_policyreport || (default_formats && compliance.configured))
    write_file_atomic((fs::path(out_dir) / "policyreport.yaml").string(), policy_report_yaml(spec, run, compliance));
  if (want_junit)
    write_file_atomic((fs::path(out_dir) / "junit.xml").string(),
                      run_junit_xml(spec, run, analysis, prov, &leakage, &compliance));
  if (want_csv)
    for (const auto& table : csv_tables(spec, run, analysis, &leakage, &compliance))
      write_file_atomic((fs::path(out_dir) / table.name).string(), table.text);
  if (want_metrics)
    write_file_atomic((fs::path(out_dir) / "metrics.prom").string(), metrics_openmetrics(spec, run, analysis, index));
  if (want_trace) write_file_atomic((fs::path(out_dir) / "trace.json").string(), trace_json(spec, run, index));
  stage_done("writers");
  // audit.jsonl: only when the run has an audit trail (tagged data, spec.identity or spec.audit); the
  // stream evaluate_compliance built (building it again would hash every record again).
  if (want_audit && audit_applies(spec))
    write_audit_jsonl((fs::path(out_dir) / "audit.jsonl").string(), compliance.audit);

  std::cout << "gputwin: " << spec.name << ": " << analysis.slos.size() - analysis.slos_missed << "/"
            << analysis.slos.size() << " SLOs met";
  for (const auto& s : analysis.slos)
    if (!s.met) std::cout << "; missed " << s.tenant_name << "/" << s.name;
  std::cout << "\n";
  if (compliance.configured) {
    std::cout << "gputwin: compliance: " << compliance.passed << " passed, " << compliance.failed << " failed";
    for (const auto& f : compliance.findings)
      if (f.status == policy::ComplianceStatus::FAIL) std::cout << "; failed " << f.policy << " (" << f.rule_id << ")";
    std::cout << "\n";
  }
  std::cout << "gputwin: " << run.log.size() << " events, " << run.counters.kernels << " kernels in "
            << format_duration(Seconds(run.wall_seconds)) << " wall\n";
  std::cout << "gputwin: report: " << (fs::path(out_dir) / (want_md ? "report.md" : "report.json")).string() << "\n";
  if (!run.stopped_early.empty()) {
    // The outputs are complete files marked partial (summary.stopped_early); the run itself did not finish.
    std::cerr << "gputwin: error: the run was stopped at " << format_duration(Seconds(run.end_time))
              << " simulated: " << run.stopped_early
              << "; the outputs are partial (summary.stopped_early). Raise the limit, shorten spec.duration or "
                 "lower the load.\n";
    return EXIT_INTERNAL;
  }
  return EXIT_OK;
}

int cmd_explain(const std::string& what) {
  if (what == "policies" || what == "placement") {
    std::cout << "Placement policies (spec.policies.placement.name):\n";
    for (const auto& info : policy::builtin_placement_registry().list()) {
      std::cout << "  " << info.name << "\n      " << info.summary << "\n";
      for (const auto& p : info.params) {
        std::cout << "      params." << p.name << " (" << param_type_name(p.type);
        if (!p.choices.empty()) {
          std::cout << ":";
          for (size_t i = 0; i < p.choices.size(); ++i) std::cout << (i ? "|" : " ") << p.choices[i];
        }
        std::cout << "): " << p.help << "\n";
      }
    }
    if (what == "policies") cli::print_packing_policies(std::cout);
    return EXIT_OK;
  }
  if (what == "compliance") {
    std::cout << "Compliance rules (spec.compliance.rules[].rule; docs/models/compliance.md):\n";
    const auto& registry = policy::builtin_compliance_registry();
    for (const auto& info : registry.list()) {
      const auto& meta = policy::compliance_rule_info(info.name);
      std::cout << "  " << info.name << " [" << meta.rule_id << ", severity " << meta.severity
                << (meta.enforceable ? ", enforce|audit" : ", audit only") << "]\n      " << info.summary << "\n";
      std::string refs;
      for (const auto& r : meta.requirements) refs += (refs.empty() ? "" : "; ") + r;
      std::cout << "      requirements: " << refs << "\n";
      for (const auto& p : info.params) {
        std::cout << "      parameters." << p.name << " (" << param_type_name(p.type) << ", default ";
        if (std::holds_alternative<double>(p.default_value))
          std::cout << std::get<double>(p.default_value);
        else if (std::holds_alternative<bool>(p.default_value))
          std::cout << (std::get<bool>(p.default_value) ? "true" : "false");
        else
          std::cout << "'" << std::get<std::string>(p.default_value) << "'";
        std::cout << "): " << p.help << "\n";
      }
    }
    return EXIT_OK;
  }
  auto docs = explain(what);
  if (docs.empty()) {
    const std::string near = closest_field(what);
    std::cerr << "gputwin: error: no field '" << what << "' in the scenario schema"
              << (near.empty() ? "" : "; did you mean '" + near + "'?")
              << "\n(`gputwin explain spec` lists every field; `gputwin explain policies` the policies)\n";
    return EXIT_INVALID_INPUT;
  }
  for (const auto* d : docs) {
    std::cout << (d->path.empty() ? "(document)" : std::string(d->path)) << "  <" << d->type;
    if (const auto* range = field_range(d->path)) std::cout << ", " << format_field_range(*range, d->type);
    std::cout << ">\n    " << d->help << "\n";
  }
  return EXIT_OK;
}

// Loads each named profile and hands it to `show`; a profile that does not load is reported and makes the
// result exit 2, the others are still shown.
int for_each_profile(const std::vector<std::string>& names, const std::function<void(const HardwareProfile&)>& show) {
  int status = EXIT_OK;
  for (const auto& name : names) {
    Diagnostics diags;
    HardwareProfile p;
    if (!load_profile(name, SourceLoc{}, "", p, diags)) {
      std::cerr << diags.format_all();
      status = EXIT_INVALID_INPUT;
      continue;
    }
    show(p);
  }
  return status;
}

int cmd_profiles() {
  std::printf("%-18s %-36s %5s %9s %11s %14s %8s  %-12s %-9s %s\n", "NAME", "PRODUCT", "SMS", "MEMORY", "HBM",
              "FP16 TENSOR", "TDP", "NVLINK", "HOST LINK", "MODES");
  const int status = for_each_profile(available_profiles(), [](const HardwareProfile& p) {
    std::string modes = "exclusive timeSlicing mps vgpu";
    if (p.mig) modes += " mig(" + std::to_string(p.mig->profiles.size()) + " profiles)";
    if (p.confidential) modes += " confidential";
    std::printf("%-18s %-36s %5d %9s %11s %9.1f TF/s %6.0f W  %-12s %-9s %s\n", p.name.c_str(), p.product.c_str(),
                p.sms, (std::to_string(static_cast<long>(std::lround(p.memory.value / 1e9))) + " GB").c_str(),
                format_bandwidth(p.hbm_bandwidth).c_str(), p.fp16_tensor.value / 1e12, p.tdp_watts,
                nvlink_topology_name(p.nvlink_topology), host_link_name(p.host_link), modes.c_str());
  });
  std::printf("\nSearch path:");
  for (const auto& d : profile_search_path()) std::printf(" %s", d.c_str());
  std::printf("\n");
  return status;
}

// gputwin profiles --provenance: where each number of each profile comes from, and the shares a reader should
// weigh (fitted: chosen to reproduce a target; assumed: awaiting a measurement).
int cmd_profile_provenance(const std::vector<std::string>& names) {
  return for_each_profile(names.empty() ? available_profiles() : names, [](const HardwareProfile& p) {
    ProvenanceSummary summary;
    for (const auto& [field, source] : p.sources) summary.add(field, source);
    std::printf("%s (%s): %d parameters: %s; fitted %zu, assumed %zu (%.0f %% fitted or assumed)\n", p.name.c_str(),
                p.file.c_str(), summary.total(), summary.describe().c_str(), summary.fitted.size(),
                summary.assumed.size(), 100.0 * summary.fitted_or_assumed_share());
    std::printf("  %-36s %-10s %s\n", "PARAMETER", "KIND", "SOURCE");
    for (const auto& [field, source] : p.sources) {
      const auto kind = provenance_of(source);
      std::printf("  %-36s %-10s %s\n", field.c_str(), kind ? provenance_name(*kind).c_str() : "?", source.c_str());
    }
    std::printf("\n");
  });
}

// gputwin models: the model catalogue, with what follows from each architecture (docs/models/workloads.md).
int cmd_models() {
  Diagnostics diags;
  const auto catalogue = load_model_catalogue(default_model_catalogue_path(), diags);
  if (!catalogue) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  std::printf("%-14s %-14s %6s %6s %9s %9s %9s %9s %12s\n", "ID", "NAME", "LAYERS", "HEADS", "KV HEADS", "PARAMS",
              "ACTIVE", "PUBLISHED", "KV/TOKEN");
  for (const auto& m : catalogue->models)
    std::printf("%-14s %-14s %6d %6d %9d %8.2fB %8.2fB %8.2fB %9.0f KiB\n", m.id.c_str(), m.name.c_str(), m.layers,
                m.attention_heads, m.kv_heads, m.parameters() / 1e9, m.active_parameters() / 1e9,
                m.published_parameters / 1e9, m.kv_bytes_per_token(2) / 1024);
  std::printf("\nPARAMS derived from the shapes, PUBLISHED from the model card; KV/TOKEN at 16-bit K and V.\n");
  std::printf("Catalogue: %s\n", catalogue->file.c_str());
  return EXIT_OK;
}

}  // namespace

int main(int argc, char** argv) {
  end_with_parent();  // a child of a sweep or test coordinator ends with it (sim/core/Process.hpp)
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app{"gputwin: discrete-event digital twin of a shared multi-tenant GPU cluster"};
  app.set_version_flag("--version", GTW_VERSION);
  app.require_subcommand(1);

  std::string file, out_dir, formats = "default", progress = "auto", field, seed, trace = "folded";
  std::vector<std::string> sets, log_settings;
  BudgetOptions budget;

  auto* run = app.add_subcommand("run", "Simulate a scenario and write its reports");
  run->add_option("scenario", file, "Scenario YAML file")->required();
  run->add_option("-o,--output", out_dir, "Output directory (default out/<scenario name>)");
  run->add_option("--seed", seed, "Seed (overrides spec.seed), 0..2^64-1");

  run->add_option("--set", sets, "Override a field: path=value (repeatable), e.g. spec.duration=2m");
  run->add_option(
      "--format", formats,
      "Comma-separated outputs: json,md,h5,sarif,policyreport,junit,audit,trace,metrics,csv or all (default "
      "json,md,h5,sarif,policyreport,audit; policyreport only when the scenario has "
      "compliance rules, audit (audit.jsonl) only when it has tagged data, spec.identity or spec.audit)");
  run->add_option("--trace", trace,
                  "folded|detailed: the event log's time slices (default folded: a context switch and the slice it "
                  "opens are one GPU_SLICE event; detailed: a CONTEXT_SWITCH and a GPU_BUSY event each; the same "
                  "results either way)")
      ->check(CLI::IsMember({"folded", "detailed"}));
  run->add_option("--progress", progress, "auto|plain|json|none (default auto: a bar on a terminal, plain in CI)")
      ->check(CLI::IsMember({"auto", "plain", "json", "none"}));
  run->add_option(
      "--log", log_settings,
      "SimGrid log setting for debugging (repeatable), e.g. gtw.thres:verbose (every category of the "
      "project), gtw_engine.thres:verbose, gtw_events.thres:verbose (every event); on stderr, off by default");

  auto* validate = app.add_subcommand("validate", "Check a scenario and report every problem");
  validate->add_option("scenario", file, "Scenario YAML file")->required();
  validate->add_option("--set", sets, "Override a field: path=value (repeatable)");
  for (auto* sub : {run, validate}) {
    sub->add_option("--max-events", budget.max_events,
                    "Refuse a run estimated to simulate more events than this (default 5e7)");
    sub->add_option("--max-memory", budget.max_memory,
                    "Refuse a run estimated to need more memory than this (default 8GiB)");
  }

  auto* explain_cmd =
      app.add_subcommand("explain", "Document a scenario field (e.g. spec.workloads.arrival) or 'policies'");
  explain_cmd->add_option("field", field, "Field path, 'policies' or 'compliance'")->required();

  auto* profiles = app.add_subcommand("profiles", "List the hardware profiles");
  bool provenance = false;
  std::vector<std::string> profile_names;
  profiles->add_flag("--provenance", provenance,
                     "Each parameter's provenance (datasheet, measured, derived, fitted, assumed) and source");
  profiles->add_option("name", profile_names, "Profiles to show with --provenance (default: all)");
  auto* models = app.add_subcommand("models", "List the model catalogue (architectures of the served models)");
  const auto test_cmd = cli::register_test_command(app);
  const auto diff_cmd = cli::register_diff_command(app);
  const auto sweep_cmd = cli::register_sweep_command(app);
  const auto pack_cmd = cli::register_pack_command(app);
  const auto calibrate_cmd = cli::register_calibrate_command(app);
  const auto import_topo_cmd = cli::register_import_topo_command(app);
  const auto audit_cmd = cli::register_audit_command(app);
  const auto serving_cmd = cli::register_serving_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? EXIT_OK : EXIT_INVALID_INPUT;
  }

  try {
    if (*run) {
      ProgressMode mode = progress == "plain"  ? ProgressMode::PLAIN
                          : progress == "json" ? ProgressMode::JSON
                          : progress == "none" ? ProgressMode::NONE
                                               : ProgressMode::AUTO;
      const std::optional<std::string> seed_arg =
          run->count("--seed") ? std::optional<std::string>(seed) : std::nullopt;
      return cmd_run(file, out_dir, seed_arg, sets, formats, mode, budget, log_settings, trace == "detailed",
                     command_line);
    }
    if (*validate) return cmd_validate(file, sets, budget);
    if (*explain_cmd) return cmd_explain(field);
    if (*profiles) return provenance ? cmd_profile_provenance(profile_names) : cmd_profiles();
    if (*models) return cmd_models();
    if (*test_cmd.app) return test_cmd.run();
    if (*diff_cmd.app) return diff_cmd.run();
    if (*sweep_cmd.app) return sweep_cmd.run();
    if (*pack_cmd.app) return pack_cmd.run();
    if (*calibrate_cmd.app) return calibrate_cmd.run();
    if (*import_topo_cmd.app) return import_topo_cmd.run();
    if (*audit_cmd.app) return audit_cmd.run();
    if (*serving_cmd.app) return serving_cmd.run();
  } catch (const InputError& e) {
    std::cerr << "gputwin: error: " << e.what() << "\n";
    return EXIT_INVALID_INPUT;
  } catch (const std::exception& e) {
    std::cerr << "gputwin: internal error: " << e.what() << "\n";
    return EXIT_INTERNAL;
  }
  return EXIT_INTERNAL;
}
