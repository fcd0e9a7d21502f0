// Quotas end to end (scenarios/examples/quota-reclaim.yaml): a tenant over its nominal quota
// borrows only up to its limit and is preempted when the lender takes its share back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

// Runs a shipped example into dir/name and returns its report.json.
json run_example(const std::string& example, const TempDir& dir, const std::string& name,
                 const std::vector<std::string>& sets) {
  const std::string out = dir.file(name);
  const auto r = run_process(
      run_argv(GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/scenarios/examples/" + example, out, "json,md", sets));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out + "/report.json"));
}

json run_quota(const TempDir& dir, const std::string& name, const std::vector<std::string>& sets = {}) {
  return run_example("quota-reclaim.yaml", dir, name, sets);
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

// scenarios/examples/quota-priorities.yaml: a higher-priority job preempts its own tenant's lower-priority one
// (withinClusterQueue: LowerPriority, priorities from Kueue's own PriorityClass example), and MIG instances are
// a quota of their own, borrowed and reclaimed apart from whole GPUs.
json run_priorities(const TempDir& dir, const std::string& name, const std::vector<std::string>& sets = {}) {
  return run_example("quota-priorities.yaml", dir, name, sets);
}

std::vector<json> placements_of(const json& report, const std::string& workload) {
  std::vector<json> out;
  for (const auto& p : report["placements"])
    if (p["workload"] == workload) out.push_back(p);
  return out;
}

TEST(Quota, AHigherPriorityJobPreemptsItsOwnTenantsLowerPriorityJob) {
  TempDir dir;
  const json report = run_priorities(dir, "base");
  const json& research = quota_of(report, "research");
  EXPECT_EQ(research["preempted"], 1);
  EXPECT_EQ(research["preempted_within_queue"], 1);
  EXPECT_EQ(research["reclaimed"], 0);
  EXPECT_EQ(research["peak_gpus"], 4) << "never beyond its nominal 4: no cohort to borrow from";
  // sweep (low-prio, the global default 100) is evicted when urgent (high-prio) is submitted, and starts over
  // when urgent returns its GPUs.
  // A placement per GPU: sweep's first stay on 4 GPUs, urgent's, then sweep's second.
  const auto sweep = placements_of(report, "sweep");
  const auto urgent = placements_of(report, "urgent");
  ASSERT_EQ(urgent.size(), 4u);
  ASSERT_EQ(sweep.size(), 8u);
  EXPECT_EQ(sweep[0]["end_reason"], "preempted");
  EXPECT_DOUBLE_EQ(sweep[0]["end_s"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(urgent[0]["start_s"].get<double>(), 10.0);
  EXPECT_EQ(sweep[4]["end_reason"], "done");
  EXPECT_NEAR(sweep[4]["start_s"].get<double>(), urgent[0]["end_s"].get<double>(), 1e-9);
  // Without the policy (Kueue's default, Never), urgent waits for sweep instead.
  const json never = run_priorities(dir, "never", {"spec.tenants[research].quota.preemption.withinClusterQueue=Never"});
  EXPECT_EQ(quota_of(never, "research")["preempted"], 0);
  const auto waited = placements_of(never, "urgent");
  ASSERT_EQ(waited.size(), 4u);
  EXPECT_NEAR(waited[0]["start_s"].get<double>(), placements_of(never, "sweep")[0]["end_s"].get<double>(), 1e-9);
  // Equal priorities: LowerPriority spares sweep.
  const json equal = run_priorities(dir, "equal", {"spec.workloads[urgent].priorityClass=low-prio"});
  EXPECT_EQ(quota_of(equal, "research")["preempted"], 0);
}

TEST(Quota, MigInstancesAreAQuotaOfTheirOwn) {
  TempDir dir;
  const json report = run_priorities(dir, "mig");
  const json& notebooks = quota_of(report, "notebooks");
  EXPECT_EQ(notebooks["nominal_gpus"], 0) << "no nvidia.com/gpu quota";
  ASSERT_EQ(notebooks["resources"].size(), 1u);
  const json& mig = notebooks["resources"][0];
  EXPECT_EQ(mig["resource"], "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(mig["nominal"], 14);
  EXPECT_EQ(mig["peak"], 21) << "14 of its own and 7 of labs' unused instances";
  // 7 instances borrowed from 5 s until labs reclaims them at 15 s.
  EXPECT_NEAR(mig["borrowed_device_seconds"].get<double>(), 7 * 10.0, 1e-9);
  EXPECT_EQ(notebooks["preempted"], 1);
  EXPECT_EQ(notebooks["still_queued"], json::array({"more-kernels"}));
  EXPECT_EQ(quota_of(report, "labs")["reclaimed"], 1);
  for (const auto& p : placements_of(report, "kernels")) EXPECT_TRUE(p["end_s"].is_null()) << "within its nominal";
  // The GPU tenant is untouched by the MIG borrowing.
  EXPECT_EQ(quota_of(report, "research")["resources"][0]["resource"], "nvidia.com/gpu");
  const std::string md = read_text(dir.file("mig") + "/report.md");
  EXPECT_NE(md.find("| notebooks | nvidia.com/mig-1g.10gb | 14 | none | none | 21 |"), std::string::npos) << md;
}

// scenarios/examples/quota-fair-sharing.yaml: Kueue's fair sharing. alpha borrows 8 of 12 GPUs; beta takes back
// its nominal 4 and, under fair sharing, 2 more (its share with them, 167, is at most alpha's after losing them);
// gamma then reclaims its 4 from the two borrowers. Classical preemption, or a weight of 2 for alpha (its share
// would drop to 83, below beta's), leaves beta's third job waiting.
json run_fair(const TempDir& dir, const std::string& name, const std::vector<std::string>& sets = {}) {
  return run_example("quota-fair-sharing.yaml", dir, name, sets);
}

TEST(Quota, FairSharingEvensTheSharesOfTheBorrowers) {
  TempDir dir;
  const json fair = run_fair(dir, "fair");
  EXPECT_EQ(quota_of(fair, "beta")["reclaimed"], 3) << "two within its nominal quota, one to even the shares";
  EXPECT_EQ(quota_of(fair, "beta")["peak_gpus"], 6);
  EXPECT_EQ(quota_of(fair, "beta")["preempted"], 1) << "gamma reclaims from beta too, once it borrows";
  EXPECT_EQ(quota_of(fair, "gamma")["reclaimed"], 2);
  EXPECT_EQ(quota_of(fair, "alpha")["preempted"], 4);
  const json& alpha_share = quota_of(fair, "alpha")["fair_sharing"];
  EXPECT_NEAR(alpha_share["peak_share"].get<double>(), 8 * 1000.0 / 12, 1e-9) << "8 borrowed of the 12";
  EXPECT_NEAR(quota_of(fair, "beta")["fair_sharing"]["peak_share"].get<double>(), 2 * 1000.0 / 12, 1e-9);
  // When alpha's first two jobs end, alpha's next (share 0 with it) goes before beta's waiting third (167); when
  // beta's two end, beta's third (0) goes before alpha's next (167).
  const auto beta3 = placements_of(fair, "beta-3");
  ASSERT_EQ(beta3.size(), 4u);
  const auto alpha1 = placements_of(fair, "alpha-1");
  const auto beta1 = placements_of(fair, "beta-1");
  ASSERT_FALSE(alpha1.empty());
  ASSERT_FALSE(beta1.empty());
  EXPECT_NEAR(placements_of(fair, "alpha-3")[2]["start_s"].get<double>(), alpha1[0]["end_s"].get<double>(), 1e-9);
  EXPECT_NEAR(beta3[2]["start_s"].get<double>(), beta1[0]["end_s"].get<double>(), 1e-9);
  EXPECT_NEAR(placements_of(fair, "alpha-5")[2]["start_s"].get<double>(), beta1[0]["end_s"].get<double>(), 1e-9);

  const json classical = run_fair(dir, "classical", {"spec.fairSharing.enable=false"});
  EXPECT_EQ(quota_of(classical, "beta")["reclaimed"], 2) << "a borrowing workload never preempts";
  EXPECT_EQ(quota_of(classical, "beta")["peak_gpus"], 4);
  EXPECT_FALSE(quota_of(classical, "beta").contains("fair_sharing"));
  // Classical order within a round: when beta's two jobs end, beta's third fits without borrowing and goes
  // before alpha's earlier but borrowing jobs (which it would otherwise preempt again at once).
  EXPECT_EQ(quota_of(classical, "alpha")["preempted"], 4);
  const auto classical_beta3 = placements_of(classical, "beta-3");
  ASSERT_EQ(classical_beta3.size(), 2u);
  EXPECT_NEAR(classical_beta3[0]["start_s"].get<double>(), placements_of(classical, "beta-1")[0]["end_s"].get<double>(),
              1e-9);
  const json heavy = run_fair(dir, "heavy", {"spec.tenants[alpha].quota.fairSharing.weight=2"});
  EXPECT_EQ(quota_of(heavy, "beta")["reclaimed"], 2);
  EXPECT_NEAR(quota_of(heavy, "alpha")["fair_sharing"]["peak_share"].get<double>(), 8 * 1000.0 / 12 / 2, 1e-9);
  const std::string md = read_text(dir.file("fair") + "/report.md");
  EXPECT_NE(md.find("| alpha | 1.00 | 667 |"), std::string::npos) << md;
}

// An admission's trial places replicas on the live placement view and undoes them (Engine.cpp ViewTrial): a
// trial that places two of three tensor-parallel replicas and fails must leave their GPUs free for the next
// workload (tests/fixtures/scenarios/quota-trial.yaml).
TEST(Quota, AFailedAdmissionTrialLeavesThePlacementViewAsItWas) {
  TempDir dir;
  const std::string out = dir.file("trial");
  const auto r = run_process(run_argv(
      GTW_BINARY, std::string(GTW_SOURCE_DIR) + "/tests/fixtures/scenarios/quota-trial.yaml", out, "json", {}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(read_text(out + "/report.json"));
  EXPECT_EQ(quota_of(report, "team")["still_queued"], json::array({"wide"})) << "3 x 2 GPUs do not fit in 4";
  EXPECT_TRUE(placements_of(report, "wide").empty());
  const auto single = placements_of(report, "single");
  ASSERT_EQ(single.size(), 1u) << "the GPUs the trial tried must be free again";
  EXPECT_EQ(single[0]["gpu"], 4) << "first-fit: the lowest free GPU";
  EXPECT_DOUBLE_EQ(single[0]["start_s"].get<double>(), 2.0);
}

}  // namespace
}  // namespace gtw::test
