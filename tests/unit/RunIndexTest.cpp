// The run index (sim/analysis/index/RunIndex.hpp) on hand-built event logs: one rule for when a replica's stay
// on a device ends, read by every analysis and compliance rule, and the plaintext host-to-device exposure that
// counts every model load the log shows.
#include <gtest/gtest.h>

#include "AnalysisStages.hpp"
#include "ChannelCatalogue.hpp"
#include "Leakage.hpp"
#include "RunIndex.hpp"

namespace gtw {
namespace {

constexpr double GB = 1e9;

// A hand-built run: tenants, workloads, GPUs on nodes, events; no engine.
struct Log {
  ScenarioSpec spec;
  RunResult run;

  Log() {
    spec.name = "index";
    spec.duration = Seconds(100);
    spec.sla_window = Seconds(10);
    run.end_time = 100;
  }
  int tenant(const std::string& name) {
    spec.tenants.push_back({});
    spec.tenants.back().name = name;
    return static_cast<int>(spec.tenants.size()) - 1;
  }
  int workload(const std::string& name, int tenant, WorkloadKind kind, int gpus = 1) {
    WorkloadSpec w;
    w.name = name;
    w.kind = kind;
    w.tenant = spec.tenants[static_cast<size_t>(tenant)].name;
    w.tenant_index = tenant;
    w.gpus = gpus;
    spec.workloads.push_back(w);
    return static_cast<int>(spec.workloads.size()) - 1;
  }
  int gpu(int node, int local, SharingMode mode = SharingMode::EXCLUSIVE) {
    GpuLayout g;
    g.index = static_cast<int>(run.gpus.size());
    g.node = node;
    g.local = local;
    g.node_name = "pool-" + std::to_string(node);
    g.pool = "pool";
    g.product = "H100-80GB-SXM";
    g.sharing = mode;
    g.memory = 80 * GB;
    run.gpus.push_back(g);
    return g.index;
  }
  void event(double time, EventType type, int workload, int replica, int gpu, double value = 0, double aux = 0) {
    Event e;
    e.time = time;
    e.type = type;
    e.workload = workload;
    e.tenant = workload >= 0 ? spec.workloads[static_cast<size_t>(workload)].tenant_index : -1;
    e.replica = replica;
    e.gpu = gpu;
    e.value = value;
    e.aux = aux;
    run.log.append(e);
  }
  void placed(double t, int w, int r, int g, double memory = 10 * GB) { event(t, EventType::PLACED, w, r, g, memory); }
  void failed(double t, int w, int r, int g, FailureReason why) {
    event(t, EventType::WORKLOAD_FAILED, w, r, g, 0, static_cast<double>(why));
  }
  void model_load(double start, double end, int w, int r, int g, double bytes) {
    event(end, EventType::MODEL_LOAD, w, r, g, bytes, start);
  }
  RunIndex index() const { return RunIndex(spec, run); }
};

const Stay& stay(const RunIndex& index, int w, int r, size_t k) {
  return index.stays().at(index.stays_of(WorkloadId(w), r).at(k));
}

TEST(RunIndex, ARestartedReplicaHasOneStayPerPlacementEachWithItsOwnEnd) {
  Log l;
  const int a = l.tenant("a");
  const int w = l.workload("svc", a, WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0, SharingMode::MIG), g1 = l.gpu(0, 1, SharingMode::MIG);
  l.placed(10, w, 0, g0);
  l.failed(40, w, 0, g0, FailureReason::RECONFIGURED);  // evicted by a MIG re-partitioning
  l.placed(45, w, 0, g1);                               // and placed again
  const auto index = l.index();
  ASSERT_EQ(index.stays_of(WorkloadId(w), 0).size(), 2u);
  const Stay& first = stay(index, w, 0, 0);
  EXPECT_EQ(first.gpu, g0);
  EXPECT_DOUBLE_EQ(first.start, 10);
  EXPECT_DOUBLE_EQ(first.end, 40);
  EXPECT_EQ(first.how, StayEnd::FAILED);
  EXPECT_EQ(first.reason, FailureReason::RECONFIGURED);
  EXPECT_EQ(first.seq, 0u);
  EXPECT_EQ(first.end_seq, 1);
  EXPECT_DOUBLE_EQ(first.memory, 10 * GB);
  const Stay& second = stay(index, w, 0, 1);
  EXPECT_EQ(second.gpu, g1);
  EXPECT_DOUBLE_EQ(second.start, 45);
  EXPECT_FALSE(second.ended());
  EXPECT_DOUBLE_EQ(second.end, 100);  // the end of the run
  EXPECT_EQ(index.first_stay(WorkloadId(w), 0), &first);
}

TEST(RunIndex, TheEndOfTheRunIsTheLaterOfTheRunsEndAndTheDuration) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  l.placed(0, w, 0, l.gpu(0, 0));
  l.run.end_time = 130;  // draining past the arrivals
  EXPECT_DOUBLE_EQ(l.index().run_end(), 130);
  EXPECT_DOUBLE_EQ(l.index().stays()[0].end, 130);
}

TEST(RunIndex, ATrainingJobHoldsItsGpusUntilJobDoneABatchWorkerKeepsThem) {
  Log l;
  const int a = l.tenant("a");
  const int train = l.workload("train", a, WorkloadKind::TRAINING);
  const int batch = l.workload("batch", a, WorkloadKind::BATCH);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, train, 0, g0);
  l.placed(0, batch, 0, g1);
  l.event(30, EventType::JOB_DONE, batch, 0, g1, 30, 20);  // a batch job ends; its worker stays
  l.event(50, EventType::JOB_DONE, train, 0, g0, 50, 40);
  const auto index = l.index();
  const Stay& job = stay(index, train, 0, 0);
  EXPECT_EQ(job.how, StayEnd::DONE);
  EXPECT_DOUBLE_EQ(job.end, 50);
  EXPECT_TRUE(job.held_memory());
  EXPECT_FALSE(stay(index, batch, 0, 0).ended());
  const auto rows = placement_results(index);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].end_reason, "done");
  EXPECT_DOUBLE_EQ(rows[0].end, 50);
  EXPECT_EQ(rows[1].end_reason, "");
  EXPECT_LT(rows[1].end, 0);
}

TEST(RunIndex, AFailureOfAMultiGpuWorkloadEndsItsStaysOnEveryGpu) {
  Log l;
  const int w = l.workload("train", l.tenant("a"), WorkloadKind::TRAINING, 2);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.placed(0, w, 0, g1);
  l.failed(20, w, 0, g0, FailureReason::FAULT);  // reported on the first GPU
  const auto index = l.index();
  ASSERT_EQ(index.stays().size(), 2u);
  for (const auto& s : index.stays()) {
    EXPECT_EQ(s.how, StayEnd::FAILED);
    EXPECT_DOUBLE_EQ(s.end, 20);
    EXPECT_EQ(s.reason, FailureReason::FAULT);
  }
}

TEST(RunIndex, ModelLoadsBelongToTheStayOpenOnTheirDevice) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.model_load(5, 6, w, 0, g0, 2 * GB);
  l.model_load(8, 9, w, 0, g0, 2 * GB);
  l.failed(20, w, 0, g0, FailureReason::PREEMPTED);
  l.placed(30, w, 0, g1);
  l.model_load(31, 32, w, 0, g1, 2 * GB);
  const auto index = l.index();
  ASSERT_EQ(index.loads().size(), 3u);
  EXPECT_DOUBLE_EQ(index.loads()[0].start, 5);
  EXPECT_DOUBLE_EQ(index.loads()[0].end, 6);
  EXPECT_EQ(index.loads()[0].stay, 0);
  EXPECT_EQ(index.loads()[2].stay, 1);
  EXPECT_EQ(stay(index, w, 0, 0).loads.size(), 2u);
  EXPECT_EQ(stay(index, w, 0, 1).loads.size(), 1u);
  EXPECT_DOUBLE_EQ(index.bytes_loaded(stay(index, w, 0, 0), 2 * GB), 6 * GB);  // bring-up + two swaps
  EXPECT_DOUBLE_EQ(index.bytes_loaded(stay(index, w, 0, 1), 2 * GB), 4 * GB);
}

TEST(RunIndex, StepsAndDataRecordsAreIndexed) {
  Log l;
  const int w = l.workload("train", l.tenant("a"), WorkloadKind::TRAINING);
  const int g = l.gpu(0, 0);
  l.placed(0, w, 0, g);
  l.event(1, EventType::STEP_DONE, w, 0, g, 1);
  l.event(2, EventType::STEP_DONE, w, 1, g, 1);
  l.run.data_movements.push_back({});
  l.event(3, EventType::DATA_MOVE, w, 0, g, 100, 0);
  l.event(4, EventType::DATA_DENIED, w, 0, g, 100, 7);  // names no record
  const auto index = l.index();
  EXPECT_EQ(index.steps(w), 2u);
  EXPECT_EQ(index.steps(-1), 0u);
  ASSERT_EQ(index.data().size(), 2u);
  EXPECT_EQ(index.data()[0].event, 3u);
  EXPECT_EQ(index.data()[0].movement, std::optional<size_t>(0));
  EXPECT_FALSE(index.data()[1].movement.has_value());
}

TEST(RunIndex, ChargebackBillsEveryStayOfARestartedReplica) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  for (auto& g : l.run.gpus) g.price_per_gpu_hour = 3600;  // one cost unit per second
  l.placed(0, w, 0, g0);
  l.failed(40, w, 0, g0, FailureReason::PREEMPTED);
  l.placed(45, w, 0, g1);  // open until the end of the run (100 s)
  const Analysis a = analyse(l.spec, l.run, l.index());
  ASSERT_EQ(a.placements.size(), 2u);
  EXPECT_EQ(a.placements[0].end_reason, "preempted");
  EXPECT_DOUBLE_EQ(a.tenants[0].cost, 40 + 55);
  EXPECT_DOUBLE_EQ(a.tenants[0].allocated_gpu_hours.at("exclusive"), 95.0 / 3600);
  EXPECT_EQ(a.workloads[static_cast<size_t>(w)].replicas_evicted, 1);
  EXPECT_EQ(a.workloads[static_cast<size_t>(w)].gpus, (std::vector<int>{g0, g1}));
}

// ---- the differences between the three rules the analyses used before the index (one test each)

// Leakage kept only the first end of a (workload, replica): a replica placed again ran to the end of the run.
TEST(RunIndexRule, TheSecondStayOfARestartedReplicaEndsAtItsOwnEndNotAtTheRunsEnd) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.failed(30, w, 0, g0, FailureReason::RECONFIGURED);
  l.placed(40, w, 0, g1);
  l.failed(70, w, 0, g1, FailureReason::FAULT);
  const auto index = l.index();
  EXPECT_DOUBLE_EQ(stay(index, w, 0, 1).end, 70);
  EXPECT_EQ(stay(index, w, 0, 1).reason, FailureReason::FAULT);
}

// ... so its memory, released at that end, can reach the next tenant placed on the device (placement order).
TEST(RunIndexRule, MemoryOfARestartedReplicasLaterStayIsHandedToTheNextTenant) {
  Log l;
  const int a = l.tenant("a"), b = l.tenant("b");
  const int wa = l.workload("svc", a, WorkloadKind::INFERENCE);
  const int wb = l.workload("other", b, WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, wa, 0, g0, 10 * GB);
  l.failed(30, wa, 0, g0, FailureReason::RECONFIGURED);
  l.placed(40, wa, 0, g1, 10 * GB);
  l.failed(60, wa, 0, g1, FailureReason::FAULT);
  l.placed(70, wb, 0, g1, 4 * GB);
  const auto handed = unscrubbed_memory(l.spec, l.run, l.index(), channel::Catalogue::defaults(), {});
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_EQ(handed[0].observer, b);
  EXPECT_EQ(handed[0].source, a);
  EXPECT_EQ(handed[0].gpu, g1);
  EXPECT_DOUBLE_EQ(handed[0].bytes, 4 * GB);  // min(released, reserved)
  EXPECT_FALSE(handed[0].closed);
}

// analyse() ended every open stay of (workload, replica) at a failure with gpu < 0; a batch workload's failures
// with gpu < 0 are its jobs' (replica = the job's id), so a lost or unfinished job #1 ended worker #1's stay.
TEST(RunIndexRule, ABatchJobsFailureDoesNotEndTheWorkerWithTheSameNumber) {
  Log l;
  const int w = l.workload("batch", l.tenant("a"), WorkloadKind::BATCH);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.placed(0, w, 1, g1);
  l.failed(20, w, 0, g0, FailureReason::FAULT);  // worker 0 killed ...
  l.failed(20, w, 1, -1, FailureReason::FAULT);  // ... and the job #1 it was running lost
  const auto index = l.index();
  EXPECT_TRUE(stay(index, w, 0, 0).ended());
  EXPECT_FALSE(stay(index, w, 1, 0).ended());
  EXPECT_EQ(placement_results(index)[1].end_reason, "");
}

// A failure with gpu < 0 of another kind of workload (a replica that could not be placed again) ends every
// open stay of the replica.
TEST(RunIndexRule, AFailureWithoutAGpuEndsTheReplicasOpenStays) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  l.placed(0, w, 0, l.gpu(0, 0));
  l.failed(20, w, 0, -1, FailureReason::NOT_PLACED);
  const auto index = l.index();
  EXPECT_EQ(stay(index, w, 0, 0).reason, FailureReason::NOT_PLACED);
  EXPECT_FALSE(stay(index, w, 0, 0).held_memory());
}

// The compliance rules' stays matched ends by time (the first end at or after the start): an eviction at the
// instant of the next placement, but logged before it, ended the new stay at its start. The index orders by seq.
TEST(RunIndexRule, AnEndLoggedBeforeAPlacementAtTheSameInstantBelongsToTheEarlierStay) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.failed(40, w, 0, g0, FailureReason::RECONFIGURED);
  l.placed(40, w, 0, g1);  // a reconfiguration without a reset time: placed again at once
  const auto index = l.index();
  EXPECT_DOUBLE_EQ(stay(index, w, 0, 0).end, 40);
  EXPECT_FALSE(stay(index, w, 0, 1).ended());
  EXPECT_DOUBLE_EQ(stay(index, w, 0, 1).end, 100);
}

// The leakage and compliance stays ended a replica's stay at a failure on any device; analyse() only at one on
// the stay's device (or of a multi-GPU workload). A single-GPU replica's failure elsewhere ends nothing.
TEST(RunIndexRule, AFailureOnAnotherDeviceDoesNotEndASingleGpuStay) {
  Log l;
  const int w = l.workload("svc", l.tenant("a"), WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, w, 0, g0);
  l.failed(20, w, 0, g1, FailureReason::OUT_OF_MEMORY);
  EXPECT_FALSE(stay(l.index(), w, 0, 0).ended());
}

// ---- plaintext host-to-device exposure counts every load the log shows

TEST(PlaintextPcie, ASwappingServiceExposesTheBytesOfEveryModelLoadNotOfOne) {
  Log l;
  const int a = l.tenant("a"), b = l.tenant("b");
  const int svc = l.workload("swapper", a, WorkloadKind::INFERENCE);
  auto& ws = l.spec.workloads[static_cast<size_t>(svc)];
  ws.model.parameters = 1e9;  // 2 GB of FP16 weights
  ws.swap_models = 4;
  const int other = l.workload("neighbour", b, WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1);
  l.placed(0, svc, 0, g0);
  l.placed(0, other, 0, g1);
  // Bring-up loads the first model (no event); then three swaps.
  for (int k = 0; k < 3; ++k) l.model_load(10 + k, 10.5 + k, svc, 0, g0, 2 * GB);
  const auto report = analyse_leakage(l.spec, l.run, channel::Catalogue::defaults());
  const DiscreteExposure* pcie = nullptr;
  for (const auto& d : report.discrete)
    if (d.kind == DiscreteKind::PLAINTEXT_PCIE && d.observer == b && d.source == a) pcie = &d;
  ASSERT_NE(pcie, nullptr);
  EXPECT_DOUBLE_EQ(pcie->bytes, 4 * 2 * GB);  // the initial load and the three swaps; before: 2 GB
  EXPECT_FALSE(pcie->closed);
  EXPECT_NE(pcie->basis.find("MODEL_LOAD"), std::string::npos);
  // The model asset's plaintextPcie exposure carries the same bytes.
  double asset_bytes = 0;
  for (const auto& m : report.models)
    if (m.workload == svc)
      for (const auto& x : m.exposures)
        if (x.channel == "plaintextPcie") asset_bytes += x.bytes;
  EXPECT_DOUBLE_EQ(asset_bytes, 8 * GB);
}

TEST(PlaintextPcie, AServiceWithoutSwapsExposesOneLoadPerStay) {
  Log l;
  const int a = l.tenant("a"), b = l.tenant("b");
  const int svc = l.workload("svc", a, WorkloadKind::INFERENCE);
  l.spec.workloads[static_cast<size_t>(svc)].model.parameters = 1e9;
  const int other = l.workload("neighbour", b, WorkloadKind::INFERENCE);
  const int g0 = l.gpu(0, 0), g1 = l.gpu(0, 1), g2 = l.gpu(0, 2);
  l.placed(0, svc, 0, g0);
  l.placed(0, other, 0, g1);
  l.failed(20, svc, 0, g0, FailureReason::PREEMPTED);
  l.placed(30, svc, 0, g2);  // placed again: its weights cross PCIe again
  const auto exposures = plaintext_pcie(l.spec, l.run, l.index());
  ASSERT_EQ(exposures.size(), 1u);  // b sees a's weights; b's service has none to show
  EXPECT_EQ(exposures[0].observer, b);
  EXPECT_DOUBLE_EQ(exposures[0].bytes, 2 * 2 * GB);
  EXPECT_EQ(exposures[0].basis,
            "model weights loaded per placed GPU (parameters x dtype bytes); observer placed on "
            "the same node");
}

}  // namespace
}  // namespace gtw
