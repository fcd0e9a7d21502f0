#pragma once
// Named stages of the analyses over the run index (RunIndex.hpp), declared for the tests that check them on
// their own. Internal to sim/analysis: the public entry points are analyse (Analysis.hpp), analyse_leakage and
// analyse_attacks (Leakage.hpp).
#include <vector>

#include "Analysis.hpp"
#include "ChannelCatalogue.hpp"
#include "Leakage.hpp"
#include "RunIndex.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

/// report.json `placements`: one row per stay, its end and why (end < 0: still there at the end of the run).
std::vector<PlacementResult> placement_results(const RunIndex& index);
/// Chargeback and the design's cost: each stay at its slot's share of a physical GPU, open stays until `end`.
void chargeback(const RunResult& run, double end, Analysis& a);

/// The stays that hold device memory of a tenant (tenant >= 0), sorted by (gpu, start, workload, replica).
std::vector<const Stay*> memory_stays(const RunIndex& index);
/// Unscrubbed memory handed across tenants: observed from the allocator's events, derived from placement order
/// where the allocator is not logged or across a MIG re-partitioning; one exposure per (observer, source,
/// workload, device).
std::vector<DiscreteExposure> unscrubbed_memory(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index,
                                                const channel::Catalogue& catalogue, const IsolationOptions& options);
/// Plaintext host-to-device bytes on a node's PCIe complex another tenant shares: per stay, an inference
/// replica's weights at bring-up plus every MODEL_LOAD of the stay, a training job's data per step x steps; one
/// exposure per (observer, source, workload, node), closed on a confidential GPU.
std::vector<DiscreteExposure> plaintext_pcie(const ScenarioSpec& spec, const RunResult& run, const RunIndex& index);

}  // namespace gtw
