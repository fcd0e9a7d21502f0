// Quotas end to end (scenarios/examples/quota-reclaim.yaml): a tenant over its nominal quota
// borrows only up to its limit and is preempted when the lender takes its share back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

json run_quota(const TempDir& dir, const std::string& name, const std::vector<std::string>& sets = {}) {
  const std::string out = dir.file(name);
  const auto r = run_process(run_argv(
      GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/examples/quota-reclaim.yaml", out, "json,md", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

const json& quota_of(const json& report, const std::string& tenant) {
  for (const auto& q : report["quotas"])
    if (q["tenant"] == tenant) return q;
  throw std::runtime_error("no quota row for " + tenant);
}

double finetune_end(const json& report) {
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"])
      if (w["name"] == "finetune") return 20.0 + w["mean_completion_s"].get<double>();
  return -1;
}

TEST(Quota, BorrowerIsPreemptedWhenTheLenderReclaimsAndReadmittedWhenItReturns) {
  TempDir dir;
  const json report = run_quota(dir, "base");
  const json& serving = quota_of(report, "serving");
  EXPECT_EQ(serving["peak_gpus"], 6) << "nominal 4 + borrowing limit 2, never more";
  EXPECT_EQ(serving["preempted"], 1);
  EXPECT_EQ(serving["still_queued"], json::array({"extra"})) << "extra would exceed the borrowing limit";
  EXPECT_EQ(quota_of(report, "research")["reclaimed"], 1);
  EXPECT_EQ(quota_of(report, "research")["max_wait_s"], 0.0) << "within its nominal quota: admitted at once";
  const double done = finetune_end(report);
  ASSERT_GT(done, 20.0);
  int preempted = 0, readmitted = 0;
  for (const auto& p : report["placements"]) {
    if (p["workload"] == "chat") {
      EXPECT_TRUE(p["end_s"].is_null()) << "chat is within the nominal quota";
    }
    if (p["workload"] != "burst") continue;
    if (p["end_reason"] == "preempted") {
      EXPECT_DOUBLE_EQ(p["end_s"].get<double>(), 20.0) << "evicted when the fine-tune is submitted";
      ++preempted;
    } else {
      EXPECT_NEAR(p["start_s"].get<double>(), done, 1e-9) << "back when the fine-tune returns its GPUs";
      ++readmitted;
    }
  }
  EXPECT_EQ(preempted, 2);
  EXPECT_EQ(readmitted, 2);
  // The borrowed time: burst's 2 GPUs from 5 s to 20 s and from the fine-tune's end to the end of the run.
  EXPECT_GT(serving["borrowed_gpu_seconds"].get<double>(), 2 * 15.0);
}

TEST(Quota, AvailabilityDropsInExactlyTheWindowsTheBorrowerWasPreempted) {
  TempDir dir;
  const json report = run_quota(dir, "availability");
  const double done = finetune_end(report);
  const auto& slo = report["tenants"][0]["slos"][0];
  ASSERT_EQ(slo["kind"], "availability");
  EXPECT_FALSE(slo["met"].get<bool>());
  // burst's requests are dropped from its preemption (20 s) until it is back (the fine-tune's end): every
  // window in between misses; the window before loses only the requests in flight at 20 s; the others
  // serve every request.
  int violated = 0;
  for (const auto& w : slo["windows"]) {
    const double start = w["start_s"].get<double>(), value = w["value"].get<double>();
    if (start >= 20.0 && start < done) {
      EXPECT_TRUE(w["violated"].get<bool>()) << "window at " << start << " s";
      EXPECT_LT(value, 0.9) << "a third of the tenant's traffic is burst's";
      ++violated;
    } else if (start + 10.0 <= 20.0 && start + 10.0 > 20.0 - 5.0) {
      EXPECT_LT(value, 1.0) << "requests in flight at the preemption are lost";
    } else {
      EXPECT_FALSE(w["violated"].get<bool>()) << "window at " << start << " s";
      EXPECT_DOUBLE_EQ(value, 1.0) << "window at " << start << " s";
    }
  }
  EXPECT_EQ(violated, 3) << "windows at 20, 30 and 40 s";
}

TEST(Quota, ChargebackBillsTheGpusEachTenantHeldAtItsPoolsPrice) {
  TempDir dir;
  const json report = run_quota(dir, "priced", {"spec.cluster.nodePools[hgx].pricePerGpuHour=2.5"});
  const double end = 90.0 + 30.0;  // the run's end, drain included (placements last until it)
  const double done = finetune_end(report);
  // serving: chat's 4 GPUs all along, burst's 2 from 5 s to 20 s and from the fine-tune's end.
  const double serving_hours = (4 * end + 2 * 15.0 + 2 * (end - done)) / 3600.0;
  const double research_hours = 4 * (done - 20.0) / 3600.0;
  const auto& tenants = report["tenants"];
  EXPECT_NEAR(tenants[0]["chargeback"]["allocated_gpu_hours"]["exclusive"].get<double>(), serving_hours, 1e-9);
  EXPECT_NEAR(tenants[1]["chargeback"]["allocated_gpu_hours"]["exclusive"].get<double>(), research_hours, 1e-9);
  EXPECT_NEAR(tenants[0]["chargeback"]["cost"].get<double>(), 2.5 * serving_hours, 1e-9);
  const auto& cost = report["cost"];
  EXPECT_NEAR(cost["total"].get<double>(), 2.5 * 8 * end / 3600.0, 1e-9) << "8 GPUs provisioned";
  EXPECT_NEAR(cost["idle"].get<double>(), cost["total"].get<double>() - 2.5 * (serving_hours + research_hours), 1e-9);
}

TEST(Quota, AHigherBorrowingLimitAdmitsMoreAndTheReclaimPreemptsNewestFirst) {
  TempDir dir;
  const json report = run_quota(dir, "limit", {"spec.tenants[serving].quota.borrowingLimit=4"});
  const json& serving = quota_of(report, "serving");
  EXPECT_EQ(serving["peak_gpus"], 8);
  EXPECT_TRUE(serving["still_queued"].empty());
  // The fine-tune needs 4 of the 4 borrowed GPUs back: both borrowers go (extra, the newest, first).
  EXPECT_EQ(serving["preempted"], 2);
  EXPECT_EQ(quota_of(report, "research")["reclaimed"], 2);
}

}  // namespace
}  // namespace gtw::test
