#include "ChannelCatalogue.hpp"

#include <yaml-cpp/yaml.h>
#include "InputFile.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "Units.hpp"

namespace gtw::channel {

namespace {

constexpr const char* RESOURCE_NAMES[] = {"sm",     "l1",  "l2",      "hbm",        "tlb",       "pcie",
                                          "nvlink", "nic", "storage", "hostMemory", "remanence", "power"};
constexpr const char* RESOURCE_DESCRIPTIONS[] = {"SM / warp scheduler / functional units",
                                                 "L1 / shared memory",
                                                 "L2 cache",
                                                 "HBM bandwidth / memory bus",
                                                 "GPU TLB hierarchy",
                                                 "PCIe (host-device path)",
                                                 "NVLink / NVSwitch",
                                                 "NIC / fabric",
                                                 "storage",
                                                 "host memory",
                                                 "GPU memory remanence",
                                                 "power / clock domain"};
constexpr const char* MODE_NAMES[] = {"exclusive", "timeSlicing",  "mps",          "mig",
                                      "vgpu",      "confidential", "separateGpus", "separateNodes"};

// ---- the published measurements (attacks.md section 1)
const std::vector<Measurement>& published_measurements() {
  static const std::vector<Measurement> m = {
      {"A1", "Constructing and Characterizing Covert Channels on GPGPUs, MICRO 2017: error-free > 4 Mbps",
       "3 NVIDIA GPUs (Kepler, Maxwell, Pascal)", 4e6, 1, 0, true, true,
       "taken as is: co-resident kernels share the same structures (functional units, warp schedulers, L1 and "
       "constant caches, L2, DRAM) on every NVIDIA GPU since, and the probe loops run at SM clocks of the same "
       "order (1.5-1.9 GHz then, 1.4-2.0 GHz on A100/H100/H200); not re-measured there"},
      {"A4", "Spy in the GPU-box, arXiv 2203.15981: remote L2 covert channel over NVLink, best 3.95 MB/s", "DGX-1 V100",
       3.95e6 * 8, 1, 0, false, true,
       "taken as is on NVLink-connected GPUs with peer access: the attack needs only peer access and the victim "
       "GPU's L2; the larger L2 of later GPUs (40-60 MB against 6 MB) needs more probe work per set and their "
       "faster links shorten each probe, neither modelled; not re-measured there"},
      {"A5", "Beyond the Bridge, arXiv 2404.03877: NVLink contention covert channel 45.5 kbps at 3.22% error", "V100",
       45.5e3, 1, 0.0322, true, true,
       "taken as is on NVLink-connected GPUs: congesting a link the spy shares needs no permission; faster links "
       "need more traffic to congest and shorten each probe, neither modelled; not re-measured there"},
      {"A5-published", "Beyond the Bridge, published version (per pnnl.gov): NVLink covert channel 33 kbps", "V100",
       33e3, 1, 0, false, true, "taken as is on NVLink-connected GPUs (as A5)"},
      {"A6", "NVBleed, arXiv 2503.17847: NVLink covert channel > 70 kbps at 4.78% error", "NVLink (incl. GCP VMs)",
       70e3, 1, 0.0478, true, true,
       "taken as is on NVLink-connected GPUs: the paper does not tie the rate to one GPU product (cloud VMs "
       "included)"},
      {"A17", "PCIe timing channel GPU-FPGA (Ali, Khaliq, Khan), ISQED 2022: 13.02 kbps", "shared host PCIe", 13.02e3,
       1, 0, false, true,
       "taken as is for any GPU on a shared host PCIe path: the channel is the host's PCIe and memory path, not "
       "the accelerator; the PCIe generation is not modelled"},
  };
  return m;
}

const char* const ATLAS_EXFIL = "AML.T0025";        // Exfiltration via Cyber Means (covert channels)
const char* const ATLAS_EXTRACT = "AML.T0024.002";  // model extraction (architecture, weights)

}  // namespace

const char* resource_name(Resource r) {
  return RESOURCE_NAMES[static_cast<int>(r)];
}
const char* resource_description(Resource r) {
  return RESOURCE_DESCRIPTIONS[static_cast<int>(r)];
}
std::optional<Resource> resource_from_name(const std::string& name) {
  for (int i = 0; i < RESOURCE_COUNT; ++i)
    if (name == RESOURCE_NAMES[i]) return static_cast<Resource>(i);
  return std::nullopt;
}
const char* mode_name(Mode m) {
  return MODE_NAMES[static_cast<int>(m)];
}
std::optional<Mode> mode_from_name(const std::string& name) {
  for (int i = 0; i < MODE_COUNT; ++i)
    if (name == MODE_NAMES[i]) return static_cast<Mode>(i);
  return std::nullopt;
}
Mode mode_of_sharing(SharingMode sharing) {
  switch (sharing) {
    case SharingMode::EXCLUSIVE:
      return Mode::EXCLUSIVE;
    case SharingMode::TIME_SLICING:
      return Mode::TIME_SLICING;
    case SharingMode::MPS:
      return Mode::MPS;
    case SharingMode::MIG:
      return Mode::MIG;
    case SharingMode::VGPU:
      return Mode::VGPU;
    case SharingMode::CONFIDENTIAL:
      return Mode::CONFIDENTIAL;
  }
  return Mode::EXCLUSIVE;
}
const char* state_name(State s) {
  switch (s) {
    case State::CLOSED:
      return "closed";
    case State::OPEN:
      return "open";
    case State::OPEN_UNQUANTIFIED:
      return "open-unquantified";
  }
  return "closed";
}

double binary_entropy(double p) {
  if (p <= 0 || p >= 1) return 0;
  return -p * std::log2(p) - (1 - p) * std::log2(1 - p);
}

double bsc_capacity(double probe_rate, double bits_per_probe, double error_rate) {
  // Error above one half is the same channel with the symbols swapped.
  return probe_rate * bits_per_probe * (1 - binary_entropy(std::clamp(error_rate, 0.0, 1.0)));
}

double threshold_error(double signal, double noise) {
  if (noise <= 0) return signal > 0 ? 0.0 : 0.5;
  return 0.5 * std::erfc(signal / (2 * noise) / std::sqrt(2.0));
}

double Calibration::effective_error() const {
  if (error_rate) return *error_rate;
  if (signal_s && noise_s) return threshold_error(*signal_s, *noise_s);
  return 0;
}

double leftover_local_bytes(int compute_units, double local_memory_per_unit) {
  return static_cast<double>(compute_units) * local_memory_per_unit;
}

bool Measurement::measured_on(const std::string& product) const {
  if (product.empty()) return true;
  const std::string family = product.substr(0, product.find('-'));  // H100-80GB-SXM -> H100
  return !family.empty() && hardware.find(family) != std::string::npos;
}

ChannelRate measurement_rate(const Measurement& m, const std::string& product) {
  ChannelRate out;
  out.measured_on = m.hardware;
  out.transfer_rule = m.transfer_rule;
  out.source = m.id + ": " + m.source + (m.error_reported ? "" : " (no error rate published: 0 assumed)") +
               " [measured on " + m.hardware;
  if (m.measured_on(product)) {
    out.source += "]";
  } else {
    out.source += (m.transferable ? "; taken as is on " : "; not transferable to ") + product + "]";
    if (!m.transferable) {
      out.state = State::OPEN_UNQUANTIFIED;
      out.source += ": " + m.transfer_rule;
      return out;
    }
  }
  out.state = State::OPEN;
  out.probe_rate = m.probe_rate;
  out.bits_per_probe = m.bits_per_probe;
  out.error_rate = m.error_rate;
  return out;
}

const Measurement& published(const std::string& id) {
  for (const auto& m : published_measurements())
    if (m.id == id) return m;
  throw std::logic_error("no published measurement " + id);
}

std::vector<std::string> published_ids() {
  std::vector<std::string> out;
  for (const auto& m : published_measurements()) out.push_back(m.id);
  return out;
}

Catalogue::Catalogue() {
  cells_.assign(RESOURCE_COUNT, std::vector<Cell>(MODE_COUNT));
  for (int r = 0; r < RESOURCE_COUNT; ++r)
    for (int m = 0; m < MODE_COUNT; ++m) {
      Cell& c = cells_[static_cast<size_t>(r)][static_cast<size_t>(m)];
      c.resource = static_cast<Resource>(r);
      c.mode = static_cast<Mode>(m);
      c.carrier = c.resource == Resource::REMANENCE ? Carrier::DATA : Carrier::TIMING;
      c.atlas = {ATLAS_EXFIL, ATLAS_EXTRACT};
    }
  auto set = [this](Resource r, Mode m, State s, std::string reason, std::vector<std::string> closed_by = {},
                    std::vector<Measurement> ms = {}, bool per_slice = false) {
    Cell& c = cells_[static_cast<size_t>(r)][static_cast<size_t>(m)];
    c.state = s;
    c.reason = std::move(reason);
    c.closed_by = std::move(closed_by);
    c.measurements = std::move(ms);
    c.probe_per_time_slice = per_slice;
  };
  using R = Resource;
  using M = Mode;
  const State C = State::CLOSED, O = State::OPEN, U = State::OPEN_UNQUANTIFIED;
  const std::string one_tenant = "one tenant per GPU at a time: no co-residency";
  const std::string other_gpu = "different GPUs: the resource is not shared";
  const std::string other_node = "different nodes: the resource is not shared";
  const std::string per_slice =
      "(derived) one observation per context switch: probe rate = 1 / time slice of the GPU, error assumed 0 "
      "(upper bound); Leaky DNN (A3) shows the context-switch channel, no published rate";
  const std::vector<std::string> partition = {"MIG", "dedicated GPUs (exclusive)", "confidential computing"};
  const std::vector<std::string> timers = {"coarser timers", "MIG", "dedicated GPUs (exclusive)"};

  // Device-level resources: every mode of one GPU, then separate GPUs and nodes.
  for (R r : {R::SM, R::L1, R::L2, R::HBM, R::TLB}) {
    set(r, M::EXCLUSIVE, C, one_tenant);
    set(r, M::CONFIDENTIAL, C, one_tenant + " (a CC GPU is one confidential VM's)");
    set(r, M::SEPARATE_GPUS, C, other_gpu);
    set(r, M::SEPARATE_NODES, C, other_node);
  }
  set(R::SM, M::TIME_SLICING, O,
      "context-switch timing and counters (A3 Leaky DNN, A2): the observer sees how long the source held the GPU",
      {"MIG", "dedicated GPUs (exclusive)", "coarser timers", "restricted profiling counters"}, {}, true);
  set(R::SM, M::MPS, O, "co-resident kernels contend for warp schedulers and functional units (A1)", partition,
      {published("A1")});
  set(R::SM, M::MIG, C, "SMs are partitioned per MIG instance");
  set(R::SM, M::VGPU, O, "time-sliced like time-slicing: context-switch timing (A22; mechanism of A3)", timers, {},
      true);
  set(R::L1, M::TIME_SLICING, C,
      "L1/shared memory belongs to the running context; NVIDIA GPUs are not affected by LeftoverLocals (A7): local "
      "memory is cleared between kernels");
  set(R::L1, M::MPS, O, "co-resident kernels share SM L1/constant caches (A1)", partition, {published("A1")});
  set(R::L1, M::MIG, C, "SMs, and their L1, are partitioned per MIG instance");
  set(R::L1, M::VGPU, C, "as time-slicing: L1 belongs to the running context; NVIDIA not affected by A7");
  set(R::L2, M::TIME_SLICING, O,
      "L2 state survives a context switch: prime before the slice ends, probe after (y in the attacks.md matrix)",
      timers, {}, true);
  set(R::L2, M::MPS, O, "co-resident kernels share the L2 (A1 cache channels; A4 mechanism)", partition,
      {published("A1")});
  set(R::L2, M::MIG, C,
      "L2 slices are partitioned per MIG instance; the cross-instance membar channel of Behind Bars (A12) has no "
      "published bandwidth and is not counted");
  set(R::L2, M::VGPU, O, "time-sliced: L2 state survives a context switch (y)", timers, {}, true);
  set(R::L2, M::SEPARATE_GPUS, O,
      "remote prime+probe on the other GPU's L2 through NVLink peer access (A4 Spy in the GPU-box)",
      {"MIG (no P2P)", "confidential computing", "disable peer access (gpuVisibility: allocated)"}, {published("A4")});
  // A4's spy allocates on and enables peer access to the victim's GPU; A5/A6 congest NVLink from the
  // spy's own GPUs ("no special permissions", cross-VM on GCP), so NVLink contention needs no access.
  cells_[static_cast<size_t>(R::L2)][static_cast<size_t>(M::SEPARATE_GPUS)].needs_peer_access = true;
  set(R::HBM, M::TIME_SLICING, C, "one context runs at a time: no concurrent bandwidth contention");
  set(R::HBM, M::MPS, O, "co-resident kernels contend for memory bandwidth (A1 global-memory channel)", partition,
      {published("A1")});
  set(R::HBM, M::MIG, C, "memory controllers and HBM slices are partitioned per MIG instance");
  set(R::HBM, M::VGPU, C, "time-sliced: one context runs at a time");
  set(R::TLB, M::TIME_SLICING, U, "shared TLB hierarchy (y, mechanism of A13); no published bandwidth", timers);
  set(R::TLB, M::MPS, U, "shared TLB hierarchy (A13; MPS raises bandwidth 40x); bandwidth unverified", partition);
  set(R::TLB, M::MIG, U, "last-level TLB shared across MIG instances (A14 TunneLs, unverified); no bandwidth",
      {"dedicated GPUs (exclusive)"});
  set(R::TLB, M::VGPU, U, "time-sliced: shared TLB (y); no published bandwidth", timers);

  // Remanence: a hand-over of memory, counted in bytes by the analysis (no rate).
  const std::vector<std::string> scrub = {"scrub on free", "confidential computing"};
  set(R::REMANENCE, M::EXCLUSIVE, O,
      "a GPU handed to the next tenant keeps the previous tenant's memory unless scrubbed (A19, A20)", scrub);
  set(R::REMANENCE, M::TIME_SLICING, O, "no memory isolation: freed memory is reallocated unscrubbed (A20)", scrub);
  set(R::REMANENCE, M::MPS, O, "one address space manager: freed memory is reallocated unscrubbed (y)", scrub);
  set(R::REMANENCE, M::MIG, O, "an instance's memory outlives its tenant and MIG reconfiguration (y; CVE-2026-24197)",
      scrub);
  set(R::REMANENCE, M::VGPU, O, "a framebuffer partition handed over unscrubbed (y)", scrub);
  set(R::REMANENCE, M::CONFIDENTIAL, C, "CC mode scrubs GPU memory when the confidential VM ends (unverified)");
  set(R::REMANENCE, M::SEPARATE_GPUS, C, "no memory is handed between different GPUs");
  set(R::REMANENCE, M::SEPARATE_NODES, C, "no memory is handed between nodes");

  // Node-level resources: same GPU (any shared mode) or different GPUs of one node.
  const std::string same_gpu_seq = "one tenant per GPU at a time; across GPUs see separateGpus";
  for (R r : {R::PCIE, R::NVLINK, R::NIC, R::STORAGE, R::HOST_MEMORY, R::POWER}) {
    set(r, M::EXCLUSIVE, C, same_gpu_seq);
    set(r, M::SEPARATE_NODES, C, other_node);
  }
  const std::vector<std::string> pcie_closers = {"dedicated nodes", "PCIe time-division multiplexing (A17)"};
  for (M m : {M::TIME_SLICING, M::MPS, M::MIG, M::VGPU, M::CONFIDENTIAL, M::SEPARATE_GPUS})
    set(R::PCIE, m, O, "host-device PCIe contention (A15, A17)", pcie_closers, {published("A17")});
  set(R::PCIE, M::CONFIDENTIAL, O,
      "CC encrypts the bytes (bounce buffers), not the traffic: PCIe contention timing stays visible (A15, A17)",
      pcie_closers, {published("A17")});
  const std::string same_ports = "both tenants sit behind the same NVLink ports; the attacks need two GPUs (A5, A6)";
  set(R::NVLINK, M::TIME_SLICING, C, same_ports);
  set(R::NVLINK, M::MPS, C, same_ports);
  set(R::NVLINK, M::VGPU, C, same_ports);
  set(R::NVLINK, M::MIG, C, "MIG instances have no NVLink peer access (P2P = No for every profile)");
  set(R::NVLINK, M::CONFIDENTIAL, C, "PPCIe: the NVLink/NVSwitch fabric is exclusive to one confidential VM");
  set(R::NVLINK, M::SEPARATE_GPUS, O, "NVLink congestion timing between GPUs of one node (A5, A6)",
      {"MIG (no P2P)", "confidential computing (PPCIe)", "dedicated nodes", "restricted NVLink counters"},
      {published("A6"), published("A5"), published("A5-published")});
  for (M m : {M::TIME_SLICING, M::MPS, M::MIG, M::VGPU, M::CONFIDENTIAL, M::SEPARATE_GPUS}) {
    set(R::NIC, m, U, "GPUs of a node share its NICs; no published GPU-tenant capacity and no fabric model yet",
        {"dedicated nodes"});
    set(R::STORAGE, m, U, "local NVMe and shared file systems; no published capacity and no storage model yet",
        {"dedicated storage"});
    set(R::HOST_MEMORY, m, U,
        m == M::CONFIDENTIAL ? "CVM memory is encrypted, but host memory bandwidth contention stays visible; no "
                               "published capacity"
                             : "host memory bandwidth and page cache contention; no published GPU-tenant capacity",
        {"dedicated nodes"});
    set(R::POWER, m, U,
        m == M::MIG ? "MIG instances share one power and clock domain (A26, qualitative)"
                    : "shared power/clock domain or node power cap (y); no published capacity",
        {"dedicated nodes", "fixed clocks"});
  }
  set(R::NIC, M::SEPARATE_NODES, U, "nodes share the fabric; no published capacity and no fabric model yet",
      {"dedicated fabric partitions"});
  set(R::STORAGE, M::SEPARATE_NODES, U, "shared file system / object store; no published capacity, no storage model",
      {"dedicated storage"});
}

const Catalogue& Catalogue::defaults() {
  static const Catalogue catalogue;
  return catalogue;
}

std::string Catalogue::endpoint_closure(Resource r, Mode endpoint) const {
  if (r != Resource::NVLINK && r != Resource::L2) return "";
  if (endpoint == Mode::MIG) return "a MIG instance has no NVLink peer access (P2P = No)";
  if (endpoint == Mode::CONFIDENTIAL) return "a confidential GPU's NVLink and peer access are exclusive to its CVM";
  return "";
}

std::string Catalogue::peer_access_closure(Resource r, Mode m) const {
  if (!cell(r, m).needs_peer_access) return "";
  return "gpuVisibility: allocated (spec.policies.isolation): the spy sees only its own GPUs and cannot enable "
         "peer access to the source's GPU, which remote prime+probe of its L2 needs (A4)";
}

ChannelRate Catalogue::rate(Resource r, Mode m, const std::string& product, double time_slice_s,
                            const RateLimits& limits) const {
  const Cell& c = cell(r, m);
  ChannelRate out;
  out.state = c.state;
  if (c.state == State::CLOSED) return out;
  if (c.carrier == Carrier::DATA) {
    out.source = "a hand-over of data: counted in bytes as a discrete exposure, not as a rate";
    return out;
  }
  const auto cal = calibrated_.find({product, r, m});
  if (cal != calibrated_.end()) {
    out.state = State::OPEN;
    out.probe_rate = cal->second.probe_rate;
    out.bits_per_probe = cal->second.bits_per_probe;
    out.error_rate = cal->second.effective_error();
    out.source = "calibrated: " + cal->second.source;
  } else if (c.probe_per_time_slice && time_slice_s > 0) {
    out.probe_rate = 1 / time_slice_s;
    out.bits_per_probe = 1;
    out.error_rate = 0;
    char buf[64];
    std::snprintf(buf, sizeof buf, " (time slice %.3g ms)", time_slice_s * 1e3);
    out.source = "(derived) one observation per context switch" + std::string(buf);
  } else if (!c.measurements.empty()) {
    const auto best =
        std::max_element(c.measurements.begin(), c.measurements.end(),
                         [](const Measurement& a, const Measurement& b) { return a.capacity() < b.capacity(); });
    out = measurement_rate(*best, product);
    if (out.state != State::OPEN) return out;
  } else {
    out.state = State::OPEN_UNQUANTIFIED;
    out.source = c.reason;
    return out;
  }
  // Coarser timers: the observer cannot probe faster than its clock resolves.
  if (limits.timer_resolution_s > 0) out.probe_rate = std::min(out.probe_rate, 1 / limits.timer_resolution_s);
  out.bit_rate = out.probe_rate * out.bits_per_probe;
  out.capacity_bps = bsc_capacity(out.probe_rate, out.bits_per_probe, out.error_rate);
  return out;
}

void Catalogue::calibrate(const std::string& product, const Calibration& c) {
  calibrated_[{product, c.resource, c.mode}] = c;
}

namespace {

SourceLoc loc_of(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return SourceLoc{file, m.line + 1, m.column + 1};
}

}  // namespace

void load_profile_channels_text(const std::string& text, const std::string& file, const std::string& product,
                                Catalogue& catalogue, Diagnostics& diags) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    diags.error(SourceLoc{file, e.mark.line + 1, e.mark.column + 1}, "", e.msg);
    return;
  }
  if (!root.IsMap() || !root["spec"] || !root["spec"].IsMap()) return;
  const YAML::Node list = root["spec"]["channels"];
  if (!list) return;
  if (!list.IsSequence()) {
    diags.error(loc_of(file, list), "spec.channels", "expected a list of {resource, mode, probeRate, ...}");
    return;
  }
  int i = 0;
  for (const auto& item : list) {
    const std::string path = "spec.channels[" + std::to_string(i++) + "]";
    if (!item.IsMap()) {
      diags.error(loc_of(file, item), path, "expected {resource, mode, probeRate, errorRate | signal + noise, source}");
      continue;
    }
    Calibration c;
    bool ok = true;
    for (const auto& kv : item) {
      static const std::vector<std::string> known = {"resource",  "mode",   "probeRate", "bitsPerProbe",
                                                     "errorRate", "signal", "noise",     "source"};
      const auto key = kv.first.as<std::string>("");
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        diags.error(loc_of(file, kv.first), path + "." + key, "unknown key");
        ok = false;
      }
    }
    auto text_of = [&](const char* key, std::string& out) {
      const YAML::Node n = item[key];
      if (!n || !n.IsScalar()) {
        diags.error(loc_of(file, n ? n : item), path + "." + key, "required");
        ok = false;
        return false;
      }
      out = n.Scalar();
      return true;
    };
    std::string s;
    if (text_of("resource", s)) {
      if (auto r = resource_from_name(s))
        c.resource = *r;
      else {
        diags.error(loc_of(file, item["resource"]), path + ".resource", "unknown resource '" + s + "'");
        ok = false;
      }
    }
    if (text_of("mode", s)) {
      if (auto m = mode_from_name(s))
        c.mode = *m;
      else {
        diags.error(loc_of(file, item["mode"]), path + ".mode", "unknown mode '" + s + "'");
        ok = false;
      }
    }
    if (text_of("probeRate", s)) {
      auto r = parse_rate(s);
      if (!r || r.quantity->value <= 0) {
        diags.error(loc_of(file, item["probeRate"]), path + ".probeRate", r ? "must be positive" : r.error);
        ok = false;
      } else {
        c.probe_rate = r.quantity->value;
      }
    }
    auto number = [&](const char* key, double lo, double hi) -> std::optional<double> {
      const YAML::Node n = item[key];
      if (!n) return std::nullopt;
      try {
        const double v = n.as<double>();
        if (v >= lo && v <= hi) return v;
      } catch (const YAML::Exception&) {
      }
      std::ostringstream msg;
      msg << "expected a number in [" << lo << ", " << hi << "]";
      diags.error(loc_of(file, n), path + "." + key, msg.str());
      ok = false;
      return std::nullopt;
    };
    if (auto b = number("bitsPerProbe", 1, 1e9)) c.bits_per_probe = *b;
    c.error_rate = number("errorRate", 0, 0.5);
    auto duration = [&](const char* key) -> std::optional<double> {
      const YAML::Node n = item[key];
      if (!n) return std::nullopt;
      auto d = parse_duration(n.IsScalar() ? n.Scalar() : "");
      if (!d) {
        diags.error(loc_of(file, n), path + "." + key, d.error);
        ok = false;
        return std::nullopt;
      }
      return d.quantity->value;
    };
    c.signal_s = duration("signal");
    c.noise_s = duration("noise");
    if (!c.error_rate && !(c.signal_s && c.noise_s)) {
      diags.error(loc_of(file, item), path, "needs errorRate, or signal and noise");
      ok = false;
    }
    if (c.error_rate && (c.signal_s || c.noise_s)) {
      diags.error(loc_of(file, item), path, "give errorRate or signal + noise, not both");
      ok = false;
    }
    if (text_of("source", c.source) && c.source.empty()) {
      diags.error(loc_of(file, item["source"]), path + ".source", "every calibrated number needs its source");
      ok = false;
    }
    if (ok) catalogue.calibrate(product, c);
  }
}

void load_profile_channels(const std::string& profile_file, const std::string& product, Catalogue& catalogue,
                           Diagnostics& diags) {
  const auto text = read_input_file(profile_file, InputKind::PROFILE, diags);
  if (text && check_yaml_item_count(*text, profile_file, diags))
    load_profile_channels_text(*text, profile_file, product, catalogue, diags);
}

}  // namespace gtw::channel
