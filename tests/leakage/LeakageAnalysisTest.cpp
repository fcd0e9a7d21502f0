// The leakage surface over synthetic event logs: exposure is the exact overlap of the tenants'
// activity, bound = capacity x exposure, and the sharing mode decides which channels are open.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "Leakage.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

using channel::Mode;
using channel::Resource;

// A hand-built run: tenants, pools, GPUs and events, with no engine.
struct Synthetic {
  ScenarioSpec spec;
  RunResult run;

  Synthetic() {
    spec.name = "synthetic";
    spec.source_file = "scenario.yaml";
    spec.duration = Seconds(100);
    run.end_time = 100;
  }
  int tenant(const std::string& name) {
    spec.tenants.push_back({});
    spec.tenants.back().name = name;
    return static_cast<int>(spec.tenants.size()) - 1;
  }
  int workload(const std::string& name, int tenant, WorkloadKind kind, double parameters = 0) {
    WorkloadSpec w;
    w.name = name;
    w.kind = kind;
    w.tenant = spec.tenants[static_cast<size_t>(tenant)].name;
    w.tenant_index = tenant;
    w.model.parameters = parameters;
    spec.workloads.push_back(w);
    return static_cast<int>(spec.workloads.size()) - 1;
  }
  void pool(const std::string& name, SharingMode mode, int line, double time_slice = 0.002) {
    NodePoolSpec p;
    p.name = name;
    p.sharing.mode = mode;
    p.sharing.time_slice = Seconds(time_slice);
    p.sharing.replicas = mode == SharingMode::TIME_SLICING ? 2 : 1;
    p.sharing.loc = SourceLoc{"scenario.yaml", line, 19};
    p.loc = SourceLoc{"scenario.yaml", line - 4, 9};
    spec.node_pools.push_back(p);
  }
  int gpu(const std::string& pool, int node, int local, const std::string& sharing, int slots = 1) {
    GpuLayout g;
    g.index = static_cast<int>(run.gpus.size());
    g.node = node;
    g.local = local;
    g.node_name = pool + "-" + std::to_string(node);
    g.pool = pool;
    g.product = "H100-80GB-SXM";
    g.sharing = sharing_mode_from_name(sharing).value();
    g.slots = slots;
    run.gpus.push_back(g);
    return g.index;
  }
  void event(double time, EventType type, int tenant, int workload, int replica, int gpu, double value = 0,
             double aux = 0) {
    Event e;
    e.time = time;
    e.type = type;
    e.tenant = tenant;
    e.workload = workload;
    e.replica = replica;
    e.gpu = gpu;
    e.value = value;
    e.aux = aux;
    run.log.append(e);
  }
  void busy(int gpu, int tenant, double start, double end) {
    event(end, EventType::GPU_BUSY, tenant, -1, 0, gpu, 0, start);
  }
  LeakageReport analyse(const IsolationOptions& options = {}) const {
    return analyse_leakage(spec, run, channel::Catalogue::defaults(), options);
  }
};

const LeakageChannel* find(const LeakageReport& r, int observer, int source, Resource res, Mode mode) {
  for (const auto& c : r.channels)
    if (c.observer == observer && c.source == source && c.resource == res && c.mode == mode) return &c;
  return nullptr;
}

bool any_channel(const LeakageReport& r, Resource res) {
  for (const auto& c : r.channels)
    if (c.resource == res) return true;
  return false;
}

const ClosedChannel* find_closed(const LeakageReport& r, Resource res, Mode mode) {
  for (const auto& c : r.closed)
    if (c.resource == res && c.mode == mode) return &c;
  return nullptr;
}

TEST(IntervalArithmetic, NormaliseIntersectMeasure) {
  EXPECT_EQ(normalise({{5, 7}, {0, 2}, {1, 3}, {3, 4}}), (Intervals{{0, 4}, {5, 7}}));
  EXPECT_EQ(normalise({{0, 1}, {1.5, 2}}, 0.5), (Intervals{{0, 2}}));
  EXPECT_EQ(normalise({{0, 1}, {1.6, 2}}, 0.5), (Intervals{{0, 1}, {1.6, 2}}));
  EXPECT_EQ(intersect({{0, 10}, {20, 30}}, {{5, 25}}), (Intervals{{5, 10}, {20, 25}}));
  EXPECT_TRUE(intersect({{0, 1}}, {{1, 2}}).empty());
  EXPECT_DOUBLE_EQ(measure({{0, 1.5}, {2, 4}}), 3.5);
}

// The leakage analysis measures a relation's co-activity by merging sorted runs (some written out, some held) instead
// of sorting their concatenation: the same double, bit for bit, on lists with shared, touching, nested and repeated
// intervals, split into runs at random.
TEST(IntervalArithmetic, MergedUnionMeasureIsTheMeasureOfTheNormalisedConcatenation) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> start(0, 1000), length(0, 30);
  std::uniform_int_distribution<int> lists(1, 9), size(0, 40), coin(0, 3);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<Intervals> sorted_lists(static_cast<size_t>(lists(rng)));
    Intervals all;
    for (auto& list : sorted_lists) {
      Intervals raw;
      for (int k = size(rng); k > 0; --k) {
        const double a = coin(rng) == 0 && !all.empty() ? all[static_cast<size_t>(k) % all.size()].second : start(rng);
        raw.emplace_back(a, a + (coin(rng) == 0 ? 0.0 : length(rng)));  // touching starts, empty intervals
        if (coin(rng) == 0) raw.push_back(raw.back());                  // a repeat
      }
      all.insert(all.end(), raw.begin(), raw.end());
      list = normalise(raw);
    }
    const double expected = measure(normalise(all));
    EXPECT_EQ(merged_union_measure(sorted_lists), expected) << "trial " << trial;
  }
  EXPECT_EQ(merged_union_measure({}), 0.0);
  EXPECT_EQ(merged_union_measure({{}, {{1, 2}}, {{2, 3}}, {{0.5, 1.5}}}), 2.5);
}

TEST(LeakageExposure, OverlapOnAnMpsGpuIsExactAndBoundIsCapacityTimesExposure) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  s.pool("p", SharingMode::MPS, 12);
  const int g = s.gpu("p", 0, 0, "mps", 2);
  s.busy(g, a, 0, 10);
  s.busy(g, a, 20, 30);
  s.busy(g, b, 5, 25);
  const auto r = s.analyse();
  const auto* sm = find(r, a, b, Resource::SM, Mode::MPS);
  ASSERT_NE(sm, nullptr);
  EXPECT_DOUBLE_EQ(sm->exposure_s, 10.0);  // [5, 10) + [20, 25)
  EXPECT_DOUBLE_EQ(sm->capacity_bps, 4e6);
  EXPECT_DOUBLE_EQ(sm->bound_bits, 4e7);
  EXPECT_EQ(sm->gpus, std::vector<int>{g});
  const auto* back = find(r, b, a, Resource::SM, Mode::MPS);
  ASSERT_NE(back, nullptr);
  EXPECT_DOUBLE_EQ(back->exposure_s, 10.0);
  for (const auto& c : r.channels) EXPECT_NE(c.observer, c.source);
  // SM, L1, L2 and HBM under MPS all rest on A1's one measurement: one receiver probing one sender. It counts
  // once, in the first resource; the others point at it.
  for (const Resource res : {Resource::L1, Resource::L2, Resource::HBM}) {
    const auto* c = find(r, a, b, res, Mode::MPS);
    ASSERT_NE(c, nullptr);
    EXPECT_DOUBLE_EQ(c->bound_bits, 4e7) << "its own bound is kept";
    EXPECT_FALSE(c->counted);
    EXPECT_EQ(c->counted_in, Resource::SM);
  }
  EXPECT_TRUE(sm->counted);
  // Totals are the sums of the counted bounds.
  double counted = 0, all = 0;
  for (const auto& c : r.channels) {
    all += c.bound_bits;
    if (c.counted) counted += c.bound_bits;
  }
  EXPECT_DOUBLE_EQ(r.total_bits, counted);
  EXPECT_LE(r.total_bits, all - 2 * 3 * 4e7) << "three A1 channels per direction not counted again";
  EXPECT_DOUBLE_EQ(
      r.tenants[static_cast<size_t>(a)].bits_as_observer + r.tenants[static_cast<size_t>(b)].bits_as_observer, counted);
}

TEST(LeakageExposure, TimeSlicesAreJoinedAcrossOneRoundOfTheOthers) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  s.pool("p", SharingMode::TIME_SLICING, 12, 0.002);
  const int g = s.gpu("p", 0, 0, "timeSlicing", 2);
  s.event(0.002, EventType::CONTEXT_SWITCH, b, -1, 0, g, 0.0001);
  // a | switch | b | switch | a, then b alone a second later.
  s.busy(g, a, 0.0, 0.002);
  s.busy(g, b, 0.0021, 0.0041);
  s.busy(g, a, 0.0042, 0.0062);
  s.busy(g, b, 1.0, 1.002);
  const auto r = s.analyse();
  // a is active over [0, 6.2 ms) (waiting through b's slice), b over [2.1, 4.1 ms) and [1, 1.002 s).
  const auto* l2 = find(r, a, b, Resource::L2, Mode::TIME_SLICING);
  ASSERT_NE(l2, nullptr);
  EXPECT_NEAR(l2->exposure_s, 0.002, 1e-12);
  EXPECT_DOUBLE_EQ(l2->capacity_bps, 500);  // one observation per 2 ms slice
  EXPECT_NEAR(l2->bound_bits, 1.0, 1e-9);
  // Time-slicing runs one context at a time: no HBM bandwidth channel.
  EXPECT_FALSE(any_channel(r, Resource::HBM));
  ASSERT_NE(find_closed(r, Resource::HBM, Mode::TIME_SLICING), nullptr);
}

TEST(LeakageExposure, MigClosesL2AndHbmButNotPcie) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  s.pool("p", SharingMode::MIG, 12);
  const int g0 = s.gpu("p", 0, 0, "mig");
  const int g1 = s.gpu("p", 0, 0, "mig");  // a second instance of the same GPU
  s.busy(g0, a, 0, 10);
  s.busy(g1, b, 0, 10);
  const auto r = s.analyse();
  for (Resource res : {Resource::SM, Resource::L1, Resource::L2, Resource::HBM, Resource::NVLINK})
    EXPECT_FALSE(any_channel(r, res)) << channel::resource_name(res);
  const auto* closed = find_closed(r, Resource::L2, Mode::MIG);
  ASSERT_NE(closed, nullptr);
  EXPECT_DOUBLE_EQ(closed->co_active_s, 10.0);
  const auto* pcie = find(r, a, b, Resource::PCIE, Mode::MIG);
  ASSERT_NE(pcie, nullptr);
  EXPECT_DOUBLE_EQ(pcie->exposure_s, 10.0);
  EXPECT_GT(pcie->bound_bits, 0);
}

TEST(LeakageExposure, MigInstanceAtOneEndClosesNvlinkToAnotherGpu) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  s.pool("p", SharingMode::EXCLUSIVE, 12);
  s.pool("m", SharingMode::MIG, 20);
  const int g0 = s.gpu("p", 0, 0, "exclusive");
  const int g1 = s.gpu("m", 0, 1, "mig");
  s.busy(g0, a, 0, 10);
  s.busy(g1, b, 0, 10);
  const auto r = s.analyse();
  EXPECT_EQ(find(r, a, b, Resource::NVLINK, Mode::SEPARATE_GPUS), nullptr);
  EXPECT_EQ(find(r, a, b, Resource::L2, Mode::SEPARATE_GPUS), nullptr);
  const auto* closed = find_closed(r, Resource::NVLINK, Mode::SEPARATE_GPUS);
  ASSERT_NE(closed, nullptr);
  EXPECT_NE(closed->reason.find("MIG"), std::string::npos);
  EXPECT_NE(find(r, a, b, Resource::PCIE, Mode::SEPARATE_GPUS), nullptr);
}

// GPUs with no NVLink between them (a product without NVLink, or two different bridged pairs) share no NVLink
// contention and no NVLink peer access: both channels are closed with that reason, and PCIe stays open.
TEST(LeakageExposure, GpusWithoutNvlinkBetweenThemHaveNoNvlinkOrRemoteL2Channel) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b"), c = s.tenant("c");
  s.pool("p", SharingMode::EXCLUSIVE, 12);
  const int g0 = s.gpu("p", 0, 0, "exclusive");
  const int g1 = s.gpu("p", 0, 1, "exclusive");
  const int g2 = s.gpu("p", 0, 2, "exclusive");
  s.run.gpus[static_cast<size_t>(g2)].nvlink_domain = 2;  // bridged pairs: 0-1 and 2-3
  s.busy(g0, a, 0, 10);
  s.busy(g1, b, 0, 10);
  s.busy(g2, c, 0, 10);
  IsolationOptions bare_metal;
  bare_metal.gpu_visibility = GpuVisibility::NODE;
  const auto r = s.analyse(bare_metal);
  EXPECT_NE(find(r, a, b, Resource::NVLINK, Mode::SEPARATE_GPUS), nullptr) << "one bridged pair";
  EXPECT_NE(find(r, a, b, Resource::L2, Mode::SEPARATE_GPUS), nullptr);
  EXPECT_EQ(find(r, a, c, Resource::NVLINK, Mode::SEPARATE_GPUS), nullptr) << "two pairs";
  EXPECT_EQ(find(r, a, c, Resource::L2, Mode::SEPARATE_GPUS), nullptr);
  EXPECT_NE(find(r, a, c, Resource::PCIE, Mode::SEPARATE_GPUS), nullptr);
  int closed = 0;
  for (const auto& x : r.closed)
    if (x.observer == a && x.source == c && (x.resource == Resource::NVLINK || x.resource == Resource::L2)) {
      ++closed;
      EXPECT_DOUBLE_EQ(x.co_active_s, 10.0);
      EXPECT_NE(x.reason.find("no NVLink between these GPUs"), std::string::npos) << x.reason;
    }
  EXPECT_EQ(closed, 2);
  // A product without NVLink at all (L40S): no pair has it.
  for (auto& g : s.run.gpus) g.nvlink_domain = -1;
  const auto none = s.analyse(bare_metal);
  EXPECT_FALSE(any_channel(none, Resource::NVLINK));
  EXPECT_FALSE(any_channel(none, Resource::L2));
  EXPECT_TRUE(any_channel(none, Resource::PCIE));
}

TEST(LeakageExposure, ExclusiveGpusShareNoSmOrL2OnTheGpuAndNothingAcrossNodes) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b"), c = s.tenant("c");
  s.pool("p", SharingMode::EXCLUSIVE, 12);
  const int g0 = s.gpu("p", 0, 0, "exclusive");
  const int g1 = s.gpu("p", 0, 1, "exclusive");
  const int g2 = s.gpu("p", 1, 0, "exclusive");
  s.busy(g0, a, 0, 10);
  s.busy(g1, b, 0, 10);
  s.busy(g2, c, 0, 10);
  IsolationOptions bare_metal;  // every GPU of the node visible: the remote L2 channel needs it
  bare_metal.gpu_visibility = GpuVisibility::NODE;
  const auto r = s.analyse(bare_metal);
  for (const auto& ch : r.channels) {
    EXPECT_NE(ch.mode, Mode::EXCLUSIVE);
    EXPECT_NE(ch.resource, Resource::SM);
    EXPECT_NE(ch.resource, Resource::L1);
    EXPECT_NE(ch.resource, Resource::HBM);
  }
  // Two GPUs of one node: the remote L2 channel over NVLink (A4) and NVLink contention are open.
  const auto* l2 = find(r, a, b, Resource::L2, Mode::SEPARATE_GPUS);
  ASSERT_NE(l2, nullptr);
  EXPECT_DOUBLE_EQ(l2->bound_bits, 3.95e6 * 8 * 10);
  ASSERT_NE(find(r, a, b, Resource::NVLINK, Mode::SEPARATE_GPUS), nullptr);
  // With device isolation (the default) the remote L2 channel is closed and NVLink contention stays.
  const auto isolated = s.analyse();
  EXPECT_EQ(find(isolated, a, b, Resource::L2, Mode::SEPARATE_GPUS), nullptr);
  ASSERT_NE(find(isolated, a, b, Resource::NVLINK, Mode::SEPARATE_GPUS), nullptr);
  // Another node: no GPU, PCIe or NVLink channel (fabric and storage have no capacity, not enumerated).
  for (const auto& ch : r.channels) {
    EXPECT_NE(ch.observer, c);
    EXPECT_NE(ch.source, c);
  }
}

TEST(LeakageDiscrete, ConfidentialClosesPlaintextPcieButNotPcieTiming) {
  for (const bool cc : {false, true}) {
    Synthetic s;
    const int a = s.tenant("a"), b = s.tenant("b");
    const int svc = s.workload("svc", a, WorkloadKind::INFERENCE, 8e9);
    const int job = s.workload("job", b, WorkloadKind::BATCH);
    s.pool("p", SharingMode::EXCLUSIVE, 12);
    const int g0 = s.gpu("p", 0, 0, cc ? "confidential" : "exclusive");
    const int g1 = s.gpu("p", 0, 1, "exclusive");
    s.event(0, EventType::PLACED, a, svc, 0, g0, 24e9);
    s.event(0, EventType::PLACED, b, job, 0, g1, 12e9);
    s.busy(g0, a, 1, 11);
    s.busy(g1, b, 1, 11);
    const auto r = s.analyse();
    const DiscreteExposure* plain = nullptr;
    for (const auto& d : r.discrete)
      if (d.kind == DiscreteKind::PLAINTEXT_PCIE && d.observer == b && d.source == a) plain = &d;
    ASSERT_NE(plain, nullptr) << cc;
    EXPECT_DOUBLE_EQ(plain->bytes, 16e9);  // 8B parameters x fp16
    EXPECT_EQ(plain->closed, cc);
    EXPECT_DOUBLE_EQ(r.total_bytes, cc ? 0.0 : 16e9);
    // PCIe contention timing is open either way; CC closes NVLink at its end.
    const auto* pcie = find(r, b, a, Resource::PCIE, Mode::SEPARATE_GPUS);
    ASSERT_NE(pcie, nullptr) << cc;
    EXPECT_DOUBLE_EQ(pcie->exposure_s, 10.0);
    EXPECT_EQ(find(r, b, a, Resource::NVLINK, Mode::SEPARATE_GPUS) == nullptr, cc);
    // Model IP: the weights' plaintext channel follows the same verdict.
    ASSERT_EQ(r.models.size(), 1u);
    bool seen = false;
    for (const auto& x : r.models[0].exposures)
      if (x.channel == "plaintextPcie") {
        seen = true;
        EXPECT_EQ(x.status, cc ? "closed" : "open");
        EXPECT_EQ(x.tenants, cc ? std::vector<std::string>{} : std::vector<std::string>{"b"});
      }
    EXPECT_TRUE(seen);
  }
}

TEST(LeakageDiscrete, UnscrubbedMemoryFollowsPlacementOrderAndScrubbingClosesIt) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  const int wa = s.workload("wa", a, WorkloadKind::BATCH);
  const int wb = s.workload("wb", b, WorkloadKind::BATCH);
  const int wc = s.workload("wc", b, WorkloadKind::BATCH);
  s.pool("p", SharingMode::EXCLUSIVE, 12);
  const int g = s.gpu("p", 0, 0, "exclusive");
  s.event(0, EventType::PLACED, a, wa, 0, g, 10e9);
  s.event(4, EventType::PLACED, b, wc, 0, g, 1e9);  // placed while a still holds its memory: nothing handed
  s.event(5, EventType::WORKLOAD_FAILED, a, wa, 0, g, 0, static_cast<double>(FailureReason::FAULT));
  s.event(6, EventType::PLACED, b, wb, 0, g, 4e9);
  const auto open = s.analyse();
  ASSERT_EQ(open.discrete.size(), 1u);
  EXPECT_EQ(open.discrete[0].kind, DiscreteKind::UNSCRUBBED_MEMORY);
  EXPECT_EQ(open.discrete[0].observer, b);
  EXPECT_EQ(open.discrete[0].source, a);
  EXPECT_DOUBLE_EQ(open.discrete[0].bytes, 4e9);  // min(released, reserved)
  EXPECT_FALSE(open.discrete[0].closed);
  EXPECT_DOUBLE_EQ(open.total_bytes, 4e9);

  // A replica that failed out of memory never held its data: nothing to hand over.
  Synthetic oom = s;
  oom.run.log = EventLog();
  oom.event(0, EventType::PLACED, a, wa, 0, g, 10e9);
  oom.event(0, EventType::WORKLOAD_FAILED, a, wa, 0, g, 0, static_cast<double>(FailureReason::OUT_OF_MEMORY));
  oom.event(6, EventType::PLACED, b, wb, 0, g, 4e9);
  EXPECT_TRUE(oom.analyse().discrete.empty());

  IsolationOptions scrub;
  scrub.scrub_on_free = true;
  const auto scrubbed = s.analyse(scrub);
  ASSERT_EQ(scrubbed.discrete.size(), 1u);
  EXPECT_TRUE(scrubbed.discrete[0].closed);
  EXPECT_DOUBLE_EQ(scrubbed.total_bytes, 0);
}

TEST(LeakageDiscrete, MigRepartitioningHandsTheOldInstancesMemoryToTheNewOnes) {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b");
  const int wa = s.workload("wa", a, WorkloadKind::BATCH);
  const int wb = s.workload("wb", b, WorkloadKind::BATCH);
  s.pool("p", SharingMode::MIG, 12);
  const int old_instance = s.gpu("p", 0, 0, "mig");
  const int other_gpu = s.gpu("p", 0, 1, "mig");
  const int new_instance = s.gpu("p", 0, 0, "mig");
  s.run.gpus[static_cast<size_t>(old_instance)].available_until = 30;
  s.run.gpus[static_cast<size_t>(new_instance)].available_from = 40;
  s.event(0, EventType::PLACED, a, wa, 0, old_instance, 20e9);
  s.event(30, EventType::WORKLOAD_FAILED, a, wa, 0, old_instance, 0, static_cast<double>(FailureReason::FAULT));
  s.event(40, EventType::PLACED, b, wb, 0, new_instance, 8e9);
  s.event(40, EventType::PLACED, b, wb, 1, other_gpu, 8e9);  // another GPU: never held a's memory
  const auto r = s.analyse();
  ASSERT_EQ(r.discrete.size(), 1u);
  EXPECT_EQ(r.discrete[0].gpu, new_instance);
  EXPECT_DOUBLE_EQ(r.discrete[0].bytes, 8e9);
  EXPECT_FALSE(r.discrete[0].closed);
}

Synthetic busy_cluster() {
  Synthetic s;
  const int a = s.tenant("a"), b = s.tenant("b"), c = s.tenant("c");
  const int svc = s.workload("svc", a, WorkloadKind::INFERENCE, 1e9);
  s.pool("p", SharingMode::TIME_SLICING, 12);
  const int g0 = s.gpu("p", 0, 0, "timeSlicing", 2);
  const int g1 = s.gpu("p", 0, 1, "timeSlicing", 2);
  s.event(0, EventType::PLACED, a, svc, 0, g0, 1e9);
  s.event(0, EventType::PLACED, c, svc, 1, g1, 1e9);
  for (int k = 0; k < 50; ++k) {
    const double t = k * 0.0042;
    s.busy(g0, k % 2 ? a : b, t, t + 0.002);
    s.busy(g1, k % 3 ? c : a, t, t + 0.002);
  }
  return s;
}

TEST(LeakageOutputs, DeterministicAndSorted) {
  const Synthetic s = busy_cluster();
  const auto r1 = s.analyse();
  const auto r2 = s.analyse();
  const Analysis none;
  const Provenance prov;
  EXPECT_EQ(report_json(s.spec, s.run, none, prov, &r1), report_json(s.spec, s.run, none, prov, &r2));
  EXPECT_EQ(report_markdown(s.spec, s.run, none, &r1), report_markdown(s.spec, s.run, none, &r2));
  EXPECT_EQ(findings_sarif(s.spec, s.run, r1, "t"), findings_sarif(s.spec, s.run, r2, "t"));
  ASSERT_FALSE(r1.channels.empty());
  for (size_t i = 1; i < r1.channels.size(); ++i) {
    const auto& p = r1.channels[i - 1];
    const auto& q = r1.channels[i];
    EXPECT_LT(std::tie(p.observer, p.source, p.resource, p.mode), std::tie(q.observer, q.source, q.resource, q.mode));
  }
}

TEST(LeakageOutputs, SarifPointsAtTheSharingLineWithAtlasTags) {
  const Synthetic s = busy_cluster();
  const auto r = s.analyse();
  const auto sarif = nlohmann::json::parse(findings_sarif(s.spec, s.run, r, "0.1.0"));
  EXPECT_EQ(sarif["version"], "2.1.0");
  const auto& results = sarif["runs"][0]["results"];
  size_t quantified = 0;
  for (const auto& c : r.channels) quantified += c.state == channel::State::OPEN && c.bound_bits > 0;
  size_t discrete = 0;
  for (const auto& d : r.discrete) discrete += !d.closed && d.bytes > 0;
  ASSERT_EQ(results.size(), quantified + discrete);
  ASSERT_GT(results.size(), 0u);
  for (const auto& res : results) {
    const auto& loc = res["locations"][0]["physicalLocation"];
    EXPECT_EQ(loc["artifactLocation"]["uri"], "scenario.yaml");
    EXPECT_EQ(loc["region"]["startLine"], 12);
    bool atlas = false;
    for (const auto& t : res["properties"]["tags"]) atlas |= t.get<std::string>().rfind("AML.T", 0) == 0;
    EXPECT_TRUE(atlas) << res.dump();
  }
  for (const auto& rule : sarif["runs"][0]["tool"]["driver"]["rules"]) EXPECT_TRUE(rule["properties"].contains("tags"));
}

}  // namespace
}  // namespace gtw
