// The folded event log (the default: a time-slice switch and the slice it opens are one GPU_SLICE event) and the
// detailed one (`gputwin run --trace detailed`: a CONTEXT_SWITCH and a GPU_BUSY each) describe the same run, so
// every output computed from them is the same; only the count of logged events differs, and the folded log is
// shorter wherever tenants contend for a time-sliced GPU. The scenarios cover the round-robin arbiter, the vGPU
// equal-share arbiter (slots whose vGPU has no work), an out-of-memory failure, serving and an attack lab.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

const std::string SRC = GTW_SOURCE_DIR;

ProcessResult run_scenario(const std::string& scenario, const std::string& out, const std::string& trace) {
  ProcessOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "0"}};
  return run_process({GTW_BINARY, "run", scenario, "-o", out, "--progress", "none", "--format",
                      "json,md,csv,trace,metrics", "--trace", trace},
                     options);
}

class TraceDetail : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceDetail, FoldedAndDetailedLogsGiveTheSameOutputs) {
  TempDir dir;
  const std::string scenario = SRC + "/scenarios/" + GetParam();
  const auto folded = run_scenario(scenario, dir.file("folded"), "folded");
  const auto detailed = run_scenario(scenario, dir.file("detailed"), "detailed");
  ASSERT_EQ(folded.exit_code, detailed.exit_code) << folded.err << detailed.err;
  auto a = nlohmann::json::parse(read_text(dir.file("folded") + "/report.json"));
  auto b = nlohmann::json::parse(read_text(dir.file("detailed") + "/report.json"));
  const auto folded_events = a["summary"]["events"].get<uint64_t>();
  const auto detailed_events = b["summary"]["events"].get<uint64_t>();
  const auto switches = b["summary"]["context_switches"].get<uint64_t>();
  EXPECT_EQ(a["summary"]["context_switches"], switches);
  // Each switch that opened a slice is in that slice's event: the folded log is the detailed one less those
  // switches. The others stay apart: a vGPU slot whose vGPU had no work, an empty slice, one the run ended.
  EXPECT_LE(folded_events, detailed_events);
  EXPECT_GE(folded_events + switches, detailed_events);
  if (switches > 100) {
    EXPECT_LT(folded_events + switches / 4, detailed_events) << "contended time slicing: most switches open a slice";
  }
  for (auto* report : {&a, &b}) {
    report->erase("provenance");
    (*report)["summary"].erase("events");
  }
  EXPECT_EQ(a.dump(), b.dump());
  for (const std::string file :
       {"gpus.csv", "slos.csv", "slo_windows.csv", "tenants.csv", "trace.json", "metrics.prom"})
    EXPECT_EQ(read_text(dir.file("folded") + "/" + file), read_text(dir.file("detailed") + "/" + file)) << file;
}

INSTANTIATE_TEST_SUITE_P(Shipped, TraceDetail,
                         ::testing::Values("ci/time-slicing.yaml", "ci/vgpu.yaml", "ci/oom-time-slicing.yaml",
                                           "examples/serving/time-slicing.yaml", "labs/02-contention.yaml",
                                           "attacks/remanence-scrape.yaml", "examples/k8s/nvidia-configs.yaml"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return test_param_name(param.param);
                         });

}  // namespace
}  // namespace gtw::test
