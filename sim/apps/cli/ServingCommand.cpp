// gputwin serving: one LLM serving engine alone (models/serving/ServingRun: a tensor-parallel replica at the
// roofline of its steps, continuous batching, paged KV cache), and `--validate`: the table of gputwin's
// predictions against published serving measurements (../shared/reference/serving-targets.csv), through
// a mapping file (calibration/serving/targets.yaml) that says for each row which configuration to run,
// which metric to compare and whether the row is fitted, predicted or excluded. The published values are
// read from the CSV at run time, never copied into the mapping. docs/validation/serving.md.
#include "ServingCommand.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "AtomicFile.hpp"
#include "Csv.hpp"
#include "EngineOverhead.hpp"
#include "Errors.hpp"
#include "HardwareProfile.hpp"
#include "ModelCatalogue.hpp"
#include "ParameterProvenance.hpp"
#include "Rng.hpp"
#include "ServingRun.hpp"
#include "Units.hpp"
#include "YamlInput.hpp"

namespace fs = std::filesystem;

namespace gtw::cli {
namespace {

enum class LoadKind { OFFLINE, CONCURRENCY, RATE };

// One engine run: what `gputwin serving` takes on its command line and a mapping row describes.
struct RunSpec {
  std::string model, gpu;
  int tp = 1;
  DType weights = DType::FP16;
  double kv_bytes_per_value = 2;
  int input = 128, output = 128;
  LoadKind load = LoadKind::OFFLINE;
  int concurrency = 0;
  double rate = 0;
  int requests = 1000;
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  double gpu_memory_utilization = 0.9;
  // TensorRT-LLM's default capacity scheduler (GUARANTEED_NO_EVICT) admits a request only when the blocks of
  // its whole sequence (prompt + every output token) are free, so it never preempts: the batcher's
  // reserve_whole_sequence (models/serving/ContinuousBatcher.hpp).
  bool reserve_full_sequence = false;
  double step_overhead_s = 0;
  double gpu_time_share = 1;  // host time proportional to GPU time (ServingConfig::gpu_time_share)
  double front_end_s = 0;     // per request, before the scheduler (EngineSetup::front_end_s)
  // Per-request (prompt, output) lengths to draw from (seeded, stream serving/lengths) instead of input/output.
  std::shared_ptr<const std::vector<std::pair<int, int>>> lengths;
  uint64_t seed = 1;
};

struct Metrics {
  size_t completed = 0, refused = 0;
  double duration = 0;
  double output_tps = 0, total_tps = 0, rps = 0;
  double ttft_median = 0, ttft_mean = 0, ttft_p99 = 0, ttft_max = 0;
  // Per request: (done - first token) / (output - 1), the mean gap between its tokens (TPOT).
  double tpot_median = 0, tpot_mean = 0, tpot_p99 = 0;
  // Over every gap between two tokens of a request (ITL, as benchmark_serving counts it): a request's gaps
  // differ when a prefill step or a preemption interrupts its decode, so the median ITL sits below the median
  // TPOT; the means are equal when every request has the same output length.
  double itl_median = 0, itl_mean = 0, itl_p99 = 0;
  double e2e_median = 0, e2e_mean = 0, e2e_p99 = 0;
  long long kv_blocks = 0, kv_tokens = 0, peak_blocks = 0, preemptions = 0, steps = 0;
  bool fits = true;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return serving::interpolated_percentile(static_cast<long long>(v.size()), p,
                                          [&](long long k) { return v[static_cast<size_t>(k)]; });
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

const char* dtype_text(DType d) {
  switch (d) {
    case DType::FP32:
      return "fp32";
    case DType::FP16:
      return "fp16";
    case DType::BF16:
      return "bf16";
    case DType::FP8:
      return "fp8";
  }
  return "?";
}

std::optional<DType> dtype_of(const std::string& s) {
  if (s == "fp16") return DType::FP16;
  if (s == "bf16") return DType::BF16;
  if (s == "fp8") return DType::FP8;
  return std::nullopt;
}

serving::EngineSetup setup_for(const RunSpec& r, const ModelArchitecture& model, const HardwareProfile& gpu) {
  serving::EngineSetup s;
  s.model = &model;
  s.gpu = &gpu;
  s.step.tp = r.tp;
  s.step.weights = r.weights;
  s.step.kv_bytes_per_value = r.kv_bytes_per_value;
  s.step.gpu_memory_utilization = r.gpu_memory_utilization;
  s.batcher.max_num_seqs = r.max_num_seqs;
  s.batcher.max_num_batched_tokens = r.max_num_batched_tokens;
  s.batcher.chunked_prefill = r.chunked_prefill;
  s.step_overhead_s = r.step_overhead_s;
  s.step.gpu_time_share = r.gpu_time_share;
  s.front_end_s = r.front_end_s;
  return s;
}

Metrics run_spec(const RunSpec& r, const ModelArchitecture& model, const HardwareProfile& gpu) {
  Metrics m;
  const serving::EngineSetup setup = setup_for(r, model, gpu);
  const KvCapacity kv = kv_capacity(model, gpu.memory.value, setup.step);
  m.kv_blocks = kv.blocks;
  m.kv_tokens = kv.tokens;
  m.fits = kv.fits;
  if (!kv.fits) return m;
  serving::EngineSetup capped = setup;
  capped.batcher.reserve_whole_sequence = r.reserve_full_sequence;
  std::vector<serving::SequenceRequest> requests;
  requests.reserve(static_cast<size_t>(r.requests));
  RngStream arrivals = make_stream(r.seed, "serving/arrivals");
  RngStream lengths = make_stream(r.seed, "serving/lengths");
  double t = 0;
  for (int i = 0; i < r.requests; ++i) {
    if (r.load == LoadKind::RATE) t += arrivals.exponential(r.rate);
    int input = r.input, output = r.output;
    if (r.lengths && !r.lengths->empty()) {
      const auto& pool = *r.lengths;
      const auto k =
          std::min(pool.size() - 1, static_cast<size_t>(lengths.uniform() * static_cast<double>(pool.size())));
      input = pool[k].first;
      output = pool[k].second;
    }
    requests.push_back({static_cast<uint64_t>(i), t, input, output, 0});
  }
  const auto run =
      serving::run_engine(capped, std::move(requests), r.load == LoadKind::CONCURRENCY ? r.concurrency : 0);
  m.completed = run.completions.size();
  m.refused = run.refused.size();
  m.duration = run.end;
  m.peak_blocks = run.stats.peak_blocks;
  m.preemptions = run.stats.preemptions;
  m.steps = run.stats.steps;
  std::vector<double> ttft, tpot, e2e;
  double in_tokens = 0, out_tokens = 0;
  for (const auto& c : run.completions) {
    ttft.push_back(c.first_token - c.request.arrival);
    e2e.push_back(c.done - c.request.arrival);
    if (c.request.output_tokens > 1) tpot.push_back((c.done - c.first_token) / (c.request.output_tokens - 1));
    in_tokens += c.request.prompt_tokens;
    out_tokens += c.request.output_tokens;
  }
  if (m.duration > 0) {
    m.output_tps = out_tokens / m.duration;
    m.total_tps = (in_tokens + out_tokens) / m.duration;
    m.rps = static_cast<double>(m.completed) / m.duration;
  }
  m.ttft_median = percentile(ttft, 50);
  m.ttft_mean = mean(ttft);
  m.ttft_p99 = percentile(ttft, 99);
  m.ttft_max = percentile(ttft, 100);
  m.tpot_median = percentile(tpot, 50);
  m.tpot_mean = mean(tpot);
  m.tpot_p99 = percentile(tpot, 99);
  m.itl_median = run.gaps.percentile(50);
  m.itl_mean = run.gaps.mean();
  m.itl_p99 = run.gaps.percentile(99);
  m.e2e_median = percentile(e2e, 50);
  m.e2e_mean = mean(e2e);
  m.e2e_p99 = percentile(e2e, 99);
  return m;
}

std::string load_text(const RunSpec& r) {
  char buf[96];
  switch (r.load) {
    case LoadKind::OFFLINE:
      std::snprintf(buf, sizeof buf, "offline n=%d", r.requests);
      break;
    case LoadKind::CONCURRENCY:
      std::snprintf(buf, sizeof buf, "concurrency %d n=%d", r.concurrency, r.requests);
      break;
    case LoadKind::RATE:
      std::snprintf(buf, sizeof buf, "Poisson %g req/s n=%d", r.rate, r.requests);
      break;
  }
  return buf;
}

// ---------------------------------------------------------------------------------------------------------------
// Single run

struct SingleOptions {
  std::string model, gpu, dtype = "fp16", kv_dtype;
  int tp = 1, input = 0, output = 0, concurrency = 0, requests = 1000, max_num_seqs = 256,
      max_num_batched_tokens = 8192;
  double rate = 0, step_overhead_ms = 0, front_end_ms = 0;
  bool offline = false, no_chunked_prefill = false, reserve_full_sequence = false;
  uint64_t seed = 1;
  std::string validate, out, targets;
  bool fit = false;
};

bool load_model_and_gpu(const std::string& model_id, const std::string& gpu_name, const SourceLoc& model_loc,
                        const SourceLoc& gpu_loc, const ModelCatalogue& catalogue,
                        std::map<std::string, std::unique_ptr<HardwareProfile>>& profiles, Diagnostics& diags) {
  bool ok = true;
  if (catalogue.find(model_id) == nullptr) {
    diags.error(model_loc, "model",
                "no model '" + model_id + "' in the catalogue " + catalogue.file + suggest(model_id, catalogue.ids()));
    ok = false;
  }
  if (profiles.count(gpu_name) == 0) {
    auto p = std::make_unique<HardwareProfile>();
    if (!load_profile(gpu_name, gpu_loc, "gpu", *p, diags)) return false;
    profiles.emplace(gpu_name, std::move(p));
  }
  return ok;
}

void print_metrics(const RunSpec& r, const Metrics& m) {
  std::printf("gputwin serving: %s on %d x %s (%s weights, %s KV), %d in / %d out, %s\n", r.model.c_str(), r.tp,
              r.gpu.c_str(), dtype_text(r.weights), r.kv_bytes_per_value < 2 ? "fp8" : "fp16", r.input, r.output,
              load_text(r).c_str());
  std::printf("  scheduler: max-num-seqs %d%s, max-num-batched-tokens %d, chunked prefill %s, step overhead %.3f ms\n",
              r.max_num_seqs, r.reserve_full_sequence ? " (whole sequences reserved)" : "", r.max_num_batched_tokens,
              r.chunked_prefill ? "on" : "off", r.step_overhead_s * 1e3);
  std::printf("  KV cache: %lld blocks of 16 tokens (%lld tokens), peak %lld blocks in use; preemptions %lld\n",
              m.kv_blocks, m.kv_tokens, m.peak_blocks, m.preemptions);
  std::printf("  completed %zu requests (%zu refused: longer than the KV cache) in %.3f s, %lld engine steps\n",
              m.completed, m.refused, m.duration, m.steps);
  std::printf("  throughput: %.1f output tokens/s, %.1f total tokens/s, %.3f requests/s\n", m.output_tps, m.total_tps,
              m.rps);
  std::printf("  %-5s %12s %12s %12s\n", "ms", "median", "mean", "p99");
  std::printf("  %-5s %12.2f %12.2f %12.2f\n", "TTFT", m.ttft_median * 1e3, m.ttft_mean * 1e3, m.ttft_p99 * 1e3);
  std::printf("  %-5s %12.2f %12.2f %12.2f\n", "TPOT", m.tpot_median * 1e3, m.tpot_mean * 1e3, m.tpot_p99 * 1e3);
  std::printf("  %-5s %12.2f %12.2f %12.2f   (every gap between two tokens)\n", "ITL", m.itl_median * 1e3,
              m.itl_mean * 1e3, m.itl_p99 * 1e3);
  std::printf("  %-5s %12.2f %12.2f %12.2f\n", "E2E", m.e2e_median * 1e3, m.e2e_mean * 1e3, m.e2e_p99 * 1e3);
}

int run_single(const SingleOptions& o, int load_options) {
  Diagnostics diags;
  const SourceLoc cli{"command line", 0, 0};
  if (o.model.empty()) diags.error(cli, "--model", "required (a model id of `gputwin models`)");
  if (o.gpu.empty()) diags.error(cli, "--gpu", "required (a profile of `gputwin profiles`)");
  if (o.input < 1) diags.error(cli, "--input", "required: prompt tokens per request, at least 1");
  if (o.output < 1) diags.error(cli, "--output", "required: output tokens per request, at least 1");
  if (load_options != 1) diags.error(cli, "", "give exactly one of --concurrency N, --rate R, --offline");
  if (o.tp < 1 || o.tp > 64) diags.error(cli, "--tp", "expected 1..64");
  if (o.requests < 1) diags.error(cli, "--requests", "expected at least 1");
  if (o.max_num_seqs < 1) diags.error(cli, "--max-num-seqs", "expected at least 1");
  if (o.max_num_batched_tokens < 1) diags.error(cli, "--max-num-batched-tokens", "expected at least 1");
  if (o.concurrency < 0 || (load_options == 1 && o.concurrency == 0 && !o.offline && !(o.rate > 0)))
    diags.error(cli, "", "--concurrency expects at least 1, --rate a positive number of requests per second");
  if (!(o.step_overhead_ms >= 0) || !std::isfinite(o.step_overhead_ms))
    diags.error(cli, "--step-overhead-ms", "expected a non-negative number of milliseconds");
  if (!(o.front_end_ms >= 0) || !(o.front_end_ms < 1000))
    diags.error(cli, "--front-end-ms", "expected milliseconds in [0, 1000)");
  const auto weights = dtype_of(o.dtype);
  if (!weights) diags.error(cli, "--dtype", "expected fp16, bf16 or fp8, got '" + o.dtype + "'");
  const std::string kv = o.kv_dtype.empty() ? (o.dtype == "fp8" ? "fp16" : o.dtype) : o.kv_dtype;
  if (!dtype_of(kv)) diags.error(cli, "--kv-dtype", "expected fp16, bf16 or fp8, got '" + kv + "'");
  const auto catalogue = load_model_catalogue(default_model_catalogue_path(), diags);
  std::map<std::string, std::unique_ptr<HardwareProfile>> profiles;
  if (catalogue && !o.model.empty() && !o.gpu.empty())
    load_model_and_gpu(o.model, o.gpu, SourceLoc{"--model", 0, 0}, SourceLoc{"--gpu", 0, 0}, *catalogue, profiles,
                       diags);
  if (diags.has_errors()) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  RunSpec r;
  r.model = o.model;
  r.gpu = o.gpu;
  r.tp = o.tp;
  r.weights = *weights;
  r.kv_bytes_per_value = kv == "fp8" ? 1 : 2;
  r.input = o.input;
  r.output = o.output;
  r.load = o.offline ? LoadKind::OFFLINE : o.concurrency > 0 ? LoadKind::CONCURRENCY : LoadKind::RATE;
  r.concurrency = o.concurrency;
  r.rate = o.rate;
  r.requests = o.requests;
  r.max_num_seqs = o.max_num_seqs;
  r.max_num_batched_tokens = o.max_num_batched_tokens;
  r.chunked_prefill = !o.no_chunked_prefill;
  r.reserve_full_sequence = o.reserve_full_sequence;
  r.step_overhead_s = o.step_overhead_ms * 1e-3;
  r.front_end_s = o.front_end_ms * 1e-3;
  r.seed = o.seed;
  const Metrics m = run_spec(r, *catalogue->find(r.model), *profiles.at(r.gpu));
  if (!m.fits) {
    std::cerr << "gputwin: error: " << r.model << " in " << dtype_text(r.weights) << " does not fit " << r.tp << " x "
              << r.gpu << " with room for its KV cache\n";
    return EXIT_INVALID_INPUT;
  }
  print_metrics(r, m);
  return EXIT_OK;
}

// ---------------------------------------------------------------------------------------------------------------
// The mapping file

enum class Status { FITTED, PREDICTED, EXCLUDED };

struct Row {
  std::string id;
  SourceLoc loc;
  Status status = Status::PREDICTED;
  std::string reason;  // excluded
  std::string engine;
  std::string metric;
  SourceLoc metric_loc;
  bool sharegpt = false;
  std::string note;
  std::string family;  // host-overhead family of the engine (hostOverhead:)
  RunSpec run;
};

struct Mapping {
  std::string file;
  std::string targets;                                               // the CSV, resolved
  std::map<std::string, serving::EngineOverhead> families;           // resolved: same_as copied
  std::map<std::string, std::pair<double, std::string>> front_ends;  // engine -> (seconds per request, source)
  int sharegpt_input = 0, sharegpt_output = 0;
  std::string sharegpt_shape;  // a CSV of real (prompt, output) lengths whose shape stands in for ShareGPT's
  std::shared_ptr<const std::vector<std::pair<int, int>>> sharegpt_lengths;
  std::vector<Row> rows;
};

const std::vector<std::string> THROUGHPUT_METRICS = {"output_tokens_per_s", "total_tokens_per_s", "requests_per_s"};
const std::vector<std::string> LATENCY_METRICS = {"ttft_median",  "ttft_mean",       "itl_median", "itl_mean",
                                                  "tpot_median",  "tpot_mean",       "e2e_median", "e2e_mean",
                                                  "prefill_time", "decode_step_time"};

bool is_throughput(const std::string& metric) {
  return std::find(THROUGHPUT_METRICS.begin(), THROUGHPUT_METRICS.end(), metric) != THROUGHPUT_METRICS.end();
}

std::vector<std::string> all_metrics() {
  auto v = THROUGHPUT_METRICS;
  v.insert(v.end(), LATENCY_METRICS.begin(), LATENCY_METRICS.end());
  return v;
}

// gputwin's value of a metric, in the unit of the published one (ms for latencies; per GPU when asked).
double metric_value(const std::string& metric, const Metrics& m) {
  if (metric == "output_tokens_per_s") return m.output_tps;
  if (metric == "total_tokens_per_s") return m.total_tps;
  if (metric == "requests_per_s") return m.rps;
  if (metric == "ttft_median") return m.ttft_median * 1e3;
  if (metric == "ttft_mean") return m.ttft_mean * 1e3;
  if (metric == "itl_median") return m.itl_median * 1e3;
  if (metric == "itl_mean") return m.itl_mean * 1e3;
  if (metric == "tpot_median") return m.tpot_median * 1e3;
  if (metric == "tpot_mean" || metric == "decode_step_time") return m.tpot_mean * 1e3;
  if (metric == "e2e_median") return m.e2e_median * 1e3;
  if (metric == "e2e_mean") return m.e2e_mean * 1e3;
  if (metric == "prefill_time") return m.ttft_max * 1e3;
  return 0;
}

class MappingParser {
 public:
  MappingParser(const std::string& file, Diagnostics& diags) : file_(file), d_(diags) {}

  SourceLoc loc(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.is_null() || m.line < 0) return SourceLoc{file_, 0, 0};
    return SourceLoc{file_, m.line + 1, m.column + 1};
  }

  void keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& valid) {
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (std::find(valid.begin(), valid.end(), k) == valid.end())
        d_.error(loc(kv.first), path + "." + k, "unknown field" + suggest(k, valid));
    }
  }

  std::optional<std::string> text(const YAML::Node& map, const std::string& key, const std::string& path,
                                  bool required) {
    const YAML::Node n = map[key];
    if (!n) {
      if (required) d_.error(loc(map), path + "." + key, "required field is missing");
      return std::nullopt;
    }
    if (!n.IsScalar()) {
      d_.error(loc(n), path + "." + key, "expected a scalar");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<double> number(const YAML::Node& map, const std::string& key, const std::string& path, bool required,
                               double lo, double hi, bool integer) {
    const auto t = text(map, key, path, required);
    if (!t) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi || (integer && v != std::floor(v))) {
      char range[96];
      std::snprintf(range, sizeof range, "%s in [%g, %g]", integer ? "an integer" : "a number", lo, hi);
      d_.error(loc(map[key]), path + "." + key, std::string("expected ") + range + ", got '" + *t + "'");
      return std::nullopt;
    }
    return v;
  }

  std::optional<bool> boolean(const YAML::Node& map, const std::string& key, const std::string& path) {
    const auto t = text(map, key, path, false);
    if (!t) return std::nullopt;
    if (*t == "true") return true;
    if (*t == "false") return false;
    d_.error(loc(map[key]), path + "." + key, "expected true or false, got '" + *t + "'");
    return std::nullopt;
  }

  // Fields a row and an engine preset share: the scheduler and memory settings.
  void engine_fields(const YAML::Node& n, const std::string& path, RunSpec& r) {
    if (auto v = number(n, "maxNumSeqs", path, false, 1, 1e6, true)) r.max_num_seqs = static_cast<int>(*v);
    if (auto v = number(n, "maxNumBatchedTokens", path, false, 1, 1e7, true))
      r.max_num_batched_tokens = static_cast<int>(*v);
    if (auto v = boolean(n, "chunkedPrefill", path)) r.chunked_prefill = *v;
    if (auto v = number(n, "gpuMemoryUtilization", path, false, 0.01, 1, false)) r.gpu_memory_utilization = *v;
    if (auto v = boolean(n, "reserveFullSequence", path)) r.reserve_full_sequence = *v;
  }

  // An engine's per-request front end (frontEnd: a duration, frontEndSource: where it comes from, with its provenance).
  void front_end(const YAML::Node& n, const std::string& path, const std::string& engine, RunSpec& r, Mapping& out) {
    if (!n["frontEnd"]) {
      if (n["frontEndSource"]) d_.error(loc(n["frontEndSource"]), path + ".frontEndSource", "given without frontEnd:");
      return;
    }
    const auto d = parse_duration(n["frontEnd"].IsScalar() ? n["frontEnd"].as<std::string>("") : "");
    if (!d || !(d.quantity->value < 1)) {
      d_.error(loc(n["frontEnd"]), path + ".frontEnd", "expected a duration in [0, 1s), e.g. 10ms");
      return;
    }
    const std::string source =
        n["frontEndSource"] && n["frontEndSource"].IsScalar() ? n["frontEndSource"].as<std::string>("") : std::string();
    if (!provenance_of(source)) {
      d_.error(
          loc(n["frontEndSource"] ? n["frontEndSource"] : n["frontEnd"]), path + ".frontEndSource",
          "say where the front end's time comes from, starting with its provenance: one of " + provenance_markers());
      return;
    }
    r.front_end_s = d.quantity->value;
    out.front_ends[engine] = {r.front_end_s, source};
  }

  std::optional<Mapping> parse(const YAML::Node& root) {
    Mapping out;
    out.file = file_;
    if (!root.IsMap()) {
      d_.error(loc(root), "", "a serving mapping is a YAML mapping with kind: ServingTargets and rows:");
      return std::nullopt;
    }
    keys(root, "", {"apiVersion", "kind", "targets", "hostOverhead", "sharegpt", "engines", "rows"});
    if (auto k = text(root, "kind", "", true); k && *k != "ServingTargets")
      d_.error(loc(root["kind"]), "kind", "expected ServingTargets, got '" + *k + "'");
    if (auto t = text(root, "targets", "", false)) out.targets = (fs::path(file_).parent_path() / *t).string();
    if (const YAML::Node ho = root["hostOverhead"]) {
      if (auto families = serving::read_engine_overheads(ho, file_, d_)) out.families = std::move(*families);
    }
    if (const YAML::Node sg = root["sharegpt"]) {
      if (!sg.IsMap()) {
        d_.error(loc(sg), "sharegpt", "expected a mapping with input:, output: and source:");
      } else {
        keys(sg, "sharegpt", {"input", "output", "shape", "source"});
        if (auto v = number(sg, "input", "sharegpt", true, 1, 1e6, true)) out.sharegpt_input = static_cast<int>(*v);
        if (auto v = number(sg, "output", "sharegpt", true, 1, 1e6, true)) out.sharegpt_output = static_cast<int>(*v);
        if (auto v = text(sg, "shape", "sharegpt", false)) {
          out.sharegpt_shape = (fs::path(file_).parent_path() / *v).string();
          out.sharegpt_lengths =
              sharegpt_lengths(out.sharegpt_shape, out.sharegpt_input, out.sharegpt_output, loc(sg["shape"]));
        }
        text(sg, "source", "sharegpt", true);
      }
    }
    std::map<std::string, RunSpec> engines;
    const std::vector<std::string> engine_keys = {"maxNumSeqs",
                                                  "maxNumBatchedTokens",
                                                  "chunkedPrefill",
                                                  "gpuMemoryUtilization",
                                                  "reserveFullSequence",
                                                  "family",
                                                  "frontEnd",
                                                  "frontEndSource",
                                                  "note"};
    std::map<std::string, std::string> engine_family;
    if (const YAML::Node es = root["engines"]) {
      if (!es.IsMap()) d_.error(loc(es), "engines", "expected a mapping of engine name to settings");
      for (const auto& kv : es.IsMap() ? es : YAML::Node()) {
        const std::string name = kv.first.as<std::string>();
        const std::string path = "engines." + name;
        if (!kv.second.IsMap()) {
          d_.error(loc(kv.second), path, "expected a mapping of settings");
          continue;
        }
        keys(kv.second, path, engine_keys);
        RunSpec r;
        engine_fields(kv.second, path, r);
        front_end(kv.second, path, name, r, out);
        engines[name] = r;
        if (auto f = text(kv.second, "family", path, false)) {
          if (out.families.count(*f) == 0)
            d_.error(loc(kv.second["family"]), path + ".family", "no family '" + *f + "' under hostOverhead:");
          engine_family[name] = *f;
        }
      }
    }
    std::vector<std::string> engine_names;
    for (const auto& [name, _] : engines) engine_names.push_back(name);
    const YAML::Node rows = root["rows"];
    if (!rows || !rows.IsSequence()) {
      d_.error(loc(rows ? rows : root), "rows", "expected a list of rows");
      return std::nullopt;
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < rows.size(); ++i) {
      const YAML::Node n = rows[i];
      const std::string path = "rows[" + std::to_string(i) + "]";
      if (!n.IsMap()) {
        d_.error(loc(n), path, "expected a mapping with id: and status:");
        continue;
      }
      Row row;
      row.loc = loc(n);
      if (auto id = text(n, "id", path, true)) row.id = *id;
      if (!row.id.empty() && !seen.insert(row.id).second)
        d_.error(loc(n["id"]), path + ".id", "row " + row.id + " twice");
      const auto status = text(n, "status", path, true);
      if (status) {
        if (*status == "fitted")
          row.status = Status::FITTED;
        else if (*status == "predicted")
          row.status = Status::PREDICTED;
        else if (*status == "excluded")
          row.status = Status::EXCLUDED;
        else
          d_.error(loc(n["status"]), path + ".status",
                   "unknown status '" + *status + "'" + suggest(*status, {"fitted", "predicted", "excluded"}));
      }
      if (row.status == Status::EXCLUDED) {
        keys(n, path, {"id", "status", "reason"});
        if (auto r = text(n, "reason", path, true)) row.reason = *r;
        out.rows.push_back(row);
        continue;
      }
      keys(n, path,
           {"id",
            "status",
            "model",
            "gpu",
            "tp",
            "dtype",
            "kvDtype",
            "input",
            "output",
            "lengths",
            "load",
            "concurrency",
            "rate",
            "requests",
            "metric",
            "engine",
            "note",
            "maxNumSeqs",
            "maxNumBatchedTokens",
            "chunkedPrefill",
            "gpuMemoryUtilization",
            "reserveFullSequence"});
      RunSpec& r = row.run;
      if (auto e = text(n, "engine", path, true)) {
        if (engines.count(*e) == 0)
          d_.error(loc(n["engine"]), path + ".engine",
                   "no engine '" + *e + "' under engines:" + suggest(*e, engine_names));
        else
          r = engines[*e];
        row.engine = *e;
        if (const auto f = engine_family.find(*e); f != engine_family.end()) row.family = f->second;
      }
      engine_fields(n, path, r);
      if (auto m = text(n, "model", path, true)) r.model = *m;
      if (auto g = text(n, "gpu", path, true)) r.gpu = *g;
      if (auto v = number(n, "tp", path, true, 1, 64, true)) r.tp = static_cast<int>(*v);
      if (auto dt = text(n, "dtype", path, true)) {
        if (auto d = dtype_of(*dt))
          r.weights = *d;
        else
          d_.error(loc(n["dtype"]), path + ".dtype", "expected fp16, bf16 or fp8, got '" + *dt + "'");
      }
      r.kv_bytes_per_value = 2;
      if (auto kd = text(n, "kvDtype", path, false)) {
        if (*kd == "fp8")
          r.kv_bytes_per_value = 1;
        else if (*kd != "fp16" && *kd != "bf16")
          d_.error(loc(n["kvDtype"]), path + ".kvDtype", "expected fp16, bf16 or fp8, got '" + *kd + "'");
      }
      if (auto l = text(n, "lengths", path, false)) {
        if (*l != "sharegpt")
          d_.error(loc(n["lengths"]), path + ".lengths",
                   "expected sharegpt (the lengths under sharegpt:), got '" + *l + "'");
        else if (!root["sharegpt"])
          d_.error(loc(n["lengths"]), path + ".lengths", "lengths: sharegpt needs the sharegpt: block at the top");
        row.sharegpt = true;
        r.input = out.sharegpt_input;
        r.output = out.sharegpt_output;
        r.lengths = out.sharegpt_lengths;
        if (n["input"] || n["output"])
          d_.error(loc(n["lengths"]), path + ".lengths", "give either lengths: sharegpt or input: and output:");
      } else {
        if (auto v = number(n, "input", path, true, 1, 1e6, true)) r.input = static_cast<int>(*v);
        if (auto v = number(n, "output", path, true, 1, 1e6, true)) r.output = static_cast<int>(*v);
      }
      if (auto l = text(n, "load", path, true)) {
        if (*l == "offline") {
          r.load = LoadKind::OFFLINE;
        } else if (*l == "concurrency") {
          r.load = LoadKind::CONCURRENCY;
          if (auto v = number(n, "concurrency", path, true, 1, 1e6, true)) r.concurrency = static_cast<int>(*v);
        } else if (*l == "rate") {
          r.load = LoadKind::RATE;
          if (auto v = number(n, "rate", path, true, 1e-6, 1e6, false)) r.rate = *v;
        } else {
          d_.error(loc(n["load"]), path + ".load",
                   "unknown load '" + *l + "'" + suggest(*l, {"offline", "concurrency", "rate"}));
        }
      }
      if (auto v = number(n, "requests", path, true, 1, 1e6, true)) r.requests = static_cast<int>(*v);
      if (auto m = text(n, "metric", path, true)) {
        row.metric = *m;
        row.metric_loc = loc(n["metric"]);
        const auto valid = all_metrics();
        if (std::find(valid.begin(), valid.end(), *m) == valid.end())
          d_.error(row.metric_loc, path + ".metric", "unknown metric '" + *m + "'" + suggest(*m, valid));
      }
      if (auto note = text(n, "note", path, false)) row.note = *note;
      out.rows.push_back(row);
    }
    return out;
  }

  // The (prompt, output) pairs of a trace of real requests (columns ContextTokens and GeneratedTokens, as the
  // Azure LLM inference trace has them), each scaled so that the trace's means become `input` and `output`,
  // rounded, then filtered as vLLM's and SGLang's benchmark scripts filter ShareGPT (prompt or output under 4
  // tokens, prompt over 1024 or prompt + output over 2048: dropped).
  std::shared_ptr<const std::vector<std::pair<int, int>>> sharegpt_lengths(const std::string& path, int input,
                                                                           int output, const SourceLoc& where) {
    if (!fs::exists(path)) {
      d_.error(where, "sharegpt.shape", "no file " + path);
      return nullptr;
    }
    CsvTable csv(path, d_);
    const int ctx = csv.column("ContextTokens", true), gen = csv.column("GeneratedTokens", true);
    if (d_.has_errors()) return nullptr;
    std::vector<std::pair<double, double>> raw;
    double sum_in = 0, sum_out = 0;
    for (const auto& row : csv.rows()) {
      const double a = static_cast<double>(csv.integer(row, ctx, "ContextTokens", 10000000));
      const double b = static_cast<double>(csv.integer(row, gen, "GeneratedTokens", 10000000));
      raw.emplace_back(a, b);
      sum_in += a;
      sum_out += b;
    }
    if (raw.empty() || sum_in <= 0 || sum_out <= 0) {
      d_.error(where, "sharegpt.shape", "no lengths in " + path);
      return nullptr;
    }
    const double n = static_cast<double>(raw.size());
    const double scale_in = input / (sum_in / n), scale_out = output / (sum_out / n);
    auto pool = std::make_shared<std::vector<std::pair<int, int>>>();
    for (const auto& [a, b] : raw) {
      const int p = static_cast<int>(std::lround(a * scale_in)), o = static_cast<int>(std::lround(b * scale_out));
      if (p < 4 || o < 4 || p > 1024 || p + o > 2048) continue;
      pool->emplace_back(p, o);
    }
    return pool;
  }

 private:
  std::string file_;
  Diagnostics& d_;
};

// ---------------------------------------------------------------------------------------------------------------
// The published targets

struct Target {
  std::string id, source, model, gpu, tp, input, output, metric, unit;
  double value = 0;
  SourceLoc loc;
};

std::map<std::string, Target> read_targets(const std::string& path, Diagnostics& diags) {
  std::map<std::string, Target> out;
  CsvTable csv(path, diags);
  if (diags.has_errors()) return out;
  const int id = csv.column("id", true), source = csv.column("source", true), model = csv.column("model", true),
            gpu = csv.column("gpu", true), tp = csv.column("tp", true), input = csv.column("input_tokens", true),
            output = csv.column("output_tokens", true), metric = csv.column("metric", true),
            value = csv.column("value", true), unit = csv.column("unit", true);
  if (diags.has_errors()) return out;
  for (const auto& row : csv.rows()) {
    Target t;
    t.id = row.fields[id].text;
    t.source = row.fields[source].text;
    t.model = row.fields[model].text;
    t.gpu = row.fields[gpu].text;
    t.tp = row.fields[tp].text;
    t.input = row.fields[input].text;
    t.output = row.fields[output].text;
    t.metric = row.fields[metric].text;
    t.unit = row.fields[unit].text;
    t.loc = csv.loc(row.line, row.fields[value].column);
    const std::string& v = row.fields[value].text;
    char* end = nullptr;
    t.value = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(t.value)) {
      diags.error(t.loc, "value", "row " + t.id + ": expected a number, got '" + v + "'");
      continue;
    }
    out[t.id] = t;
  }
  return out;
}

// The source up to its first parenthesis: "TensorRT-LLM perf-overview v0.17".
std::string short_source(const std::string& s) {
  const size_t p = s.find(" (");
  return p == std::string::npos ? s : s.substr(0, p);
}

std::optional<long> integer_text(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

// Checks a row against its published target: the same TP and lengths where the CSV states them, a metric
// of the kind the unit says.
void check_row(const Row& row, const Target& t, Diagnostics& diags) {
  const std::string where = "row " + row.id + ": ";
  if (auto tp = integer_text(t.tp); tp && *tp != row.run.tp)
    diags.error(row.loc, "tp", where + "tp " + std::to_string(row.run.tp) + " but the CSV says " + t.tp);
  if (!row.sharegpt) {
    if (auto in = integer_text(t.input); in && *in != row.run.input)
      diags.error(row.loc, "input", where + "input " + std::to_string(row.run.input) + " but the CSV says " + t.input);
    if (auto out = integer_text(t.output); out && *out != row.run.output)
      diags.error(row.loc, "output",
                  where + "output " + std::to_string(row.run.output) + " but the CSV says " + t.output);
  }
  const bool time_unit = t.unit == "ms";
  if (is_throughput(row.metric) == time_unit || (!time_unit && t.unit.find("/s") == std::string::npos))
    diags.error(row.metric_loc, "metric",
                where + "metric " + row.metric + " does not match the published unit '" + t.unit + "'");
}

struct Result {
  const Row* row = nullptr;
  const Target* target = nullptr;
  double fitted_value = 0, unfitted_value = 0;
  double fitted_error = 0, unfitted_error = 0;  // %, signed: (gputwin - published) / published
  bool ok = false;
  std::string problem;
};

double row_value(const Row& row, const Target& t, const Metrics& m) {
  double v = metric_value(row.metric, m);
  if (t.unit.find("/GPU") != std::string::npos) v /= row.run.tp;
  return v;
}

struct Context {
  const ModelCatalogue* catalogue = nullptr;
  std::map<std::string, std::unique_ptr<HardwareProfile>>* profiles = nullptr;
};

// A row run with its family's host time (`host` null: none, the model alone).
std::optional<double> evaluate(const Row& row, const Target& t, const serving::EngineOverhead* host, const Context& c,
                               std::string& problem) {
  RunSpec r = row.run;
  r.step_overhead_s = host ? host->step_overhead_s : 0;
  r.gpu_time_share = host ? host->gpu_share : 1;
  if (!host) r.front_end_s = 0;  // the GPU model alone
  const Metrics m = run_spec(r, *c.catalogue->find(r.model), *c.profiles->at(r.gpu));
  if (!m.fits) {
    problem = "does not fit";
    return std::nullopt;
  }
  if (m.completed == 0) {
    problem = "no request completed";
    return std::nullopt;
  }
  return row_value(row, t, m);
}

struct Summary {
  size_t n = 0;
  double median = 0, worst = 0;
  std::string worst_id;
};

Summary summarise(const std::vector<Result>& results, Status status, bool throughput, bool fitted) {
  Summary s;
  std::vector<double> errs;
  for (const auto& r : results) {
    if (!r.ok || r.row->status != status || is_throughput(r.row->metric) != throughput) continue;
    const double e = std::fabs(fitted ? r.fitted_error : r.unfitted_error);
    errs.push_back(e);
    if (e >= s.worst) {
      s.worst = e;
      s.worst_id = r.row->id;
    }
  }
  s.n = errs.size();
  s.median = percentile(errs, 50);
  return s;
}

std::string config_text(const Row& row) {
  const RunSpec& r = row.run;
  char buf[320];
  const std::string lengths = row.sharegpt ? "ShareGPT~" + std::to_string(r.input) + "/" + std::to_string(r.output)
                                           : std::to_string(r.input) + "/" + std::to_string(r.output);
  std::snprintf(buf, sizeof buf, "%s %dx%s %s%s %s, %s [%s]", r.model.c_str(), r.tp, r.gpu.c_str(),
                dtype_text(r.weights), r.kv_bytes_per_value < 2 ? "+kv8" : "", lengths.c_str(), load_text(r).c_str(),
                row.engine.c_str());
  return buf;
}

std::string fmt(double v) {
  char buf[32];
  if (std::fabs(v) >= 100)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) >= 10)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else
    std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string signed_pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", v);
  return buf;
}

std::string report_markdown(const Mapping& mapping, const std::vector<Result>& results,
                            const std::map<std::string, Target>& targets, const std::vector<std::string>& unmapped) {
  std::ostringstream o;
  char line[512];
  o << "Targets: " << mapping.targets << "\nMapping: " << mapping.file << "\n";
  o << "Host time per engine family (hostOverhead:):\n\n";
  for (const auto& [name, h] : mapping.families) {
    if (h.gpu_share < 1)
      std::snprintf(line, sizeof line, "- %s: GPU time / %.2f (%s)\n", name.c_str(), h.gpu_share, h.source.c_str());
    else
      std::snprintf(line, sizeof line, "- %s: %.2f ms per step (%s)\n", name.c_str(), h.step_overhead_s * 1e3,
                    h.source.c_str());
    o << line;
  }
  if (!mapping.front_ends.empty()) o << "\nFront end per request (engines:, frontEnd:):\n\n";
  for (const auto& [name, fe] : mapping.front_ends) {
    std::snprintf(line, sizeof line, "- %s: %.2f ms (%s)\n", name.c_str(), fe.first * 1e3, fe.second.c_str());
    o << line;
  }
  if (!mapping.sharegpt_shape.empty())
    o << "\nShareGPT rows: lengths drawn from " << mapping.sharegpt_shape << " scaled to the means "
      << mapping.sharegpt_input << "/" << mapping.sharegpt_output << "\n";
  o << "\n";
  o << "| id | source | config | metric | published | gputwin | error % | error % (no fit) | row |\n";
  o << "|---|---|---|---|---:|---:|---:|---:|---|\n";
  for (const auto& r : results) {
    const Row& row = *r.row;
    if (row.status == Status::EXCLUDED) continue;
    const Target& t = *r.target;
    o << "| " << row.id << " | " << short_source(t.source) << " | " << config_text(row) << " | " << row.metric << " | "
      << fmt(t.value) << " " << t.unit << " | ";
    if (r.ok)
      o << fmt(r.fitted_value) << " | " << signed_pct(r.fitted_error) << " | " << signed_pct(r.unfitted_error);
    else
      o << r.problem << " | - | -";
    o << " | " << (row.status == Status::FITTED ? "fitted" : "predicted") << " |\n";
  }
  o << "\n";
  const auto summary_line = [&](const char* what, Status status, bool throughput) {
    const Summary f = summarise(results, status, throughput, true);
    const Summary u = summarise(results, status, throughput, false);
    std::snprintf(line, sizeof line, "| %s | %zu | %.1f | %.1f (%s) | %.1f | %.1f (%s) |\n", what, f.n, f.median,
                  f.worst, f.worst_id.c_str(), u.median, u.worst, u.worst_id.c_str());
    o << line;
  };
  o << "| rows | n | median abs error % | worst abs error % | median (no fit) | worst (no fit) |\n";
  o << "|---|---:|---:|---:|---:|---:|\n";
  summary_line("predicted, throughput", Status::PREDICTED, true);
  summary_line("predicted, latency (TTFT/TPOT/ITL/E2E)", Status::PREDICTED, false);
  summary_line("fitted, throughput", Status::FITTED, true);
  summary_line("fitted, latency", Status::FITTED, false);
  o << "\nExcluded:\n\n";
  for (const auto& r : results) {
    if (r.row->status != Status::EXCLUDED) continue;
    const auto it = targets.find(r.row->id);
    o << "- " << r.row->id << " (" << (it == targets.end() ? "?" : short_source(it->second.source))
      << "): " << r.row->reason << "\n";
  }
  if (!unmapped.empty()) {
    o << "\nNot in the mapping:";
    for (const auto& id : unmapped) o << " " << id;
    o << "\n";
  }
  return o.str();
}

std::string report_csv(const std::vector<Result>& results) {
  std::ostringstream o;
  o << "id,status,metric,published,unit,gputwin,error_pct,gputwin_no_fit,error_pct_no_fit\n";
  for (const auto& r : results) {
    if (r.row->status == Status::EXCLUDED || !r.ok) continue;
    char line[256];
    std::snprintf(line, sizeof line, "%s,%s,%s,%.10g,\"%s\",%.10g,%.4f,%.10g,%.4f\n", r.row->id.c_str(),
                  r.row->status == Status::FITTED ? "fitted" : "predicted", r.row->metric.c_str(), r.target->value,
                  r.target->unit.c_str(), r.fitted_value, r.fitted_error, r.unfitted_value, r.unfitted_error);
    o << line;
  }
  return o.str();
}

int run_validate(const SingleOptions& o) {
  Diagnostics diags;
  const auto text = read_yaml_input(o.validate, diags);
  std::optional<YAML::Node> root;
  if (text) root = parse_yaml_input(*text, o.validate, "a serving mapping (kind: ServingTargets)", diags);
  std::optional<Mapping> mapping;
  if (root) mapping = MappingParser(o.validate, diags).parse(*root);
  if (!mapping || diags.has_errors()) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  if (!o.targets.empty()) mapping->targets = o.targets;
  if (mapping->targets.empty()) {
    diags.error(SourceLoc{o.validate, 1, 1}, "targets", "no targets: CSV in the mapping and no --targets");
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  const auto targets = read_targets(mapping->targets, diags);
  const auto catalogue = load_model_catalogue(default_model_catalogue_path(), diags);
  std::map<std::string, std::unique_ptr<HardwareProfile>> profiles;
  if (diags.has_errors() || !catalogue) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  size_t fitted = 0, compared = 0;
  for (const auto& row : mapping->rows) {
    const auto it = targets.find(row.id);
    if (it == targets.end()) {
      diags.error(row.loc, "id", "no row " + row.id + " in " + mapping->targets);
      continue;
    }
    if (row.status == Status::EXCLUDED) continue;
    ++compared;
    if (row.status == Status::FITTED) ++fitted;
    // Located at the row: the model and profile names come from the mapping.
    load_model_and_gpu(row.run.model, row.run.gpu, row.loc, row.loc, *catalogue, profiles, diags);
    check_row(row, it->second, diags);
  }
  if (3 * fitted > compared)
    diags.error(SourceLoc{o.validate, 1, 1}, "rows",
                std::to_string(fitted) + " fitted rows of " + std::to_string(compared) +
                    " compared: at most a third may be fitted");
  if (diags.has_errors()) {
    std::cerr << diags.format_all();
    return EXIT_INVALID_INPUT;
  }
  std::cerr << diags.format_all();  // warnings
  const Context ctx{&*catalogue, &profiles};

  const auto host_of = [&](const Row& row) -> const serving::EngineOverhead* {
    const auto it = mapping->families.find(row.family);
    return it == mapping->families.end() ? nullptr : &it->second;
  };

  if (o.fit) {
    // Per engine family with an additive step overhead of its own (not sameAs, not gpuShare), on that family's
    // fitted rows only: the value on a 0.05 ms grid (0..40 ms) with the least median |error| over them (ties:
    // the least mean |error|). Families without fitted rows keep their stated value.
    for (const auto& [name, family] : mapping->families) {
      if (!family.same_as.empty() || family.gpu_share < 1) continue;
      std::vector<const Row*> rows;
      std::string ids;
      for (const auto& row : mapping->rows)
        if (row.status == Status::FITTED && row.family == name) {
          rows.push_back(&row);
          ids += (ids.empty() ? "" : ", ") + row.id;
        }
      if (rows.empty()) {
        std::printf("%s: no fitted rows, keeps %.2f ms\n", name.c_str(), family.step_overhead_s * 1e3);
        continue;
      }
      double best = 0, best_median = std::numeric_limits<double>::infinity(), best_mean = best_median;
      for (int k = 0; k <= 800; ++k) {
        serving::EngineOverhead h;
        h.step_overhead_s = k * 0.05e-3;
        std::vector<double> errs;
        for (const Row* row : rows) {
          const Target& t = targets.at(row->id);
          std::string problem;
          if (auto v = evaluate(*row, t, &h, ctx, problem)) errs.push_back(std::fabs(*v - t.value) / t.value * 100);
        }
        const double med = percentile(errs, 50), avg = mean(errs);
        if (med < best_median - 1e-9 || (std::fabs(med - best_median) <= 1e-9 && avg < best_mean)) {
          best = h.step_overhead_s;
          best_median = med;
          best_mean = avg;
        }
      }
      std::printf("%s: stepOverhead %.2f ms over %zu fitted rows (%s): median |error| %.1f %%, mean %.1f %%\n",
                  name.c_str(), best * 1e3, rows.size(), ids.c_str(), best_median, best_mean);
    }
    return EXIT_OK;
  }

  std::vector<Result> results;
  std::set<std::string> mapped;
  for (const auto& row : mapping->rows) {
    mapped.insert(row.id);
    Result r;
    r.row = &row;
    r.target = &targets.at(row.id);
    if (row.status != Status::EXCLUDED) {
      const auto f = evaluate(row, *r.target, host_of(row), ctx, r.problem);
      const auto u = evaluate(row, *r.target, nullptr, ctx, r.problem);
      if (f && u) {
        r.ok = true;
        r.fitted_value = *f;
        r.unfitted_value = *u;
        r.fitted_error = (*f - r.target->value) / r.target->value * 100;
        r.unfitted_error = (*u - r.target->value) / r.target->value * 100;
      }
    }
    results.push_back(r);
  }
  std::vector<std::string> unmapped;
  for (const auto& [id, _] : targets)
    if (mapped.count(id) == 0) unmapped.push_back(id);
  const std::string md = report_markdown(*mapping, results, targets, unmapped);
  std::cout << md;
  if (!o.out.empty()) {
    fs::create_directories(o.out);
    write_file_atomic((fs::path(o.out) / "serving-validation.md").string(), md);
    write_file_atomic((fs::path(o.out) / "serving-validation.csv").string(), report_csv(results));
  }
  return EXIT_OK;
}

}  // namespace

Subcommand register_serving_command(CLI::App& app) {
  auto o = std::make_shared<SingleOptions>();
  auto* cmd = app.add_subcommand(
      "serving",
      "Run one LLM serving engine alone (continuous batching at the roofline), or --validate the serving model "
      "against published measurements");
  cmd->add_option("--model", o->model, "Model id of the catalogue (`gputwin models`)");
  cmd->add_option("--gpu", o->gpu, "Hardware profile (`gputwin profiles`)");
  cmd->add_option("--tp", o->tp, "Tensor-parallel GPUs (default 1)")->check(NON_EMPTY);
  cmd->add_option("--dtype", o->dtype, "Weight precision: fp16|bf16|fp8 (default fp16)");
  cmd->add_option("--kv-dtype", o->kv_dtype, "KV-cache precision: fp16|bf16|fp8 (default: fp16)");
  cmd->add_option("--input", o->input, "Prompt tokens per request")->check(NON_EMPTY);
  cmd->add_option("--output", o->output, "Output tokens per request")->check(NON_EMPTY);
  auto* conc =
      cmd->add_option("--concurrency", o->concurrency, "Closed loop: requests kept in flight")->check(NON_EMPTY);
  auto* rate = cmd->add_option("--rate", o->rate, "Open loop: Poisson arrivals, requests per second")->check(NON_EMPTY);
  auto* offline = cmd->add_flag("--offline", o->offline, "Every request arrives at t=0");
  cmd->add_option("--requests", o->requests, "Requests to run (default 1000)")->check(NON_EMPTY);
  cmd->add_option("--max-num-seqs", o->max_num_seqs, "Running sequences at most (default 256)")->check(NON_EMPTY);
  cmd->add_option("--max-num-batched-tokens", o->max_num_batched_tokens, "Tokens per engine step (default 8192)")
      ->check(NON_EMPTY);
  cmd->add_flag("--no-chunked-prefill", o->no_chunked_prefill, "A step is all prefill or all decode");
  cmd->add_flag("--reserve-full-sequence", o->reserve_full_sequence,
                "Admit a request only when its whole sequence's KV blocks are free (TensorRT-LLM's default)");
  cmd->add_option("--step-overhead-ms", o->step_overhead_ms, "Host time per engine step, ms (default 0)")
      ->check(NON_EMPTY);
  cmd->add_option("--front-end-ms", o->front_end_ms,
                  "Per request, between the client and the scheduler (HTTP, tokenisation), ms (default 0)")
      ->check(NON_EMPTY);
  cmd->add_option("--seed", o->seed, "Seed of the arrivals (default 1)")->check(NON_EMPTY);
  auto* validate = cmd->add_option("--validate", o->validate,
                                   "Mapping file (calibration/serving/targets.yaml): print the validation table");
  cmd->add_option("--targets", o->targets, "Published targets CSV (default: the mapping's targets:)");
  cmd->add_option("--out", o->out, "With --validate: also write serving-validation.md and .csv here");
  cmd->add_flag("--fit", o->fit,
                "With --validate: fit each engine family's step overhead on its fitted rows and print them");
  return {cmd, [o, conc, rate, offline, validate]() {
            if (validate->count() > 0) return run_validate(*o);
            const int loads = static_cast<int>(conc->count() + rate->count() + offline->count());
            return run_single(*o, loads);
          }};
}

}  // namespace gtw::cli
