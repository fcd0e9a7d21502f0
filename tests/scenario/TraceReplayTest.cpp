// Replayed request traces end to end: every request of the replayed window arrives, with the trace's
// own tokens deciding the cost of its batch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run_replay(const TempDir& dir, const std::string& name, std::vector<std::string> sets) {
  const std::string out = dir.file(name);
  sets.insert(sets.begin(), "spec.duration=2m");
  const auto r = run_process(run_argv(
      GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/examples/azure-llm-replay.yaml", out, "json", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

const json& workload(const json& report, const std::string& name) {
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"])
      if (w["name"] == name) return w;
  throw std::runtime_error("no workload " + name);
}

TEST(TraceReplay, EveryRequestOfTheReplayedWindowArrives) {
  TempDir dir;
  const json report = run_replay(dir, "replay", {});
  // 2 simulated minutes at speedup 3 replay the trace's first 360 s: 1,718 conversation and 911 code
  // requests (counted from the CSV files).
  EXPECT_EQ(workload(report, "conv-svc")["requests"]["arrived"], 1718);
  EXPECT_EQ(workload(report, "code-svc")["requests"]["arrived"], 911);
}

TEST(TraceReplay, TheTracesTokensSetTheCostNotTheWorkloadDefaults) {
  TempDir dir;
  // The workload's promptTokens/outputTokens apply to generated arrivals only: under a trace, changing
  // them changes nothing.
  const json base = run_replay(dir, "base", {});
  const json other = run_replay(dir, "other", {"spec.workloads[conv-svc].request.outputTokens=4000"});
  EXPECT_EQ(workload(base, "conv-svc")["latency"], workload(other, "conv-svc")["latency"]);
  // The code service's prompts (2,048 tokens on average) make its prefill longer than a same-rate
  // Poisson stream with 16-token prompts.
  const json poisson = run_replay(
      dir, "poisson",
      {"spec.workloads[code-svc].arrival.process=poisson", "spec.workloads[code-svc].arrival.rate=7.6/s",
       "spec.workloads[code-svc].request.promptTokens=16", "spec.workloads[code-svc].request.outputTokens=28"});
  EXPECT_GT(workload(base, "code-svc")["latency"]["p50_s"].get<double>(),
            2 * workload(poisson, "code-svc")["latency"]["p50_s"].get<double>());
}

}  // namespace
}  // namespace gtw::test
