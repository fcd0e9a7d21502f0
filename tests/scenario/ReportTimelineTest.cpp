// report.json's timeline (docs/formats/report-json.md): utilisation by tenant per step, the step chosen for the
// run length. Checked against the report's own per-GPU busy shares, which come from the same busy intervals
// by another path (utilisation_by_tenant over the whole run).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;

json run_json(const std::string& scenario, const std::vector<std::string>& sets = {}) {
  TempDir dir;
  const auto r = run_process(run_argv(GTW_BINARY, scenario, dir.file("out"), "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file("out") + "/report.json"));
}

// Busy seconds of each tenant over the run: from the timeline (share x step, summed) and from the GPUs.
void expect_timeline_matches_gpus(const json& report) {
  const json& t = report.at("timeline");
  const double step = t.at("step_s").get<double>();
  const double duration = report["scenario"]["duration_s"].get<double>();
  std::map<std::string, double> from_gpus, from_timeline;
  for (const auto& g : report["gpus"])
    for (const auto& [tenant, ratio] : g["utilisation_by_tenant"].items())
      from_gpus[tenant] += ratio.get<double>() * duration;
  for (const auto& [tenant, series] : t["busy_gpus_by_tenant"].items()) {
    ASSERT_EQ(series.size(), static_cast<size_t>(std::ceil(duration / step - 1e-9))) << tenant;
    for (size_t k = 0; k < series.size(); ++k)
      from_timeline[tenant] += series[k].get<double>() * (std::min((k + 1) * step, duration) - k * step);
  }
  ASSERT_EQ(from_gpus.size(), from_timeline.size());
  for (const auto& [tenant, seconds] : from_gpus)
    EXPECT_NEAR(from_timeline[tenant], seconds, 1e-6 * std::max(1.0, seconds)) << tenant;
  // Per device (a small run has them): the devices' series add up to the cluster's.
  ASSERT_TRUE(t["gpus"].is_array());
  std::map<std::string, double> from_devices;
  for (const auto& d : t["gpus"])
    for (const auto& [tenant, series] : d["busy_by_tenant"].items())
      for (const auto& v : series) from_devices[tenant] += v.get<double>();
  for (const auto& [tenant, series] : t["busy_gpus_by_tenant"].items()) {
    double sum = 0;
    for (const auto& v : series) sum += v.get<double>();
    EXPECT_NEAR(from_devices[tenant], sum, 1e-9 * std::max(1.0, sum)) << tenant;
  }
}

TEST(ReportTimeline, StepFollowsTheRunLengthAndAddsUpToTheGpusBusyTime) {
  // 60 s: 1 s steps (not one 60 s SLO window); 10 minutes: 10 s steps; an odd length rounds up on 1-2-5.
  const json minute = run_json(SRC + "/scenarios/examples/isolation/mps.yaml", {"spec.duration=60s"});
  EXPECT_DOUBLE_EQ(minute["timeline"]["step_s"].get<double>(), 1);
  expect_timeline_matches_gpus(minute);
  const json ten = run_json(SRC + "/scenarios/examples/isolation/mig.yaml", {"spec.duration=10m"});
  EXPECT_DOUBLE_EQ(ten["timeline"]["step_s"].get<double>(), 10);
  expect_timeline_matches_gpus(ten);
  const json odd = run_json(SRC + "/scenarios/labs/03-model-ip.yaml", {"spec.duration=7m"});
  EXPECT_DOUBLE_EQ(odd["timeline"]["step_s"].get<double>(), 10) << "7 min / 60 = 7 s, rounded up to 10 s";
  expect_timeline_matches_gpus(odd);
}

}  // namespace
}  // namespace gtw::test
