#pragma once
// The leakage surface (../shared/ARCHITECTURE.md, "Metrics"): per ordered pair (observer tenant,
// source tenant) and channel, the seconds both were active on the shared resource, the channel's
// capacity from the catalogue (models/threat) and the bound capacity x exposure in bits; discrete
// exposures in bytes (unscrubbed memory handed across tenants, plaintext host-device transfers on a
// node the observer shares); totals per tenant and for the design; and, per hosted model, which
// channels expose its weights, architecture or behaviour to whom, and what closes each.
// Reads the event log, the cluster layout and the spec only. Formulas: docs/models/leakage.md.
#include <map>
#include <string>
#include <vector>

#include "ChannelCatalogue.hpp"
#include "IdentityGraph.hpp"
#include "RunIndex.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"
#include "SecretLifecycle.hpp"

namespace gtw {

/// Mitigations that are not sharing modes (MIG, CC and dedicated GPUs are read from the layout), from
/// the scenario's spec.policies.isolation (isolation_options). Defaults describe a design without them.
struct IsolationOptions {
  bool scrub_on_free = false;      // memory is scrubbed before it is handed to another tenant
  double timer_resolution_s = 0;   // coarser timers: one probe per resolution at most; 0 = native timers
  double query_rate_limit = 0;     // per-client queries/s on inference services; 0 = unlimited
  int query_budget = 0;            // per-client queries answered over the run; 0 = unlimited
  bool weight_encryption = false;  // weights and checkpoints encrypted by their owner (model IP)
  double noise_injection_s = 0;    // std dev of the delay added to timed operations (lowers replayed attacks)
  GpuVisibility gpu_visibility = GpuVisibility::ALLOCATED;  // NODE opens channels that need peer access
  ApiOutputPolicy api;  // inference APIs' logprobs, output noise and watermark (model stealing)
};
IsolationOptions isolation_options(const ScenarioSpec& spec);

/// Sorted, disjoint [start, end) intervals.
using Intervals = std::vector<std::pair<double, double>>;
/// Sorts and merges intervals; gaps shorter than or equal to `bridge` are closed.
Intervals normalise(Intervals v, double bridge = 0);
Intervals intersect(const Intervals& a, const Intervals& b);
double measure(const Intervals& v);
/// measure(normalise(concatenation of the lists)) for lists that are each sorted (normalised), merged in order without
/// building the union: the same double (the leakage analysis measures its co-activity runs this way).
double merged_union_measure(const std::vector<Intervals>& sorted_lists);

/// An open channel from `source` to `observer` on one resource under one sharing relation.
struct LeakageChannel {
  int observer = -1;
  int source = -1;
  channel::Resource resource = channel::Resource::SM;
  channel::Mode mode = channel::Mode::EXCLUSIVE;
  channel::State state = channel::State::OPEN;  // OPEN or OPEN_UNQUANTIFIED
  double exposure_s = 0;                        // both active on the shared resource at once
  double bit_rate_bps = 0;                      // probe rate x bits per probe
  double error_rate = 0;                        // bit error probability
  double capacity_bps = 0;                      // bit rate x (1 - H(error)); 0 when unquantified
  double bound_bits = 0;                        // capacity x exposure
  std::string capacity_source;
  std::string reason;
  std::vector<std::string> closed_by;
  std::vector<std::string> atlas;
  std::vector<int> gpus;  // the source's devices on which the pair met (sorted)
  /// Whether its bits count in the totals. Channels of one pair and relation whose capacity comes from the
  /// same measurement (the same published attack, calibration or derivation) are one channel observed through
  /// several resources: only the largest bound counts, the others name it in `counted_in`.
  bool counted = true;
  channel::Resource counted_in = channel::Resource::SM;
};

/// A channel the design closed while the pair was co-active (what a mitigation removed).
struct ClosedChannel {
  int observer = -1;
  int source = -1;
  channel::Resource resource = channel::Resource::SM;
  channel::Mode mode = channel::Mode::EXCLUSIVE;
  double co_active_s = 0;
  std::string reason;
};

enum class DiscreteKind { UNSCRUBBED_MEMORY, PLAINTEXT_PCIE, PLAINTEXT_NETWORK, PLAINTEXT_STORAGE, IDENTITY_PATH };
// "unscrubbedMemory", "plaintextPcie", "plaintextNetwork", "plaintextStorage", "identityPath"
const char* discrete_kind_name(DiscreteKind k);

/// Bytes of the source's data the observer could read, once (not a rate).
struct DiscreteExposure {
  int observer = -1;
  int source = -1;
  DiscreteKind kind = DiscreteKind::UNSCRUBBED_MEMORY;
  int workload = -1;  // the source's workload whose data it is
  int gpu = -1;       // the device (memory) or a device of the node (PCIe)
  double bytes = 0;
  bool closed = false;        // counted, but a mitigation in force closes it
  std::string closed_reason;  // when closed
  std::vector<std::string> closed_by;
  std::string basis;               // how the bytes were derived
  int data = -1;                   // plaintextNetwork / plaintextStorage: the data item (spec.data index)
  std::string data_name;           // its name
  std::vector<std::string> paths;  // plaintextNetwork: the shared links; plaintextStorage: the store
};

struct TenantLeakage {
  std::string name;
  double bits_as_observer = 0;  // sum of bounds where the tenant observes
  double bits_as_source = 0;    // sum of bounds where the tenant's activity is observed
  double bytes_as_observer = 0;
  double bytes_as_source = 0;
  size_t open_channels_as_source = 0;
};

/// One way a hosted model is exposed (or protected).
struct ModelExposure {
  std::string part;                  // weights | architecture | behaviour
  std::string channel;               // unscrubbedMemory | plaintextPcie | storage | contentionTiming | queryAccess
  std::string status;                // open | closed | not-modelled
  std::vector<std::string> tenants;  // who it is exposed to (sorted)
  double bits = 0;
  double bytes = 0;
  std::vector<std::string> closed_by;
  std::string detail;
};

struct ModelAsset {
  int workload = -1;
  std::string name;
  std::string owner;
  std::string kind;  // inference | training
  double weight_bytes = 0;
  std::vector<ModelExposure> exposures;
};

/// One cell of the catalogue as the run used it (default rates; per-slice cells name the rule).
struct CatalogueEntry {
  channel::Resource resource = channel::Resource::SM;
  channel::Mode mode = channel::Mode::EXCLUSIVE;
  channel::State state = channel::State::CLOSED;
  bool per_time_slice = false;
  double bit_rate_bps = 0;
  double error_rate = 0;
  double capacity_bps = 0;
  std::string source;
  std::string measured_on;    // the published measurement's platform (empty: derived or calibrated)
  std::string transfer_rule;  // how it carries over to the GPUs of the run (docs/models/leakage.md)
  std::string reason;
  std::vector<std::string> closed_by;
  std::vector<std::string> atlas;
};

/// What an attacker workload achieved inside the simulation, beside the analytic bound of its channel.
struct AttackResult {
  int workload = -1;
  std::string name;
  std::string type;      // attack_type_name
  std::string attacker;  // the attacker's tenant
  std::string victim;    // the source tenant: a covert channel's sender, the target's tenant, remanence sources
  std::string target;    // the victim workload, when it has one
  std::string resource;  // the channel's resource (catalogue name)
  std::string relation;  // the sharing relation between the attacker's device and the source's (catalogue mode)
  bool ran = false;      // placed and carried out (not failed or unplaced)
  std::string outcome;   // one line: what it achieved
  // covertChannel
  double bits = 0;
  double bit_errors = 0;
  double bit_rate_bps = 0;          // payload bits / payload time
  double error_rate = 0;            // bit errors / bits
  double information_rate_bps = 0;  // bit rate x (1 - H(error rate))
  double achieved_bps = 0;          // bit rate x (1 - H(upper 99.9% confidence bound of the error rate))
  struct RateTrial {
    double bit_rate_bps = 0;
    double error_rate = 0;
    double information_rate_bps = 0;
  };
  std::vector<RateTrial> rate_trials;  // bitRate auto: the search's trials, fastest first (empty otherwise)
  double search_seconds = 0;           // bitRate auto: from the receiver's placement to the payload's start
  // primeProbe / modelExtraction
  double observations = 0;
  double correct = 0;
  double accuracy = 0;        // primeProbe: correct / observations (0 when nothing was observed)
  std::string guess;          // primeProbe: the candidate most bursts were classified as (the attacker's answer)
  bool identified = false;    // primeProbe: that answer is the victim's model
  double estimate = 0;        // modelExtraction: median estimated parameter count
  double truth = 0;           // modelExtraction: the victim's parameter count
  double relative_error = 0;  // modelExtraction: |estimate - truth| / truth
  // modelExtraction, layer structure: per batch seen whole, the layers counted from its prefill's runs
  double layer_batches = 0;     // batches analysed
  double layers_truth = 0;      // the victim's layers (1 when it declares none)
  double layers_estimate = 0;   // the count most batches gave (the attacker's answer)
  double layers_exact = 0;      // batches whose count was right
  double layer_error_mean = 0;  // mean over those batches of the mean relative error of per-layer parameters
  double layer_error_max = 0;   // the largest per-layer relative error in those batches
  // queryExtraction: queries sent, admitted by the service's front end, answered, refused by the rate
  // limit or otherwise; the seconds from its start to its last query; the rate limit's bound on admissions
  double queries_sent = 0;
  double queries_admitted = 0;
  double queries_answered = 0;
  double queries_rate_limited = 0;
  double queries_refused = 0;
  double query_seconds = 0;
  bool query_goal_reached = false;  // `queries` admitted before arrivals ended
  double bound_queries = 0;         // burst + limit x query_seconds (sent when unlimited)
  // queryExtraction, the projection layer (models/threat/ApiExtraction.hpp), when the target has a shape
  bool projection_known = false;  // the target declares hidden size and vocabulary
  double hidden_size = 0;
  double vocab_size = 0;
  double queries_per_vector = 0;  // +inf: the API gives no full logit vector
  double query_repeats = 1;       // each query repeated to average the output noise away
  double queries_needed = 0;      // (hidden + 1) vectors
  double vectors_obtained = 0;    // answered / (queries per vector x repeats)
  bool projection_recovered = false;
  double projection_recovered_at = -1;  // the answer that completed it (< 0: not recovered)
  double projection_bytes = 0;          // the stolen matrix: hidden x vocab x weight bytes
  std::string projection_route;         // how the API let it read logit vectors
  double watermark_detection = 0;       // P(a copy trained on the answers is detected)
  // remanenceScrape
  double bytes_recovered = 0;
  // noisyNeighbour / mpsKill: the victim's service before and during the attack
  double victim_p99_before_s = 0;
  double victim_p99_during_s = 0;
  double victim_throughput_before = 0;  // completed requests (or steps) per second
  double victim_throughput_during = 0;
  double victim_replicas_ended = 0;
  double victim_requests_dropped = 0;
  // the analytic side
  std::string bound_state;  // the catalogue cell: open | open-unquantified | closed
  double bound_bps = 0;     // capacity of the channel (covert channels; probe channels for reference)
  double bound_bytes = 0;   // remanence: the unscrubbed bytes the leakage surface counts for the pair
  std::string bound_source;
  bool within_bound = true;  // achieved_bps <= bound_bps, bytes_recovered <= bound_bytes
};

/// What spec.identity.invocations did at run time (docs/models/identity.md, "Invocations at run time").
struct AgentRuntimeSummary {
  struct PerInvocation {
    std::string name;
    std::string principal;
    std::string entry;
    size_t calls = 0;  // calls made (the principal -> entry hops)
    size_t hops = 0;
    size_t refused = 0;
    std::map<std::string, size_t> refused_by;  // tokenExpired | revoked | notGranted | notAttested
    size_t confused_deputy = 0;
    size_t over_privileged = 0;
    size_t after_revocation = 0;
    double first_deputy_at = -1;  // simulated time of the first confused-deputy hop (< 0: none)
  };
  std::vector<PerInvocation> invocations;  // spec order
  /// Per principal that called (spec order): its sessions (models/threat/Sessions.hpp).
  struct PerPrincipal {
    std::string principal;
    size_t sessions = 0;
    size_t calls = 0;
    double longest_idle_s = 0;               // longest time an open session went without a call
    std::map<std::string, size_t> ended_by;  // idleTimeout | revoked | runEnd
  };
  std::vector<PerPrincipal> sessions;
  std::vector<size_t> flagged;  // RunResult::invocation_steps of the first flagged hops (time order)
  size_t flagged_omitted = 0;   // flagged hops beyond those listed
};

struct LeakageReport {
  IsolationOptions options;
  std::vector<LeakageChannel> channels;  // sorted by (observer, source, resource, mode)
  std::vector<ClosedChannel> closed;
  std::vector<DiscreteExposure> discrete;
  std::vector<TenantLeakage> tenants;
  std::vector<ModelAsset> models;
  std::vector<AttackResult> attacks;  // attacker workloads, in spec order
  double scrubbed_bytes = 0;          // scrub on free: bytes overwritten (MEM_SCRUB)
  double scrub_seconds = 0;           // summed duration of the scrubs (HBM time shared with the GPU's clients)
  double answers_watermarked = 0;     // expected answers altered by the watermark (fraction x answers served)
  double answers_perturbed = 0;       // answers whose logprobs carry the output noise
  double total_bits = 0;              // sum of every open channel's bound
  double total_bytes = 0;             // sum of every open discrete exposure
  size_t open_channels = 0;
  size_t unquantified_channels = 0;
  std::vector<CatalogueEntry> catalogue;  // every (resource, mode) cell
  std::vector<std::string> notes;         // approximations this analysis makes
  // Cross-tenant identity-graph paths (the identity channel; IdentityExposure.cpp).
  std::vector<identity::IdentityPath> identity_paths;
  // Identity at run time (IdentityExposure.cpp): the invocations' hops, secret leaks, incidents.
  AgentRuntimeSummary agents;
  std::vector<identity::SecretLeakWindow> secret_leaks;
  std::vector<identity::Incident> incidents;
};

/// The identity channel (IdentityExposure.cpp): fills rep.identity_paths and adds one identityPath discrete
/// exposure per (observer, source, target) reached.
void add_identity_exposures(const ScenarioSpec& spec, LeakageReport& rep);
/// Identity at run time: fills rep.agents, rep.secret_leaks and rep.incidents from the run.
void add_identity_runtime(const ScenarioSpec& spec, const RunResult& run, LeakageReport& rep);

LeakageReport analyse_leakage(const ScenarioSpec& spec, const RunResult& run, const channel::Catalogue& catalogue,
                              const IsolationOptions& options = {});
/// The same over a run index built once for every analysis of the run (RunIndex.hpp).
LeakageReport analyse_leakage(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                              const channel::Catalogue& catalogue, const IsolationOptions& options = {});

/// The attack results of a run (called by analyse_leakage once the surface is known; `surface` gives the
/// bounds of the pairs the attacks exploit).
std::vector<AttackResult> analyse_attacks(const ScenarioSpec& spec, const RunResult& run,
                                          const channel::Catalogue& catalogue, const IsolationOptions& options,
                                          const LeakageReport& surface);
std::vector<AttackResult> analyse_attacks(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                                          const channel::Catalogue& catalogue, const IsolationOptions& options,
                                          const LeakageReport& surface);

/// Upper one-sided confidence bound (Wilson score, z standard deviations) of an error rate from `errors`
/// of `n` trials.
double wilson_upper(double errors, double n, double z);

/// The scenario location that sets the sharing of `gpu` (the pool's or the GPU override's mode line),
/// falling back to the pool, then to the file.
SourceLoc sharing_location(const ScenarioSpec& spec, const GpuLayout& gpu);

/// The built-in catalogue plus the `spec.channels` calibrations of the hardware profiles the scenario's
/// node pools use, looked up as <dir>/<product>.yaml in `profile_dirs` (first hit wins).
channel::Catalogue channel_catalogue(const ScenarioSpec& spec, const std::vector<std::string>& profile_dirs,
                                     Diagnostics& diags);

}  // namespace gtw
