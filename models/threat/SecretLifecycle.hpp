#pragma once
// Secrets over time and the incidents of a run (docs/models/identity.md, "Secrets over time";
// docs/models/compliance.md, "Incidents"): how long each injected secret leak stays usable (until the
// next rotation, the leased credential's expiry or the emergency rotation after detection), and the run's
// incidents (secret leaks, another tenant's bytes recovered from memory, confused-deputy reads) with when
// each became known and was notified. Read from the event log after the run; no SimGrid.
#include <cstdint>
#include <string>
#include <vector>

#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw::identity {

/// When a leak of `fault` becomes known (< 0: never): its own detectedAfter, else
/// spec.incidentResponse.detectAfter.
double leak_known_at(const ScenarioSpec& spec, const FaultSpec& fault);

struct SecretLeakWindow {
  int fault = -1;                 // index into spec.faults
  int secret = -1;                // index into spec.identity.secrets
  int owner = -1;                 // the secret's tenant
  int to = -1;                    // the receiving tenant (-1: an outsider)
  int64_t event = -1;             // the SECRET_LEAKED event's seq
  double at = 0;                  // the leak
  double known_at = -1;           // < 0: never known
  double credential_issued = -1;  // leased secret: the read whose credential leaked (< 0: none, or no lease)
  double end = -1;  // when the leaked value stops working as the spec plans it, possibly after the run (< 0: never)
  std::string ended_by;               // rotation | emergencyRotation | leaseExpiry | noCredential | open
  double exposure_s = 0;              // end - at; never ending: the run's end - at
  std::vector<std::string> protects;  // what the secret opens (its blast radius)
  size_t reads_before = 0;            // reads of the secret up to the leak (key releases, agent uses)
};

/// One window per secret leak that happened in the run (a SECRET_LEAKED event), in event order.
std::vector<SecretLeakWindow> secret_leak_windows(const ScenarioSpec& spec, const RunResult& run);

struct Incident {
  std::string kind;  // secretLeak | memoryRecovered | confusedDeputy
  double time = 0;
  double known_at = -1;     // < 0: never known
  double notified_at = -1;  // < 0: never notified (spec.incidentResponse.notifyAfter after known_at)
  int affected = -1;        // the tenant whose data or secret it is
  int observer = -1;        // the tenant who got it (-1: an outsider / unknown)
  int64_t event = -1;       // the first event of it
  std::string resource;     // secret, data item or workload
  std::string detail;
};

/// The run's incidents in time order: each secret leak; per (attacker workload, victim workload) the
/// first ATTACK_RECOVERED with bytes; per (invocation, principal, target) the first allowed confused-deputy hop.
std::vector<Incident> run_incidents(const ScenarioSpec& spec, const RunResult& run);

}  // namespace gtw::identity
