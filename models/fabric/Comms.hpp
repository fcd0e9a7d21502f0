#pragma once
// Waiting for a batch of comms started together (a ring all-reduce, shards loaded at once).
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include <vector>

namespace gtw::fabric {

/// Waits for every comm of the batch. When the run ends while they are in flight, the engine kills the
/// waiting actor (Actor::kill_all), which unwinds through here: the comms still running are cancelled
/// first, or SimGrid reports each one as "freed before its completion" with a backtrace on stderr.
inline void wait_all(std::vector<simgrid::s4u::CommPtr>& comms) {
  try {
    for (auto& c : comms) c->wait();
  } catch (const simgrid::ForcefulKillException&) {
    for (auto& c : comms)
      if (c->get_state() == simgrid::s4u::Activity::State::STARTED) c->cancel();
    throw;
  }
}

}  // namespace gtw::fabric
