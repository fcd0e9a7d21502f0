#pragma once
// Principals' sessions over the run (docs/models/identity.md, "Sessions"): the calls a principal makes
// through spec.identity.invocations form sessions; a session ends when the principal is revoked, when it
// stays idle for spec.identity.sessionIdleTimeout, or at the end of the run. Read from the invocation
// hops after the run; no SimGrid.
#include <cstdint>
#include <string>
#include <vector>

#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw::identity {

struct SessionCall {
  double time = 0;
  int64_t event = -1;  // its AGENT_CALL seq
};

struct PrincipalSession {
  std::string principal;
  int tenant = -1;                 // the principal's tenant
  std::vector<SessionCall> calls;  // allowed calls into its entry services, in time order (at least one)
  double end = 0;                  // when it ended (the end of the run at the latest)
  std::string ended_by;            // idleTimeout | revoked | runEnd
  double start() const { return calls.front().time; }
  /// The first idle time (between calls, or from the last call to the end) longer than `limit`: the index of
  /// the call it follows, or -1 when there is none.
  int first_idle_over(double limit) const;
  double longest_idle() const;
};

/// Every principal's sessions, by principal (spec order), then start time.
std::vector<PrincipalSession> principal_sessions(const ScenarioSpec& spec, const RunResult& run);

}  // namespace gtw::identity
