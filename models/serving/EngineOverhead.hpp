#pragma once
// Host time per engine step of each serving engine family (scheduling, sampling, input preparation,
// kernel launches that the GPU model does not see). One source: the `hostOverhead:` section of
// calibration/serving/targets.yaml, where `gputwin serving --validate --fit` fits each family on its
// rule-chosen rows (docs/validation/serving.md). The cluster simulation reads the same values for a
// workload's `batching.engine`.
#include <map>
#include <optional>
#include <string>

#include "Diagnostics.hpp"

namespace gtw::serving {

struct EngineOverhead {
  double step_overhead_s = 0;  // added to every engine step
  double gpu_share = 1;        // or: a step takes its GPU time / gpu_share
  std::string source;          // fitted / default / published input, as the file says
};

/// $GPUTWIN_SERVING_TARGETS, else the source tree's calibration/serving/targets.yaml.
std::string default_engine_overhead_path();

/// The families of `hostOverhead:` (sameAs resolved); located errors for a malformed section.
std::optional<std::map<std::string, EngineOverhead>> load_engine_overheads(const std::string& path, Diagnostics& diags);

}  // namespace gtw::serving
