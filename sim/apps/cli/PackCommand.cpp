// gputwin pack: replays the openb trace's packing experiment (arrivals only, no departures) with one or all
// of the six packing policies of "Beware of Fragmentation" (ATC'23) and writes pack.json, pack.csv, pack.md;
// --evaluation runs the paper's whole evaluation (pod lists x policies x tune seeds).
#include "PackCommand.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "AtomicFile.hpp"
#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "Evaluation.hpp"
#include "GoRand.hpp"
#include "OpenbCsv.hpp"
#include "PackingApi.hpp"
#include "PackingReplay.hpp"
#include "TimeReplay.hpp"
#include "Tuning.hpp"

namespace fs = std::filesystem;

namespace gtw::cli {

namespace {

struct PackOptions {
  std::string trace_dir, nodes, pods, arrivals, policy = "all", out_dir = "out/pack";
  uint64_t seed = 42;
  double popularity = 95;
  std::string tie_break = "published";
  double tune_ratio = -1;  // < 0: 1.3 with --trace, else none
  int64_t tune_seed = 42;
  std::string tune_seed_text;  // as given: parsed by run_pack, so a value beyond int64 is refused, not clamped
  bool evaluation = false;
  std::vector<std::string> workloads;
  std::string seeds = "42-51";
  std::string published;       // analysis_allo_discrete.csv to compare with
  std::string published_frag;  // analysis_frag_discrete.csv to compare with
  int jobs = 1;
  std::vector<std::string> params;
  std::string mode = "packing";  // packing: arrivals only (ATC'23); time: arrivals and departures
  double speedup = 1;            // time mode: arrival compression
  double sample_every = 3600;    // time mode: seconds between points of the series
};

// Default file names of the published experiment inside a trace directory.
constexpr const char* DEFAULT_NODES = "openb_node_list_gpu_node.csv";
constexpr const char* DEFAULT_PODS = "openb_pod_list_default.csv";

std::string fixed(double value, int decimals = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::vector<std::string> selected_policies(const std::string& policy) {
  if (policy == "all") return packing::packing_policy_order();
  if (!packing::packing_registry().find(policy)) {
    auto valid = packing::packing_policy_order();
    valid.push_back("all");
    throw InputError("--policy: unknown packing policy '" + policy + "'" + suggest(policy, valid));
  }
  return {policy};
}

// --param key=value for every selected policy that declares `key`.
std::map<std::string, Params> parse_params(const std::vector<std::string>& given,
                                           const std::vector<std::string>& policies) {
  std::map<std::string, Params> out;
  for (const auto& text : given) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--param: expected key=value, got '" + text + "'");
    const std::string key = text.substr(0, eq), value = text.substr(eq + 1);
    bool used = false;
    for (const auto& policy : policies) {
      const PluginInfo* info = packing::packing_registry().find(policy);
      for (const auto& spec : info->params) {
        if (spec.name != key) continue;
        used = true;
        if (spec.type == ParamType::NUMBER) {
          size_t consumed = 0;
          double number = 0;
          try {
            number = std::stod(value, &consumed);
          } catch (const std::exception&) {
            consumed = 0;
          }
          if (consumed == 0 || consumed != value.size() || !std::isfinite(number))
            throw InputError("--param " + key + ": expected a finite number, got '" + value + "'");
          out[policy][key] = number;
        } else if (spec.type == ParamType::BOOL) {
          if (value != "true" && value != "false")
            throw InputError("--param " + key + ": expected true or false, got '" + value + "'");
          out[policy][key] = value == "true";
        } else {
          out[policy][key] = value;
        }
      }
    }
    if (!used) throw InputError("--param: no selected policy has a parameter '" + key + "'");
  }
  return out;
}

// Where the arrival order came from, for the reports.
std::string arrivals_source(const PackOptions& o) {
  if (!o.arrivals.empty()) return o.arrivals;
  if (o.tune_ratio > 0)
    return "tuned to " + fixed(o.tune_ratio, 2) + " x capacity, tune seed " + std::to_string(o.tune_seed);
  return "every pod once, in list order";
}

std::string pack_json(const PackOptions& o, const trace::PackingInput& input,
                      const std::vector<trace::PackingResult>& results) {
  std::ostringstream j;
  j << "{\n  \"schema\": \"gputwin-pack/1\",\n";
  j << "  \"experiment\": \"openb packing: arrivals in order, no departures, a pod that fits nowhere fails\",\n";
  j << "  \"inputs\": {\"nodes\": " << json_string(o.nodes) << ", \"pods\": " << json_string(o.pods)
    << ", \"arrivals\": " << json_string(arrivals_source(o)) << "},\n";
  j << "  \"cluster\": {\"nodes\": " << input.cluster.nodes() << ", \"gpus\": " << input.cluster.gpu_free.size()
    << ", \"gpu_milli\": " << input.cluster.total_gpu_milli() << "},\n";
  j << "  \"seed\": " << o.seed << ",\n  \"tune\": {\"ratio\": " << fixed(o.tune_ratio, 2)
    << ", \"seed\": " << o.tune_seed << "},\n  \"popularity_percent\": " << fixed(o.popularity, 2)
    << ",\n  \"tie_break\": " << json_string(o.tie_break) << ",\n";
  j << "  \"policies\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    j << (i ? ",\n" : "\n") << "    {\"policy\": " << json_string(r.policy) << ", \"arrivals\": " << r.arrivals
      << ", \"failed_pods\": " << r.failed_pods << ", \"failed_gpu_pods\": " << r.failed_gpu_pods
      << ", \"arrived_gpu_pct\": " << fixed(r.arrived_pct) << ", \"allocated_gpu_pct\": " << fixed(r.allocated_pct)
      << ", \"allocated_cpu_pct\": " << fixed(r.cpu_allocated_pct)
      << ", \"frag_gpu_pct_of_capacity\": " << fixed(r.frag_pct)
      << ", \"frag_gpu_pct_of_idle\": " << fixed(r.frag_idle_pct) << ",\n     \"curve\": [";
    for (size_t k = 0; k < r.curve.size(); ++k) {
      const auto& p = r.curve[k];
      j << (k ? ",\n" : "\n") << "       {\"arrived_gpu_pct\": " << p.arrived_pct
        << ", \"arrived_exact_pct\": " << fixed(p.arrived_exact_pct)
        << ", \"allocated_gpu_pct\": " << fixed(p.allocated_pct)
        << ", \"frag_gpu_pct_of_capacity\": " << fixed(p.frag_pct)
        << ", \"frag_gpu_pct_of_idle\": " << fixed(p.frag_idle_pct) << ", \"failed_pods\": " << p.failed_pods
        << ", \"arrivals\": " << p.arrivals << "}";
    }
    j << "]}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

std::string pack_csv(const std::vector<trace::PackingResult>& results) {
  std::ostringstream c;
  c << "policy,arrived_gpu_pct,arrived_exact_pct,allocated_gpu_pct,frag_gpu_pct_of_capacity,frag_gpu_pct_of_idle,"
       "failed_pods,arrivals\n";
  for (const auto& r : results)
    for (const auto& p : r.curve)
      c << r.policy << ',' << p.arrived_pct << ',' << fixed(p.arrived_exact_pct) << ',' << fixed(p.allocated_pct) << ','
        << fixed(p.frag_pct) << ',' << fixed(p.frag_idle_pct) << ',' << p.failed_pods << ',' << p.arrivals << '\n';
  return c.str();
}

const trace::CurvePoint* at(const trace::PackingResult& r, int arrived_pct) {
  for (const auto& p : r.curve)
    if (p.arrived_pct == arrived_pct) return &p;
  return nullptr;
}

std::string pack_markdown(const PackOptions& o, const trace::PackingInput& input,
                          const std::vector<trace::PackingResult>& results) {
  std::ostringstream m;
  m << "# Packing experiment (openb, arrivals only)\n\n";
  m << "Cluster: " << input.cluster.nodes() << " nodes, " << input.cluster.gpu_free.size()
    << " GPUs. Arrivals: " << input.arrivals.size() << " (" << arrivals_source(o) << "). Seed " << o.seed
    << ", ties to the " << o.tie_break << " node, target workload: the " << fixed(o.popularity, 0)
    << " % most popular classes of the pod list.\n\n";
  m << "| policy | failed pods | failed GPU pods | GPU allocated (% of capacity) | frag (% of capacity) | "
       "frag (% of idle) |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& r : results)
    m << "| " << r.policy << " | " << r.failed_pods << " | " << r.failed_gpu_pods << " | " << fixed(r.allocated_pct, 2)
      << " | " << fixed(r.frag_pct, 2) << " | " << fixed(r.frag_idle_pct, 2) << " |\n";
  m << "\nGPU allocation ratio (% of capacity) when the arrived GPU demand reaches x % of capacity:\n\n| policy |";
  const int points[] = {70, 80, 90, 95, 100, 110, 120, 130};
  for (int x : points) m << " " << x << " % |";
  m << "\n|---|";
  for (size_t i = 0; i < std::size(points); ++i) m << "---:|";
  m << "\n";
  for (const auto& r : results) {
    m << "| " << r.policy << " |";
    for (int x : points) {
      const auto* p = at(r, x);
      m << " " << (p ? fixed(p->allocated_pct, 2) : std::string("-")) << " |";
    }
    m << "\n";
  }
  return m.str();
}

// Time-based replay: each pod arrives at its (compressed) creation time and leaves after its lifetime.
int run_time_mode(const PackOptions& o, const std::vector<trace::OpenbPod>& pods, const trace::PackingInput& input,
                  const std::vector<std::string>& policies, const std::map<std::string, Params>& params) {
  if (!o.arrivals.empty())
    std::printf(
        "gputwin: pack: time mode replays each pod of the list once at its creation time; the arrival "
        "order %s is not used\n",
        o.arrivals.c_str());
  trace::PackingInput every_pod = input;
  every_pod.arrivals.clear();
  for (size_t i = 0; i < every_pod.pods.size(); ++i) every_pod.arrivals.push_back(static_cast<int>(i));
  std::printf("%-15s %9s %10s %8s %12s %10s %10s %10s %8s\n", "POLICY", "ARRIVALS", "DEPARTURES", "FAILED",
              "FAILED(GPU)", "PEAK%", "MEAN%", "MEANFRAG%", "WALL");
  std::string csv = "policy,time_s,allocated_pct,frag_pct,running_pods,arrived,failed_pods\n";
  std::string json =
      "{\n  \"experiment\": \"openb time-based replay: arrivals compressed, lifetimes kept, no queue\",\n"
      "  \"arrival_speedup\": " +
      fixed(o.speedup) + ",\n  \"results\": [";
  for (size_t k = 0; k < policies.size(); ++k) {
    trace::TimeReplayOptions options;
    options.replay.seed = o.seed;
    options.replay.popularity_percent = o.popularity;
    // The published ranks belong to the packing experiment's runs: time mode takes the first node.
    options.replay.tie_break = o.tie_break == "random" ? packing::TieBreak::RANDOM : packing::TieBreak::FIRST;
    if (auto it = params.find(policies[k]); it != params.end()) options.replay.params = it->second;
    options.arrival_speedup = o.speedup;
    options.sample_every = o.sample_every;
    const auto r = trace::run_time_replay(every_pod, pods, policies[k], options);
    std::printf("%-15s %9lld %10lld %8lld %12lld %10.2f %10.2f %10.2f %7.2fs\n", r.policy.c_str(),
                static_cast<long long>(r.arrivals), static_cast<long long>(r.departures),
                static_cast<long long>(r.failed_pods), static_cast<long long>(r.failed_gpu_pods), r.peak_allocated_pct,
                r.mean_allocated_pct, r.mean_frag_pct, r.wall_seconds);
    std::fflush(stdout);
    for (const auto& p : r.series)
      csv += r.policy + ',' + fixed(p.time, 1) + ',' + fixed(p.allocated_pct) + ',' + fixed(p.frag_pct) + ',' +
             std::to_string(p.running_pods) + ',' + std::to_string(p.arrived) + ',' + std::to_string(p.failed_pods) +
             '\n';
    json += std::string(k ? "," : "") + "\n    {\"policy\": " + json_string(r.policy) +
            ", \"arrivals\": " + std::to_string(r.arrivals) + ", \"departures\": " + std::to_string(r.departures) +
            ", \"failed_pods\": " + std::to_string(r.failed_pods) +
            ", \"failed_gpu_pods\": " + std::to_string(r.failed_gpu_pods) +
            ", \"peak_allocated_pct\": " + fixed(r.peak_allocated_pct) +
            ", \"mean_allocated_pct\": " + fixed(r.mean_allocated_pct) +
            ", \"mean_frag_pct\": " + fixed(r.mean_frag_pct) + ", \"span_s\": " + fixed(r.span, 1) + "}";
  }
  json += "\n  ]\n}\n";
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw RuntimeError("cannot create output directory " + o.out_dir + ": " + ec.message());
  write_file_atomic((fs::path(o.out_dir) / "timereplay.json").string(), json);
  write_file_atomic((fs::path(o.out_dir) / "timereplay.csv").string(), csv);
  std::printf("gputwin: pack: %s/timereplay.json, timereplay.csv\n", o.out_dir.c_str());
  return EXIT_OK;
}

// "42-51" or "42,45,50": the tune seeds of --evaluation.
std::vector<int64_t> parse_seeds(const std::string& text) {
  std::vector<int64_t> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    const auto dash = item.find('-', 1);
    try {
      size_t used = 0;
      const int64_t lo = std::stoll(item.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? item.size() : dash)) throw std::invalid_argument(item);
      int64_t hi = lo;
      if (dash != std::string::npos) {
        hi = std::stoll(item.substr(dash + 1), &used);
        if (used != item.size() - dash - 1) throw std::invalid_argument(item);
      }
      // Unsigned span: no overflow next to the int64 limits.
      const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
      if (hi < lo || span > 10000) throw std::invalid_argument(item);
      for (uint64_t i = 0; i <= span; ++i) out.push_back(static_cast<int64_t>(static_cast<uint64_t>(lo) + i));
    } catch (const std::exception&) {
      throw InputError("--seeds: expected seeds such as 42-51 or 42,45 (a range of at most 10,001), got '" + text +
                       "'");
    }
  }
  if (out.empty()) throw InputError("--seeds: no seed given");
  // Each seed once, in the order given.
  std::vector<int64_t> unique;
  for (int64_t s : out)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  return unique;
}

// --evaluation runs the published configuration; options that would not change it are refused, not ignored.
void refuse_outside_evaluation(const PackOptions& o) {
  std::vector<std::string> given;
  if (!o.params.empty()) given.push_back("--param");
  if (o.tie_break != "published") given.push_back("--tie-break");
  if (o.seed != 42) given.push_back("--seed (random-fit draws from a stream of each run's tune seed)");
  if (o.tune_seed != 42) given.push_back("--tune-seed (use --seeds)");
  if (!o.arrivals.empty()) given.push_back("--arrivals");
  if (!o.nodes.empty() || !o.pods.empty()) given.push_back("--nodes/--pods (use --trace and --workloads)");
  if (o.mode != "packing") given.push_back("--mode");
  if (!given.empty()) {
    std::string list;
    for (const auto& g : given) list += (list.empty() ? "" : ", ") + g;
    throw InputError("--evaluation runs the published configuration (tuned arrivals, published ties); not with " +
                     list);
  }
}

// The output directory must be one (or not exist yet) before anything runs.
void check_output_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InputError("-o: '" + dir + "' exists and is not a directory");
}

int run_evaluation_mode(const PackOptions& o, const std::vector<std::string>& policies) {
  if (o.trace_dir.empty()) throw InputError("--evaluation needs --trace DIR (the openb pod and node lists)");
  refuse_outside_evaluation(o);
  trace::EvaluationOptions e;
  e.trace_dir = o.trace_dir;
  for (const auto& w : o.workloads)
    if (std::find(e.workloads.begin(), e.workloads.end(), w) == e.workloads.end()) e.workloads.push_back(w);
  for (const auto& w : e.workloads)
    if (!fs::exists(fs::path(o.trace_dir) / ("openb_pod_list_" + w + ".csv")))
      throw InputError("--workloads: no openb_pod_list_" + w + ".csv in " + o.trace_dir +
                       suggest(w, trace::published_workloads()));
  for (const auto& [flag, file] : {std::pair{"--published", o.published}, {"--published-frag", o.published_frag}})
    if (!file.empty() && !fs::is_regular_file(file))
      throw InputError(std::string(flag) + ": '" + file + "' is not a readable file");
  e.policies = policies;
  e.seeds = parse_seeds(o.seeds);
  e.tune_ratio = o.tune_ratio < 0 ? 1.3 : o.tune_ratio;
  e.popularity_percent = o.popularity;
  e.jobs = o.jobs;
  // The published files are read before the runs: a bad row is reported before a minute of work.
  std::optional<trace::PublishedCurves> published_allocation, published_fragmentation;
  if (!o.published.empty()) published_allocation = trace::read_published_curves(o.published);
  if (!o.published_frag.empty()) published_fragmentation = trace::read_published_curves(o.published_frag);
  const auto runs = trace::run_evaluation(e);
  std::optional<trace::PublishedComparison> allocation, fragmentation;
  if (published_allocation)
    allocation = trace::compare_with_published(runs, *published_allocation, e.tune_ratio, false);
  if (published_fragmentation)
    fragmentation = trace::compare_with_published(runs, *published_fragmentation, e.tune_ratio, true);
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw RuntimeError("cannot create output directory " + o.out_dir + ": " + ec.message());
  const fs::path dir(o.out_dir);
  write_file_atomic((dir / "analysis_allo_discrete.csv").string(), trace::discrete_csv(runs, e.tune_ratio, false));
  write_file_atomic((dir / "analysis_frag_discrete.csv").string(), trace::discrete_csv(runs, e.tune_ratio, true));
  write_file_atomic((dir / "figure.csv").string(), trace::figure_csv(runs));
  write_file_atomic((dir / "figure.svg").string(), trace::figure_svg(runs));
  std::printf(
      "gputwin: pack: %zu runs; %s/analysis_allo_discrete.csv, analysis_frag_discrete.csv, figure.csv, "
      "figure.svg\n",
      runs.size(), o.out_dir.c_str());
  std::string report;
  if (allocation) {
    write_file_atomic((dir / "comparison.csv").string(), trace::comparison_csv(*allocation));
    const std::string summary = trace::comparison_summary(*allocation);
    report += "# Allocation curves against the published runs (" + o.published + ")\n\n" + summary;
    std::printf("\nGPU allocation curves against %s (every column 0..130 %%):\n\n%s", o.published.c_str(),
                summary.c_str());
  }
  if (fragmentation) {
    write_file_atomic((dir / "comparison_frag.csv").string(), trace::comparison_csv(*fragmentation));
    const std::string summary = trace::comparison_summary(*fragmentation);
    report += std::string(report.empty() ? "" : "\n") + "# Fragmentation curves against the published runs (" +
              o.published_frag + ")\n\n" + summary;
    std::printf("\nFragmentation curves against %s (every column 0..130 %%):\n\n%s", o.published_frag.c_str(),
                summary.c_str());
  }
  if (!report.empty()) write_file_atomic((dir / "comparison.md").string(), report);
  return EXIT_OK;
}

int run_pack(PackOptions o) {
  if (!o.tune_seed_text.empty()) {
    size_t used = 0;
    try {
      o.tune_seed = std::stoll(o.tune_seed_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != o.tune_seed_text.size())
      throw InputError("--tune-seed: expected a whole number within 64 bits (Go's seed is an int64), got '" +
                       o.tune_seed_text + "'");
  }
  const auto policies = selected_policies(o.policy);
  const auto params = parse_params(o.params, policies);
  if (o.popularity <= 0 || o.popularity > 100) throw InputError("--popularity: expected a percentage in (0, 100]");
  if (!o.trace_dir.empty() && !fs::is_directory(o.trace_dir))
    throw InputError("--trace: '" + o.trace_dir + "' is not a directory");
  if (!(o.tune_ratio <= 100) || (o.tune_ratio < 0 && o.tune_ratio != -1))
    throw InputError("--tune-ratio: expected a ratio of the GPU capacity in [0, 100]");
  check_output_dir(o.out_dir);
  if (o.evaluation) return run_evaluation_mode(o, policies);
  if (!o.trace_dir.empty()) {
    const fs::path dir(o.trace_dir);
    if (o.nodes.empty()) o.nodes = (dir / DEFAULT_NODES).string();
    if (o.pods.empty()) o.pods = (dir / DEFAULT_PODS).string();
  }
  if (o.nodes.empty() || o.pods.empty())
    throw InputError("give --trace DIR, or --nodes FILE and --pods FILE (see `gputwin pack --help`)");
  if (o.tune_ratio < 0) o.tune_ratio = o.trace_dir.empty() ? 0 : 1.3;

  const auto nodes = trace::read_openb_nodes(o.nodes);
  const auto pods = trace::read_openb_pods(o.pods);
  // One stream, as in a published run: the tuning (or just its shuffle's draws), then the node ranks.
  int64_t capacity = 0;
  for (const auto& n : nodes) capacity += static_cast<int64_t>(n.gpus) * packing::MILLI;
  if (capacity == 0) throw InputError(o.nodes + ": no node has a GPU: there is no GPU capacity to pack");
  trace::GoRand stream(o.tune_seed);
  const auto tuned = trace::tune_arrivals(pods, capacity, o.tune_ratio, stream);
  const auto node_rank = trace::published_node_ranks(nodes, stream);
  std::vector<int> arrivals;
  if (!o.arrivals.empty())
    arrivals = trace::read_openb_arrivals(o.arrivals, pods);
  else if (o.tune_ratio > 0)
    arrivals = tuned.base;
  const auto input = trace::build_packing_input(nodes, pods, arrivals);
  if (o.mode == "time") return run_time_mode(o, pods, input, policies, params);

  std::vector<trace::PackingResult> results;
  std::printf("%-15s %9s %8s %12s %11s %10s %10s %8s\n", "POLICY", "ARRIVALS", "FAILED", "FAILED(GPU)", "GPU-ALLOC%",
              "FRAG%CAP", "FRAG%IDLE", "WALL");
  for (const auto& policy : policies) {
    trace::ReplayOptions options;
    options.seed = o.seed;
    options.popularity_percent = o.popularity;
    options.tie_break = o.tie_break == "random"  ? packing::TieBreak::RANDOM
                        : o.tie_break == "first" ? packing::TieBreak::FIRST
                                                 : packing::TieBreak::RANK;
    options.node_rank = node_rank;
    if (auto it = params.find(policy); it != params.end()) options.params = it->second;
    results.push_back(trace::run_packing(input, policy, options));
    const auto& r = results.back();
    std::printf("%-15s %9lld %8lld %12lld %11.2f %10.2f %10.2f %7.2fs\n", r.policy.c_str(),
                static_cast<long long>(r.arrivals), static_cast<long long>(r.failed_pods),
                static_cast<long long>(r.failed_gpu_pods), r.allocated_pct, r.frag_pct, r.frag_idle_pct,
                r.wall_seconds);
    std::fflush(stdout);
  }

  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw RuntimeError("cannot create output directory " + o.out_dir + ": " + ec.message());
  write_file_atomic((fs::path(o.out_dir) / "pack.json").string(), pack_json(o, input, results));
  write_file_atomic((fs::path(o.out_dir) / "pack.csv").string(), pack_csv(results));
  write_file_atomic((fs::path(o.out_dir) / "pack.md").string(), pack_markdown(o, input, results));
  std::vector<trace::EvaluationRun> runs;
  const std::string workload = fs::path(o.pods).stem().string();
  for (const auto& r : results)
    runs.push_back({workload, r.policy, o.tune_seed, static_cast<int64_t>(input.cluster.gpu_free.size()), r.failed_pods,
                    r.discrete});
  write_file_atomic((fs::path(o.out_dir) / "analysis_allo_discrete.csv").string(),
                    trace::discrete_csv(runs, o.tune_ratio, false));
  std::string written = "pack.json, pack.csv, pack.md, analysis_allo_discrete.csv";
  if (o.arrivals.empty() && o.tune_ratio > 0) {
    write_file_atomic((fs::path(o.out_dir) / "arrivals.csv").string(), trace::arrivals_csv(tuned, pods));
    written += ", arrivals.csv";
  }
  std::printf("gputwin: pack: %s/%s\n", o.out_dir.c_str(), written.c_str());
  return EXIT_OK;
}

}  // namespace

Subcommand register_pack_command(CLI::App& app) {
  auto options = std::make_shared<PackOptions>();
  auto* cmd = app.add_subcommand(
      "pack", "Replay the openb packing experiment of 'Beware of Fragmentation' (ATC'23) with packing policies");
  cmd->add_option("--trace", options->trace_dir,
                  std::string("openb trace directory (uses ") + DEFAULT_NODES + " and " + DEFAULT_PODS +
                      "; the arrivals are tuned as in the published runs)")
      ->check(NON_EMPTY);
  cmd->add_option("--nodes", options->nodes, "openb_node_list_*.csv (overrides --trace)");
  cmd->add_option("--pods", options->pods, "openb_pod_list_*.csv (overrides --trace)");
  cmd->add_option("--arrivals", options->arrivals, "arrival order (seq,pod,base_pod) instead of the tuned one")
      ->check(NON_EMPTY);
  cmd->add_option("--tune-ratio", options->tune_ratio,
                  "arrivals as the published simulator tunes them: the pods shuffled, then copied (or removed) "
                  "until the GPU demand is this ratio of capacity (default 1.3 with --trace; 0: every pod once, "
                  "in list order); with --arrivals, ratio and seed still give the published tie-break's node order")
      ->check(NON_EMPTY);
  cmd->add_option("--tune-seed", options->tune_seed_text,
                  "seed of the published run's Go math/rand stream: shuffle, copies, node order (default 42)")
      ->check(NON_EMPTY);
  cmd->add_option("--policy", options->policy,
                  "random-fit, dot-product, gpu-clustering, gpu-packing, best-fit, fgd, or all (default all)");
  cmd->add_option("--seed", options->seed,
                  "seed of the random streams: random-fit choices, random tie-breaks (default 42)");
  cmd->add_option("--popularity", options->popularity,
                  "percent of pods whose most popular classes form the frag measure's target workload (default 95)");
  cmd->add_option("--tie-break", options->tie_break,
                  "equally scored nodes: published (the node the published run named smallest, from the tune "
                  "seed's stream; default), first (lowest-numbered) or random (seeded by --seed)")
      ->check(CLI::IsMember({"published", "first", "random"}));
  cmd->add_flag("--evaluation", options->evaluation,
                "the paper's whole evaluation: pod lists x policies x tune seeds, written as the published "
                "analysis_{allo,frag}_discrete.csv, figure.csv and figure.svg");
  cmd->add_option("--workloads", options->workloads,
                  "--evaluation: pod lists by name (openb_pod_list_NAME.csv; default the 17 published ones)")
      ->delimiter(',');
  cmd->add_option("--seeds", options->seeds, "--evaluation: tune seeds, e.g. 42-51 (default) or 42,45")
      ->check(NON_EMPTY);
  cmd->add_option("--published", options->published,
                  "--evaluation: the published analysis_allo_discrete.csv to compare every run with")
      ->check(NON_EMPTY);
  cmd->add_option("--published-frag", options->published_frag,
                  "--evaluation: the published analysis_frag_discrete.csv to compare every run with")
      ->check(NON_EMPTY);
  cmd->add_option("-j,--jobs", options->jobs, "--evaluation: runs in parallel (default 1)")->check(CLI::Range(1, 256));
  cmd->add_option("--param", options->params, "policy parameter key=value (repeatable), e.g. max_cpu_milli=96000");
  cmd->add_option("-o,--output", options->out_dir, "output directory (default out/pack)");
  cmd->add_option("--mode", options->mode,
                  "packing (default: arrivals only, the ATC'23 experiment) or time (every pod at its creation time, "
                  "leaving at its deletion time)")
      ->check(CLI::IsMember({"packing", "time"}));
  cmd->add_option("--speedup", options->speedup,
                  "time mode: compress arrivals k-fold, keeping each pod's lifetime (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sample-every", options->sample_every,
                  "time mode: seconds of replayed time between points of timereplay.csv (default 3600)")
      ->check(CLI::PositiveNumber);
  return Subcommand{cmd, [options] { return run_pack(*options); }};
}

void print_packing_policies(std::ostream& out) {
  out << "\nPacking policies (gputwin pack --policy NAME [--param key=value]):\n";
  for (const auto& name : packing::packing_policy_order()) {
    const PluginInfo* info = packing::packing_registry().find(name);
    out << "  " << info->name << "\n      " << info->summary << "\n";
    for (const auto& p : info->params)
      out << "      params." << p.name << " (" << param_type_name(p.type)
          << (std::holds_alternative<double>(p.default_value)
                  ? ", default " + fixed(std::get<double>(p.default_value), 0)
                  : std::string())
          << "): " << p.help << "\n";
  }
}

}  // namespace gtw::cli
