#pragma once
// The report.json written by `gputwin run` (schema 1.x, see sim/report/ReportJson.cpp), read into plain
// structs. Qt-free on purpose: the charts and the window only read these, and tests can build them by hand.
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gtw::gui {

inline constexpr double NO_VALUE = std::numeric_limits<double>::quiet_NaN();

// One evaluation of an SLO: a time window for request SLOs, one job for job SLOs. The report writes
// unbounded values (a dropped request's latency) as null; they are read as +inf.
struct SloWindow {
  double start_s = 0;
  double value = 0;
  bool violated = false;
};

struct Attribution {
  std::string who;  // a tenant name or a pseudo-cause such as "(context switches)"
  double share = 0;
  std::string via = "gpu";  // gpu, fabric or "storage NAME" (older reports: gpu)
};

enum class Bound { AT_MOST, AT_LEAST };

struct Slo {
  std::string tenant;
  std::string name;
  std::string kind;  // latency, throughput, slowdown, completionTime, availability, ttft, tpot
  std::string workload;
  std::string objective;            // human text, e.g. "p99 latency <= 2.50 s per 60.00 s window"
  std::optional<double> threshold;  // in `unit`; from the objective text (the report has no number for it)
  Bound bound = Bound::AT_MOST;
  bool met = true;
  int evaluated = 0;
  int violated = 0;
  double compliance = 1;
  double target = 1;
  std::optional<double> error_budget_burn;
  double worst = NO_VALUE;
  std::string unit;  // s, 1/s, x
  std::string explanation;
  std::vector<Attribution> attribution;
  std::vector<SloWindow> windows;

  bool per_job() const { return kind == "slowdown" || kind == "completionTime"; }
};

struct LatencySummary {
  long count = 0;
  double mean_s = NO_VALUE;
  double p50_s = NO_VALUE;
  double p95_s = NO_VALUE;
  double p99_s = NO_VALUE;
  double max_s = NO_VALUE;
};

// The token-level view of an inference workload served with continuous batching (report.json
// tenants[].workloads[].serving, docs/models/serving.md); absent for statically batched ones.
struct ServingStats {
  std::string batching = "continuous";
  LatencySummary ttft;  // time to first token
  LatencySummary tpot;  // time per output token after the first
  double output_tokens_per_s = NO_VALUE;
  double generated_tokens = NO_VALUE;
  double prefill_tokens = NO_VALUE;
  long long steps = 0;
  long long preemptions = 0;
  double kv_utilisation = NO_VALUE;  // mean share of the KV cache in use, 0..1
  double kv_peak = NO_VALUE;         // its peak, 0..1
  double goodput = NO_VALUE;         // share of requests meeting the ttft/tpot SLOs; NaN: no such SLO (null)
};

struct Workload {
  std::string tenant;
  std::string name;
  std::string kind;  // inference, training, batch
  int replicas_requested = 0;
  int replicas_placed = 0;
  int replicas_failed = 0;
  std::vector<int> gpus;
  // inference
  long requests_arrived = 0;
  long requests_completed = 0;
  long requests_dropped = 0;
  LatencySummary latency;
  LatencySummary queueing;
  std::vector<std::pair<double, double>> latency_cdf;  // (percentile, seconds), ascending; empty in older reports
  double mean_batch = NO_VALUE;
  std::optional<ServingStats> serving;  // continuous batching only; empty in older reports
  // training and batch
  long jobs_submitted = 0;
  long jobs_completed = 0;
  long jobs_unfinished = 0;
  long jobs_failed = 0;
  double mean_completion_s = NO_VALUE;
  double mean_slowdown = NO_VALUE;
  double max_slowdown = NO_VALUE;

  bool inference() const { return kind == "inference"; }
  bool continuous() const { return serving.has_value(); }
};

// One number of ServingStats as the window and the summary show it, in this order.
struct ServingMetric {
  const char* label;  // "TTFT p99"
  const char* unit;   // for format_value: s, tok/s, share, count
  int better;         // -1: lower is better, +1: higher is better, 0: neither (KV use)
  double (*value)(const ServingStats&);
};
/// TTFT p50 / p99, TPOT p50 / p99, output tokens/s, goodput, KV use mean / peak, preemptions.
const std::vector<ServingMetric>& serving_metrics();

struct Tenant {
  std::string name;
  std::string region;
  std::string classification;
  double gpu_seconds = 0;
  int slos_total = 0;
  int slos_missed = 0;
};

struct TenantShare {
  std::string tenant;
  double ratio = 0;  // busy time / run duration
};

struct Gpu {
  int index = 0;
  std::string node;
  int local_index = 0;
  std::string pool;
  std::string region;  // the node pool's; empty when it declares none (or an older report)
  std::string product;
  std::string sharing;  // exclusive, timeSlicing, mps, mig...
  int slot_count = 1;   // not "slots": that is a Qt macro
  std::vector<std::string> tenants;
  double utilisation = 0;
  std::vector<TenantShare> utilisation_by_tenant;  // in the report's (tenant declaration) order
  long context_switches = 0;
  double context_switch_seconds = 0;
  std::vector<double> utilisation_windows;  // busy share per SLO window (scenario.sla_window_s)
  std::string mig_profile;                  // a MIG instance's profile, empty for a whole GPU
};

// One replica's stay on a GPU (report.json placements[]).
struct Placement {
  std::string workload;
  std::string tenant;
  int replica = 0;
  int gpu = -1;
  double start_s = 0;
  double end_s = NO_VALUE;  // NaN: until the end of the run
  std::string end_reason;
};

// One open channel of the leakage surface (report.json leakage.channels[]).
struct LeakChannel {
  std::string observer;
  std::string source;
  std::string resource;  // sm, l2, hbm, pcie, ...
  std::string mode;
  std::string state;  // open, open-unquantified
  double exposure_s = 0;
  double capacity_bps = NO_VALUE;
  double bound_bits = NO_VALUE;  // NaN when unquantified
  bool counted = true;           // false: the same measurement counts in another resource's channel of the pair
  std::string capacity_source;   // the published measurement or derivation behind the capacity
};

// One discrete exposure (unscrubbed memory, plaintext on PCIe) of the leakage surface.
struct LeakDiscrete {
  std::string observer;
  std::string source;
  std::string kind;
  double bytes = 0;
  bool closed = false;
  std::string workload;       // the source's workload whose data it is
  int gpu = -1;               // the device (memory) or a device of the node (PCIe)
  std::string closed_reason;  // when closed
  std::string closed_by;      // the mitigations that close it, joined
  std::string basis;          // how the bytes were derived
};

// One run-time invocation of the identity graph (report.json leakage.agents.invocations[]).
struct AgentInvocation {
  std::string name;
  std::string principal;
  std::string entry;
  int calls = 0;
  int hops = 0;
  int refused = 0;
  std::string refused_by;  // "revoked 1, tokenExpired 2"
  int confused_deputy = 0;
  int over_privileged = 0;
  int after_revocation = 0;
  double first_deputy_at_s = NO_VALUE;
};

// A leaked secret's exposure window (report.json leakage.secret_leaks[]); a time that never came is infinite.
struct SecretLeak {
  std::string secret;
  std::string owner;
  std::string to;  // "" : an outsider
  double at_s = 0;
  double known_at_s = NO_VALUE;
  double end_s = NO_VALUE;  // infinite: still usable at the end of the run
  std::string ended_by;
  double exposure_s = 0;
  std::string protects;  // joined
};

// An incident of the run (report.json leakage.incidents[]).
struct Incident {
  std::string kind;
  std::string resource;
  std::string affected;
  std::string observer;  // "" : an outsider
  double time_s = 0;
  double known_at_s = NO_VALUE;
  double notified_at_s = NO_VALUE;
};

// A channel the design closed while the pair was co-active (report.json leakage.closed[]).
struct LeakClosed {
  std::string observer;
  std::string source;
  std::string resource;
  std::string mode;
  double co_active_s = 0;
  std::string reason;
};

// One way a hosted model is exposed or protected (report.json leakage.models[].exposures[]).
struct ModelExposure {
  std::string part;     // weights, architecture, behaviour
  std::string channel;  // unscrubbedMemory, plaintextPcie, storage, contentionTiming, queryAccess
  std::string status;   // open, closed, not-modelled
  std::string tenants;  // who it is exposed to, joined
  double bits = 0;
  double bytes = 0;
  std::string closed_by;  // mitigations, joined
  std::string detail;
};

struct ModelIp {
  std::string workload;
  std::string owner;
  std::string kind;  // inference, training
  double weight_bytes = 0;
  std::vector<ModelExposure> exposures;
};

// What a replayed attack achieved, beside the analytic bound of its channel (report.json leakage.attacks[]).
struct AttackOutcome {
  std::string name;
  std::string type;  // covertChannel, primeProbe, modelExtraction, queryExtraction, remanenceScrape, ...
  std::string attacker;
  std::string victim;
  std::string target;
  std::string resource;
  std::string relation;
  bool ran = false;
  std::string outcome;  // one line
  std::string bound_state;
  std::string bound_source;
  bool within_bound = true;
  // The headline: what was achieved and the bound it is compared with, in `unit` (format_value's units plus
  // "bit/s" and "B"); NaN where the type has no such number.
  std::string measure;  // "achieved rate", "bytes recovered", ...
  double achieved = NO_VALUE;
  double bound = NO_VALUE;
  std::string unit;
  // queryExtraction against a model with a shape: logit vectors of the projection layer obtained, and the
  // chance a watermark catches a copy trained on the answers (NaN where not reported).
  double projection_vectors = NO_VALUE;
  double watermark_detection = NO_VALUE;
};

// Two tenants whose replicas shared a node (report.json isolation_boundaries[]).
struct Boundary {
  std::string tenant_a;
  std::string tenant_b;
  std::string node;
  bool same_gpu = false;
  std::string shared_layers;  // joined
};

// Events the timeline marks: faults, MIG reconfigurations, attacks.
struct TimelineMark {
  double time_s = 0;
  std::string kind;  // fault, reconfiguration, attack, compliance
  std::string text;
};

// Busy share by tenant per timeline step (report.json timeline): cluster-wide in busy GPU-equivalents, per device
// as a share of the device (devices only for runs of at most 256 devices).
struct TenantSeries {
  std::string tenant;
  std::vector<double> values;
};
struct Timeline {
  double step_s = 0;                                            // 0: the report has no timeline (an older gputwin)
  std::vector<TenantSeries> cluster;                            // in tenant order
  std::vector<std::pair<int, std::vector<TenantSeries>>> gpus;  // device index, its tenants
};

struct CostInfo {
  bool present = false;
  double provisioned_gpu_hours = NO_VALUE;
  double allocated_gpu_hours = NO_VALUE;
  double total = NO_VALUE;
};

// A compliance finding, read leniently: the report's compliance section is newer than this viewer.
struct Finding {
  std::string rule;
  std::string status;  // pass, fail, warn
  std::string severity;
  std::string requirements;  // joined references
  std::string evidence;      // one line
};

// A tenant's Kueue-like quota over the run (report.json `quotas[]`, docs/models/quotas.md).
struct QuotaRow {
  std::string tenant;
  long long nominal_gpus = 0;
  long long peak_gpus = 0;
  double borrowed_gpu_seconds = 0;
  long long admissions = 0;
  long long queued = 0;
  double max_wait_s = 0;
  long long preempted = 0;
  long long reclaimed = 0;  // other tenants' workloads it preempted
  std::string still_queued;
  bool fair_sharing = false;  // the run had Kueue's fair sharing on: the three below are set
  double fair_weight = 1;
  double peak_share = 0;  // +inf: weight 0 while borrowing
  double mean_share = 0;
};

struct ScenarioInfo {
  std::string name;
  std::string file;
  std::string sha256;
  long long seed = 0;
  double duration_s = 0;
  double sla_window_s = 0;
  std::string placement_policy;
};

struct Summary {
  int tenants = 0;
  int workloads = 0;
  int gpus = 0;
  int slos = 0;
  int slos_missed = 0;
  long long events = 0;
  long long kernels = 0;
  long long context_switches = 0;
  double simulated_end_s = 0;
};

struct ProvenanceInfo {
  std::string gputwin_version;
  std::string simgrid_version;
  std::string command_line;
  std::string host;
  std::string started_utc;
  double wall_seconds = 0;
};

struct Report {
  std::filesystem::path path;  // the report.json that was read
  std::string schema_version;
  ScenarioInfo scenario;
  Summary summary;
  std::vector<Tenant> tenants;
  std::vector<Slo> slos;  // all tenants' SLOs, in report order
  std::vector<Workload> workloads;
  std::vector<Gpu> gpus;
  std::vector<Placement> placements;
  bool has_leakage = false;
  double leakage_bits = 0;
  double leakage_bytes = 0;
  int identity_paths = 0;         // leakage.identity_paths: a principal reaching another tenant's data
  int confused_deputy_paths = 0;  // of them, through a service acting under its own identity
  int leakage_open_channels = 0;
  int leakage_unquantified_channels = 0;
  std::vector<LeakChannel> leak_channels;
  std::vector<LeakDiscrete> leak_discrete;
  std::vector<LeakClosed> leak_closed;
  std::vector<AgentInvocation> agents;
  std::vector<SecretLeak> secret_leaks;
  std::vector<Incident> incidents;
  std::vector<ModelIp> models;
  std::vector<AttackOutcome> attacks;
  std::vector<Boundary> boundaries;
  std::vector<TimelineMark> marks;  // in time order
  Timeline timeline;
  CostInfo cost;
  std::vector<QuotaRow> quotas;  // empty: no tenant had a quota
  bool has_compliance = false;   // the report has a compliance section (possibly with no findings)
  std::vector<Finding> findings;
  ProvenanceInfo provenance;

  int slos_missed() const;
  /// Physical GPUs (MIG instances of one GPU count once): distinct (node, local index) pairs.
  int physical_gpus() const;
  /// Discrete exposure bytes that no mitigation closed (what the totals count as leaked).
  double open_exposure_bytes() const;
  // Position of `tenant` in `tenants`, or -1: the charts colour tenants by it.
  int tenant_index(const std::string& tenant) const;
};

// The leakage between one (observer, source) pair, as the heatmap shows it.
struct PairLeakage {
  double bits = 0;            // bounds of the pair's quantified channels (a shared measurement counted once)
  bool open = false;          // some channel open, quantified or not
  bool unquantified = false;  // some open channel without a capacity
  double bytes = 0;           // discrete exposures no mitigation closed (all resources only)
};
/// Per (observer, source): over every resource when `resource` is empty (the report's totals are the sum of
/// these), else over that resource's channels (each channel's own bound, shared measurement or not).
std::map<std::pair<std::string, std::string>, PairLeakage> leakage_by_pair(const Report& r,
                                                                           const std::string& resource = {});

struct LoadResult {
  std::optional<Report> report;
  std::string error;  // set when `report` is empty; one line, meant for the user
};

/// Reads `path`: an output directory of `gputwin run` (holding report.json) or a report.json itself.
/// Never throws: a missing file, malformed JSON, a schema it does not know or a missing field give an error.
LoadResult load_report(const std::filesystem::path& path);
/// The same for JSON text already in memory; `source` names it in error messages.
LoadResult parse_report(const std::string& text, const std::filesystem::path& source);

/// The number an objective text bounds its metric by ("p99 latency <= 2.50 s per 60.00 s window" gives
/// 2.5, AT_MOST), converted to the SLO's unit (durations to seconds). Empty when the text has no bound.
std::optional<std::pair<double, Bound>> parse_objective_bound(const std::string& objective);

/// "2.50 s", "850 ms", "29.2/s", "1.10x", "3226 tok/s", "68.3%" (unit share), "30" (unit count), "32.2 GB"
/// (unit B), "1.8 Mbit" (unit bit), "4.1 kbit/s" (unit bit/s), "-" for NaN
/// and "unbounded" for +inf.
std::string format_value(double v, const std::string& unit);

/// The change from `base` to `now` in `unit`: "+119 ms (+18%)", "-540 tok/s (-14%)", "+3.1 pp" for shares,
/// "+4" for counts, "±0" when equal, "-" when either is missing or unbounded.
/// `relative`: durations and rates as the relative change only ("+18%"), where the two values are shown
/// beside it (the window's serving table); shares and counts as above.
std::string format_delta(double now, double base, const std::string& unit, bool relative = false);
/// +1 when `now` is better than `base` by `metric`'s sense, -1 when worse, 0 when equal, neutral or missing.
int delta_direction(const ServingMetric& metric, double now, double base);

}  // namespace gtw::gui
