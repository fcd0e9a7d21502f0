#pragma once
// What every model shares during one run: the spec, the event log, run-wide counters and the end
// of the run. Owned by the engine; models only append events and bump counters.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "sim/core/EventLog.hpp"
#include "sim/core/RunResult.hpp"
#include "sim/scenario/Scenario.hpp"

namespace gtw {

namespace fabric {
class Platform;
}

struct SimContext {
  const ScenarioSpec& spec;
  EventLog& log;
  RunCounters counters;
  double arrivals_end = 0;                              // arrivals stop here (spec.duration)
  double hard_end = 0;                                  // the simulation stops here (duration + drain)
  bool stopping = false;                                // set once hard_end is reached
  const fabric::Platform* platform = nullptr;           // network and storage (models/fabric)
  std::vector<DataMovement>* data_movements = nullptr;  // details of data events (models/storage)

  // The engine's observer of events as they happen (quota release on job end); what it emits is observed too.
  std::function<void(const Event&)> observer = nullptr;
  // Enforcing compliance rules (sim/engine): before a data access the data path asks this guard; a
  // refusal is (index into spec.compliance.rules, the rule instance's name). Empty: nothing enforced.
  std::function<std::optional<std::pair<int, std::string>>(const DataMovement&)> access_guard = nullptr;

  void emit(double time, EventType type, int tenant, int workload, int replica, int gpu, double value = 0,
            double aux = 0) {
    const Event e{time, 0, type, tenant, workload, replica, gpu, value, aux};
    log.append(e);
    if (observer) observer(e);
  }
};

}  // namespace gtw
