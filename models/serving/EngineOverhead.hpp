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

namespace YAML {
class Node;
}

namespace gtw::serving {

struct EngineOverhead {
  double step_overhead_s = 0;  // added to every engine step
  double gpu_share = 1;        // or: a step takes its GPU time / gpu_share
  std::string same_as;         // a default: another family's value (copied into the two above)
  std::string source;          // fitted / default / published input, as the file says
  SourceLoc loc;               // the family's entry
};

/// $GPUTWIN_SERVING_TARGETS, else the source tree's calibration/serving/targets.yaml.
std::string default_engine_overhead_path();

/// The families of `hostOverhead:` (sameAs resolved); located errors for a malformed section.
std::optional<std::map<std::string, EngineOverhead>> load_engine_overheads(const std::string& path, Diagnostics& diags);

/// The same from the `hostOverhead:` node of an already parsed file (`file` names it in errors): the one
/// reader of the section, for the cluster and for `gputwin serving --validate`.
std::optional<std::map<std::string, EngineOverhead>> read_engine_overheads(const YAML::Node& section,
                                                                           const std::string& file, Diagnostics& diags);

}  // namespace gtw::serving
