#pragma once
// Discrete exposures from the data events (docs/models/storage.md): bytes of a tenant's data that
// crossed a network link in plaintext where another tenant's flows also run in the same segment, and
// bytes it stored unencrypted at rest on a store another tenant also reads or writes. Reads only the
// RunResult's data movements and the spec.
#include <string>
#include <vector>

#include "sim/core/RunResult.hpp"
#include "sim/scenario/Scenario.hpp"

namespace gtw {

struct DataExposure {
  int observer = -1;  // tenant who could read it
  int source = -1;    // tenant whose data it is
  double plaintext_link_bytes = 0;
  double plaintext_storage_bytes = 0;
  std::vector<std::string> links;   // shared links carrying the source's plaintext (sorted)
  std::vector<std::string> stores;  // shared stores holding it unencrypted (sorted)
};

/// Exposures per ordered (observer, source) pair with any bytes, sorted by (observer, source).
std::vector<DataExposure> data_exposures(const ScenarioSpec& spec, const RunResult& run);

}  // namespace gtw
