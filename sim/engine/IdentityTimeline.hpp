#pragma once
// Identity at run time (docs/models/identity.md, "Invocations at run time" and "Secrets over time"): the
// hops of spec.identity.invocations, the secrets' scheduled and emergency rotations and the injected
// leaks, replayed in time order by one engine actor.
#include <vector>

#include "SimContext.hpp"

namespace gtw {

struct IdentityHappening {
  enum class Kind { ROTATION = 0, LEAK = 1, STEP = 2 };  // the order of ties at one instant
  double time = 0;
  Kind kind = Kind::STEP;
  int index = -1;          // step (RunResult::invocation_steps), secret (rotation) or fault (leak)
  bool emergency = false;  // a rotation after a known leak
};

/// Everything the actor replays up to `until`, sorted by (time, kind, index). SimGrid-free.
std::vector<IdentityHappening> identity_happenings(const ScenarioSpec& spec, const std::vector<InvocationStep>& steps,
                                                   double until);

/// The actor's body: sleeps to each happening and emits its events (AGENT_CALL and, for a data hop, its
/// DATA_MOVE / DATA_DENIED; SECRET_ROTATED; SECRET_LEAKED).
void replay_identity(SimContext& ctx, const std::vector<IdentityHappening>& plan,
                     const std::vector<InvocationStep>& steps);

}  // namespace gtw
