#pragma once
// What every model shares during one run: the spec, the event log, run-wide counters and the end
// of the run. Owned by the engine; models only append events and bump counters.
#include <xbt/log.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "EventLog.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

// Every event as it is appended (`gputwin run --log gtw_events.thres:verbose`); defined in GpuDevice.cpp.
XBT_LOG_EXTERNAL_CATEGORY(gtw_events);

namespace gtw {

namespace fabric {
class Platform;
}

/// Who an event is about: a replica of a workload of a tenant, on a GPU (-1: not applicable).
struct Subject {
  int tenant = -1;
  int workload = -1;
  int replica = -1;
  int gpu = -1;
};

struct SimContext {
  const ScenarioSpec& spec;
  EventLog& log;
  RunCounters counters;
  double arrivals_end = 0;  // arrivals stop here (spec.duration)
  double hard_end = 0;      // the simulation stops here (duration + drain)
  bool stopping = false;    // set once hard_end is reached
  // Time-slice switches folded into the slice that follows them (GPU_SLICE); false: `--trace detailed`, a
  // CONTEXT_SWITCH event per switch and a GPU_BUSY per slice.
  bool fold_slices = true;
  const fabric::Platform* platform = nullptr;           // network and storage (models/fabric)
  std::vector<DataMovement>* data_movements = nullptr;  // details of data events (models/storage)
  std::vector<ServingReplicaStats>* serving = nullptr;  // continuous-batching replicas' lives (models/workload)

  // The engine's observer of events as they happen (quota release on job end); what it emits is observed too.
  std::function<void(const Event&)> observer = nullptr;
  // Enforcing compliance rules (sim/engine): before a data access the data path asks this guard; a
  // refusal is (index into spec.compliance.rules, the rule instance's name). Empty: nothing enforced.
  std::function<std::optional<std::pair<int, std::string>>(const DataMovement&)> access_guard = nullptr;

  // Appends an event, named field by field: ctx.emit({.time = now, .type = EventType::PLACED, .tenant = t, ...});
  // fields left out keep Event's defaults (-1 for the subject and the GPU, 0 for value and aux).
  void emit(const Event& e) {
    XBT_CVERB(gtw_events, "%.9f %s tenant %d workload %d replica %d gpu %d value %.9g aux %.9g", e.time,
              event_type_name(e.type), e.tenant, e.workload, e.replica, e.gpu, e.value, e.aux);
    log.append(e);
    if (observer) observer(e);
  }
  // The same with the subject given apart: ctx.emit(who(replica, gpu), {.time = now, .type = ..., .value = v}).
  void emit(const Subject& who, Event e) {
    e.tenant = who.tenant;
    e.workload = who.workload;
    e.replica = who.replica;
    e.gpu = who.gpu;
    emit(e);
  }
};

}  // namespace gtw
