#pragma once
// Runs a compliance fixture (tests/fixtures/compliance) in-process: load, simulate, analyse the leakage
// surface and evaluate compliance. One SimGrid engine per process: one run per test.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ComplianceEvaluation.hpp"
#include "Engine.hpp"
#include "HardwareProfile.hpp"
#include "Leakage.hpp"
#include "Setup.hpp"

namespace gtw::compliance_test {

struct Outcome {
  PreparedScenario prepared;
  RunResult run;
  ComplianceReport report;

  const policy::ComplianceFinding& finding(const std::string& policy) const {
    for (const auto& f : report.findings)
      if (f.policy == policy) return f;
    throw std::runtime_error("no finding " + policy);
  }
  int workload(const std::string& name) const {
    for (size_t i = 0; i < prepared.spec.workloads.size(); ++i)
      if (prepared.spec.workloads[i].name == name) return static_cast<int>(i);
    return -1;
  }
  std::vector<Event> events(EventType type, int workload = -1) const {
    std::vector<Event> out;
    for (const auto& e : run.log.events())
      if (e.type == type && (workload < 0 || e.workload == workload)) out.push_back(e);
    return out;
  }
  Event event(int64_t seq) const { return run.log.events().at(static_cast<size_t>(seq)); }
};

inline Outcome run_fixture(const std::string& name, const std::vector<std::string>& sets = {}) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(*parse_override(s));
  Diagnostics diags;
  Outcome o;
  o.prepared = prepare_scenario(std::string(GTW_SOURCE_DIR) + "/tests/fixtures/compliance/" + name, overrides, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  o.run = run_simulation(o.prepared.spec, o.prepared.profiles, RunOptions{});
  const auto catalogue = channel_catalogue(o.prepared.spec, profile_search_path(), diags);
  const LeakageReport leakage = analyse_leakage(o.prepared.spec, o.run, catalogue, isolation_options(o.prepared.spec));
  o.report = evaluate_compliance(o.prepared.spec, o.run, &leakage);
  return o;
}

}  // namespace gtw::compliance_test
