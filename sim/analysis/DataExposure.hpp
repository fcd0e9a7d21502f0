#pragma once
// Discrete exposures from the data events (docs/models/storage.md): bytes of a tenant's data that
// crossed a network link in plaintext where another tenant's flows also run in the same segment, and
// bytes it stored unencrypted at rest on a store another tenant also reads or writes. Reads only the
// RunResult's data movements and the spec.
#include <string>
#include <vector>

#include "RunResult.hpp"
#include "Scenario.hpp"

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

/// One discrete exposure of the leakage surface (sim/analysis/Leakage) from the data events, per
/// (observer, source, data item, medium): the bytes of the source's data the observer could read once,
/// open or closed with what closes it. Network: plaintext bytes that crossed a link the observer's own
/// flows also cross (closed by encryption in transit, or when the observer is outside the source's
/// segment). Storage: the bytes of a data item at rest on a shared store the observer may read
/// (closed by encryption at rest or the store's ACL). docs/models/leakage.md, "Discrete exposures".
struct DataLeak {
  int observer = -1;
  int source = -1;
  bool storage = false;  // false: network
  int data = -1;         // the data item (-1: untagged request bytes)
  int workload = -1;     // the workload that moved it (first one seen)
  double bytes = 0;
  bool closed = false;
  std::string closed_reason;
  std::vector<std::string> paths;  // shared links (network) or the store (storage), sorted
};

/// Sorted by (observer, source, data, medium).
std::vector<DataLeak> data_leaks(const ScenarioSpec& spec, const RunResult& run);

}  // namespace gtw
