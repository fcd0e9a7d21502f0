#pragma once
// The leakage channel catalogue: for every shared resource and every way two tenants can sit on
// the cluster (the sharing mode of the GPU they share, or separate GPUs of one node, or separate
// nodes), whether an information channel between them is open, why, what closes it, and the
// signal and noise that set its capacity. Defaults are the published measurements of
// ../shared/reference/attacks.md, each carrying its source; a hardware profile may calibrate them
// (an optional `spec.channels` list, see docs/models/leakage.md). No SimGrid here: the analysis
// layer reads this catalogue.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "Diagnostics.hpp"
#include "SharingMode.hpp"

namespace gtw::channel {

enum class Resource { SM, L1, L2, HBM, TLB, PCIE, NVLINK, NIC, STORAGE, HOST_MEMORY, REMANENCE, POWER };
inline constexpr int RESOURCE_COUNT = static_cast<int>(Resource::POWER) + 1;
const char* resource_name(Resource r);         // "sm", "l1", "l2", ..., "power"
const char* resource_description(Resource r);  // "SM / warp scheduler / functional units", ...
std::optional<Resource> resource_from_name(const std::string& name);

/// How the observer and the source share the resource: the sharing mode of the one GPU they both
/// use (exclusive and confidential GPUs hold one tenant at a time, so only sequential channels such
/// as remanence apply there), or two different GPUs of one node, or two nodes.
enum class Mode { EXCLUSIVE, TIME_SLICING, MPS, MIG, VGPU, CONFIDENTIAL, SEPARATE_GPUS, SEPARATE_NODES };
inline constexpr int MODE_COUNT = static_cast<int>(Mode::SEPARATE_NODES) + 1;
const char* mode_name(Mode m);  // "exclusive", "timeSlicing", "mps", "mig", "vgpu", "confidential", ...
std::optional<Mode> mode_from_name(const std::string& name);
/// The catalogue column of a GPU's sharing mode (GpuLayout::sharing): the same six modes.
Mode mode_of_sharing(SharingMode sharing);

enum class State {
  CLOSED,             // blocked by design (reason says how)
  OPEN,               // demonstrated or applicable, with a capacity
  OPEN_UNQUANTIFIED,  // demonstrated or applicable, but no published or calibrated capacity
};
const char* state_name(State s);

/// How a channel carries information: a rate over co-activity (timing channels, bits/s) or a one-off
/// hand-over of data (remanence, bytes).
enum class Carrier { TIMING, DATA };

/// Binary entropy H(p) in bits; H(0) = H(1) = 0.
double binary_entropy(double p);
/// Capacity of binary signalling at `probe_rate` probes/s, `bits_per_probe` symbols each, with bit
/// error probability p (a binary symmetric channel): probe_rate x bits_per_probe x (1 - H(p)).
double bsc_capacity(double probe_rate, double bits_per_probe, double error_rate);
/// Bit error of a threshold detector halfway between the two probe-latency levels, which differ by
/// `signal` seconds, under Gaussian noise of standard deviation `noise` seconds: Q(signal / (2 noise)).
double threshold_error(double signal, double noise);

/// One published (or calibrated) measurement of a channel.
struct Measurement {
  std::string id;              // attack id in attacks.md (A5), or "calibrated"
  std::string source;          // citation, carried into every output
  std::string hardware;        // where it was measured
  double probe_rate = 0;       // probes per second
  double bits_per_probe = 1;   // symbols decoded per probe
  double error_rate = 0;       // bit error probability
  bool error_reported = true;  // false: the source gives no error rate; 0 is assumed (an upper bound)
  /// How the number carries over to a GPU product it was not measured on (`hardware` does not name it):
  /// `transferable` with the stated rule (taken as is, and why), or not: then the channel is open but
  /// unquantified on that product, with the rule as the reason.
  bool transferable = true;
  std::string transfer_rule;
  /// Whether `product` (a hardware profile name, H100-80GB-SXM) is one it was measured on: `hardware` names
  /// its family (H100).
  bool measured_on(const std::string& product) const;
  /// Raw signalling rate, bits/s: what papers report as the channel's bandwidth.
  double bit_rate() const { return probe_rate * bits_per_probe; }
  double capacity() const { return bsc_capacity(probe_rate, bits_per_probe, error_rate); }
};

struct Cell {
  Resource resource = Resource::SM;
  Mode mode = Mode::EXCLUSIVE;
  State state = State::CLOSED;
  Carrier carrier = Carrier::TIMING;
  std::string reason;                     // why it is open or closed, with the attack ids
  std::vector<std::string> closed_by;     // mitigations that close it when open
  std::vector<Measurement> measurements;  // published defaults (best capacity wins)
  /// Time-sliced GPUs: the observer sees the source once per context switch, so the probe rate is
  /// 1 / time slice of the GPU (taken from the scenario), not a published rate.
  bool probe_per_time_slice = false;
  /// The spy must open the source's GPU itself (CUDA peer access to it): closed where tenants see only
  /// their allocated GPUs (peer_access_closure). Contention channels driven from the spy's own GPUs do not.
  bool needs_peer_access = false;
  std::vector<std::string> atlas;  // MITRE ATLAS technique ids that use the channel
};

/// A channel's effective rate for one GPU product and time slice.
struct ChannelRate {
  State state = State::CLOSED;
  double probe_rate = 0;
  double bits_per_probe = 0;
  double error_rate = 0;
  double bit_rate = 0;        // probe_rate x bits_per_probe
  double capacity_bps = 0;    // bit_rate x (1 - H(error_rate))
  std::string source;         // where the numbers come from
  std::string measured_on;    // a published measurement's platform (empty for calibrated and derived rates)
  std::string transfer_rule;  // how it carries over to products it was not measured on
};

/// A published measurement's rate on `product` (empty: any): as measured on its platform, carried over by
/// its transfer rule to another product, or open-unquantified where it does not transfer.
ChannelRate measurement_rate(const Measurement& m, const std::string& product);

/// Calibrated values for one (product, resource, mode): from a hardware profile's `spec.channels`
/// or the API. The error is either given, or derived from the signal and noise of the probe.
struct Calibration {
  Resource resource = Resource::SM;
  Mode mode = Mode::EXCLUSIVE;
  double probe_rate = 0;
  double bits_per_probe = 1;
  std::optional<double> error_rate;
  std::optional<double> signal_s;  // latency difference between a 1 and a 0 at the probe
  std::optional<double> noise_s;   // standard deviation of the probe latency
  std::string source;
  double effective_error() const;
};

/// Knobs that lower a channel's rate without closing it (mitigations the analysis understands).
struct RateLimits {
  double timer_resolution_s = 0;  // coarser timers: at most one probe per resolution; 0 = native timers
};

class Catalogue {
 public:
  /// The built-in catalogue from the published measurements (attacks.md).
  static const Catalogue& defaults();

  const Cell& cell(Resource r, Mode m) const { return cells_[static_cast<size_t>(r)][static_cast<size_t>(m)]; }
  const std::vector<std::vector<Cell>>& cells() const { return cells_; }

  /// A channel between two different GPUs of one node passes through both GPUs' ends (peer access
  /// over NVLink, the NVLink fabric): a MIG instance or a confidential GPU at either end closes it.
  /// Returns the reason when `endpoint` closes `r`, empty otherwise.
  std::string endpoint_closure(Resource r, Mode endpoint) const;

  /// Where tenants see only the GPUs allocated to them (device plugin, cgroup device isolation), a spy
  /// cannot enable peer access to another tenant's GPU. Returns the reason when that closes (r, m)
  /// (cells with needs_peer_access), empty otherwise.
  std::string peer_access_closure(Resource r, Mode m) const;

  /// The rate of (r, m) on `product` with the given time slice (for per-slice channels) and limits.
  ChannelRate rate(Resource r, Mode m, const std::string& product, double time_slice_s,
                   const RateLimits& limits = {}) const;

  /// Adds (or replaces) a calibrated value for `product`.
  void calibrate(const std::string& product, const Calibration& c);
  const std::map<std::tuple<std::string, Resource, Mode>, Calibration>& calibrations() const { return calibrated_; }

 private:
  Catalogue();
  std::vector<std::vector<Cell>> cells_;  // [resource][mode]
  std::map<std::tuple<std::string, Resource, Mode>, Calibration> calibrated_;
};

/// Reads the optional `spec.channels` list of a hardware profile file into `catalogue` for
/// `product`. A profile without it changes nothing. Problems are recorded in `diags` (file:line:col).
/// Entry: {resource: nvlink, mode: separateGpus, probeRate: 45.5k/s | 45500/s, bitsPerProbe: 1,
///         errorRate: 0.0322 | (signal: 2us, noise: 0.5us), source: "..."}
void load_profile_channels(const std::string& profile_file, const std::string& product, Catalogue& catalogue,
                           Diagnostics& diags);
/// The same from YAML text (`file` names it in diagnostics).
void load_profile_channels_text(const std::string& text, const std::string& file, const std::string& product,
                                Catalogue& catalogue, Diagnostics& diags);

/// LeftoverLocals (CVE-2023-4969): uninitialised local memory the next kernel can read, per kernel
/// invocation = compute units x local memory per unit (on affected, non-NVIDIA GPUs).
double leftover_local_bytes(int compute_units, double local_memory_per_unit);

/// Built-in reproduction of the published channels (for tests and docs): the NVLink contention
/// channel of Beyond the Bridge (A5) and NVBleed (A6), the cross-GPU L2 channel (A4).
const Measurement& published(const std::string& id);
/// The ids of the built-in published measurements (A1, A4, A5, ...), in catalogue order.
std::vector<std::string> published_ids();

}  // namespace gtw::channel
