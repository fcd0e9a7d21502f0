#pragma once
// How the published ATC'23 simulator (hkust-adsl/kubernetes-scheduler-simulator) builds a run from its tune
// seed, re-implemented from its semantics (docs/validation/openb.md, "Arrivals and ties of a published run"):
// one stream of Go's math/rand seeded with the seed gives, in this order, one discarded Int, the shuffle of
// the name-sorted pods, the copies (or removals) that bring the GPU demand to ratio x capacity, the draws of
// the scheduler's start-up, and the permutation whose values prefix the node names (the smallest name wins a
// tie of scores).
#include <cstdint>
#include <string>
#include <vector>

#include "GoRand.hpp"
#include "OpenbCsv.hpp"

namespace gtw::trace {

struct TunedArrivals {
  std::vector<int> base;           // per arrival: index into the pod list of the pod it is (or copies)
  std::vector<std::string> names;  // per arrival: the pod's name, `<pod>-tuned-<i>` for the i-th copy
};

/// The arrival order of a published run: the pods shuffled, then copies of uniformly drawn pods (name order)
/// appended while the GPU demand stays within ratio x `gpu_capacity_milli`, or, when the pods already ask for
/// more, uniformly drawn pods removed until it does. ratio <= 0: the shuffled pods only. Advances `rng`.
/// Throws InputError when the pods ask for no GPU (nothing could stop the copies) or when every pod is removed.
TunedArrivals tune_arrivals(const std::vector<OpenbPod>& pods, int64_t gpu_capacity_milli, double ratio, GoRand& rng);

/// The scheduler's start-up draws between the tuning and the node renaming: one Float64 per informer that
/// opens a watch (ten; the count the published curves confirm, docs/validation/openb.md).
inline constexpr int SCHEDULER_STARTUP_DRAWS = 10;

/// Per node (in the list's order), the number the published run prefixes to its name: a permutation drawn
/// over the nodes sorted by name, after `startup_draws` Float64 draws. Advances `rng`.
std::vector<int> published_node_ranks(const std::vector<OpenbNode>& nodes, GoRand& rng,
                                      int startup_draws = SCHEDULER_STARTUP_DRAWS);

/// The arrivals as the published simulator's CSV (seq,pod,base_pod).
std::string arrivals_csv(const TunedArrivals& arrivals, const std::vector<OpenbPod>& pods);

}  // namespace gtw::trace
