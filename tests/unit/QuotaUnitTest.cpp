// Kueue-like quota bookkeeping: nominal quota, borrowing within the cohort's unused quota and the
// tenant's limit, and reclaim by preempting the newest borrowers, only as many as needed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "Quota.hpp"

namespace gtw {
namespace {

// Tenants with a GPU quota {nominal, borrowing limit}; a nominal < 0 has no quota.
std::vector<TenantSpec> tenants(std::vector<std::pair<int, int>> quotas) {
  std::vector<TenantSpec> out;
  for (const auto& [nominal, limit] : quotas) {
    TenantSpec t;
    if (nominal >= 0) {
      t.has_quota = true;
      t.quotas[GPU_RESOURCE] = {nominal, limit, -1};
    }
    out.push_back(t);
  }
  return out;
}

// A request for `amount` GPUs of tenant `tenant` (workload `w`).
QuotaRequest gpus(int w, int tenant, int amount, int priority = 0, double submitted = 0) {
  return {.workload = w,
          .tenant = tenant,
          .resource = GPU_RESOURCE,
          .amount = amount,
          .priority = priority,
          .submitted = submitted};
}

// A probe: `amount` GPUs for tenant `tenant`, no workload.
QuotaRequest ask(int tenant, int amount, int priority = 0) {
  return gpus(-1, tenant, amount, priority);
}

CohortSpec cohort(const char* name, const char* parent, int nominal, int borrowing = -1, int lending = -1,
                  SourceLoc loc = {}, bool cluster_queue = false) {
  CohortSpec c;
  c.name = name;
  c.parent = parent;
  if (nominal != 0 || borrowing >= 0 || lending >= 0) c.quotas[GPU_RESOURCE] = {nominal, borrowing, lending};
  c.loc = loc;
  c.cluster_queue = cluster_queue;
  return c;
}

TenantSpec queue(const char* name, int nominal, const char* cohort_name) {
  TenantSpec t;
  t.name = name;
  t.has_quota = true;
  t.quotas[GPU_RESOURCE] = {nominal, -1, -1};
  t.cluster_queue = name;
  t.cohort = cohort_name;
  return t;
}

TEST(QuotaBook, BorrowsOnlyUnusedQuotaAndOnlyUpToItsLimit) {
  QuotaBook q(tenants({{4, 2}, {4, -1}, {-1, -1}}));
  EXPECT_TRUE(q.managed(0));
  EXPECT_FALSE(q.managed(2)) << "no quota: not managed";
  EXPECT_EQ(q.admit(gpus(10, 0, 4)), 0);
  EXPECT_TRUE(q.fits(ask(0, 2))) << "2 borrowed from tenant 1's unused quota";
  EXPECT_EQ(q.admit(gpus(11, 0, 2)), 2);
  EXPECT_EQ(q.borrowed(0, GPU_RESOURCE), 2);
  EXPECT_FALSE(q.fits(ask(0, 1))) << "beyond nominal 4 + limit 2";
  EXPECT_TRUE(q.fits(ask(1, 2))) << "the cohort still has 2 unused";
  EXPECT_FALSE(q.fits(ask(1, 3)));
  EXPECT_TRUE(q.release(11));
  EXPECT_FALSE(q.release(11)) << "released once";
  EXPECT_EQ(q.used(0, GPU_RESOURCE), 4);
}

TEST(QuotaBook, ALenderReclaimsFromTheNewestBorrowersOnlyAsMuchAsItNeeds) {
  QuotaBook q(tenants({{4, -1}, {4, -1}}));
  q.admit(gpus(1, 0, 4));  // nominal
  q.admit(gpus(2, 0, 2));  // borrowed
  q.admit(gpus(3, 0, 2));  // borrowed, newest
  EXPECT_FALSE(q.fits(ask(1, 2)));
  auto v = q.victims(ask(1, 2));
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, std::vector<int>{3}) << "the newest borrower, and only it";
  v = q.victims(ask(1, 4));
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<int>{3, 2}));
  EXPECT_FALSE(q.victims(ask(1, 5))) << "beyond its nominal quota a tenant cannot reclaim";
  // Tenant 0 is not borrowing beyond its nominal workload: workload 1 is never a victim.
  q.release(2);
  q.release(3);
  q.admit(gpus(4, 1, 4));
  EXPECT_FALSE(q.victims(ask(0, 1))) << "tenant 0 is at its nominal quota; nobody borrows";
}

// Kueue's lendingLimit: a lender with nominal 8 and lendingLimit 2 keeps 6 guaranteed; borrowers get at most
// its 2, and the lender's own use counts against its guaranteed 6 first.
TEST(QuotaBook, ALendingLimitKeepsTheRestOfTheNominalQuotaGuaranteed) {
  auto specs = tenants({{8, -1}, {0, -1}});
  specs[0].quotas[GPU_RESOURCE].lending_limit = 2;
  QuotaBook q(specs);
  EXPECT_TRUE(q.fits(ask(1, 2)));
  EXPECT_FALSE(q.fits(ask(1, 3))) << "only the lendable 2 of the lender's 8 unused GPUs";
  q.admit(gpus(1, 1, 2));
  EXPECT_TRUE(q.fits(ask(0, 6))) << "the lender's guaranteed 6 stay free";
  EXPECT_FALSE(q.fits(ask(0, 7))) << "the 7th comes from the pool, which the borrower holds";
  const auto v = q.victims(ask(0, 8));
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, std::vector<int>{1}) << "reclaimed within its nominal quota";
  // Without a lending limit the borrower may take all 8.
  QuotaBook open(tenants({{8, -1}, {0, -1}}));
  EXPECT_TRUE(open.fits(ask(1, 8)));
}

}  // namespace
}  // namespace gtw

namespace gtw {
namespace {

// Kueue ClusterQueues in a tree of cohorts (KEP-79): org (own quota 2) above team-a and team-b; team-b may borrow
// at most 1 from org and lends at most 1 of its subtree. cq-c stands alone (a ClusterQueue without a cohort).
std::vector<TenantSpec> org_tree() {
  const auto cq = queue;
  CohortSpec org = cohort("org", "", 2);
  CohortSpec a = cohort("team-a", "org", 0);
  CohortSpec b = cohort("team-b", "org", 0, 1, 1);
  std::vector<TenantSpec> out{cq("cq-a1", 4, "team-a"), cq("cq-a2", 2, "team-a"), cq("cq-b", 4, "team-b"),
                              cq("cq-c", 3, "")};
  out[0].cohort_chain = {a, org};
  out[1].cohort_chain = {a, org};
  out[2].cohort_chain = {b, org};
  return out;
}

TEST(QuotaTree, CohortsLendUpAndBorrowDownWithinTheirLimits) {
  const auto specs = org_tree();
  const QuotaTree tree(specs, GPU_RESOURCE);
  const std::vector<int> idle(specs.size(), 0);
  // org's subtree: its own 2 + team-a's 6 + what team-b lends (1 of its 4): 9; cq-a1 may take all of it.
  EXPECT_EQ(tree.tree_quota(0), 9);
  EXPECT_EQ(tree.available(0, idle), 9);
  // team-b: its 3 guaranteed (4 - lending limit 1) + at most 1 more from org.
  EXPECT_EQ(tree.available(2, idle), 5);
  // A ClusterQueue without a cohort has its nominal quota only.
  EXPECT_EQ(tree.available(3, idle), 3);
  EXPECT_FALSE(tree.same_tree(0, 3));
  EXPECT_TRUE(tree.same_tree(0, 2));
  // cq-a1 uses 8: org has 1 left, and team-b keeps its 3 guaranteed.
  EXPECT_EQ(tree.available(2, {8, 0, 0, 0}), 4);
  EXPECT_EQ(tree.available(1, {8, 0, 0, 0}), 1);
}

TEST(QuotaTree, QuotaBookAdmitsAndReclaimsAcrossTheTree) {
  QuotaBook q(org_tree());
  EXPECT_EQ(q.admit(gpus(1, 0, 8)), 4);  // cq-a1: 4 nominal + 4 borrowed (team-a2's 2 and org's 2)
  EXPECT_TRUE(q.fits(ask(2, 4)));
  EXPECT_FALSE(q.fits(ask(2, 5))) << "team-b's 3 guaranteed + 1 from org";
  EXPECT_FALSE(q.fits(ask(1, 2))) << "cq-a2's nominal is lent out";
  // cq-a2 asks for its nominal 2 back: cq-a1's workload (borrowing) is preempted.
  const auto victims = q.victims(ask(1, 2));
  ASSERT_TRUE(victims);
  EXPECT_EQ(*victims, std::vector<int>{1});
  // The standalone queue neither lends nor borrows, and is never a victim of the tree.
  EXPECT_TRUE(q.fits(ask(3, 3)));
  EXPECT_FALSE(q.fits(ask(3, 4)));
}

// Reclaim preempts only borrowers whose GPUs come back to the claimant: a1 lends to a2 inside team-a, which lends
// nothing up to org (lendingLimit 0); b1 lends to b2 inside team-b. When b1 wants its quota back, a2's workload
// (the newest) borrows in the same tree but frees nothing for b1: only b2's is preempted.
TEST(QuotaTree, ReclaimSkipsBorrowersWhoseReleaseDoesNotHelp) {
  const auto cq = queue;
  CohortSpec team_a = cohort("team-a", "org", 0, -1, 0, {"kueue.yaml", 1, 1});
  CohortSpec team_b = cohort("team-b", "org", 0, -1, -1, {"kueue.yaml", 2, 1});
  CohortSpec org = cohort("org", "", 0);
  std::vector<TenantSpec> specs{cq("a1", 4, "team-a"), cq("a2", 0, "team-a"), cq("b1", 4, "team-b"),
                                cq("b2", 0, "team-b")};
  specs[0].cohort_chain = specs[1].cohort_chain = {team_a, org};
  specs[2].cohort_chain = specs[3].cohort_chain = {team_b, org};
  QuotaBook q(specs);
  EXPECT_EQ(q.admit(gpus(10, 3, 4)), 4);  // b2 borrows b1's 4
  EXPECT_EQ(q.admit(gpus(11, 1, 4)), 4);  // a2 borrows a1's 4 (team-a keeps them)
  const auto victims = q.victims(ask(2, 4));
  ASSERT_TRUE(victims);
  EXPECT_EQ(*victims, std::vector<int>{10});
}

// Every ClusterQueue and Cohort of the tree lends, also those no tenant has (they come in cohort_tree), and a
// cohort may lend more than its own nominal quota (its subtree's).
TEST(QuotaTree, QueuesAndCohortsWithoutTenantsLendTheirQuota) {
  TenantSpec web = queue("web-cq", 4, "team-a");
  web.name = "web";
  CohortSpec team_a = cohort("team-a", "org", 0, -1, -1, {"k.yaml", 1, 1});
  CohortSpec org = cohort("org", "", 0, -1, -1, {"k.yaml", 2, 1});
  CohortSpec spare = cohort("spare", "org", 8, -1, 10, {"k.yaml", 3, 1});
  CohortSpec idle_queue = cohort("idle-cq", "team-a", 2, -1, -1, {"k.yaml", 4, 1}, true);
  CohortSpec spare_queue = cohort("spare-cq", "spare", 3, -1, -1, {"k.yaml", 5, 1}, true);
  web.cohort_chain = {team_a, org};
  web.cohort_tree = {spare, idle_queue, spare_queue};
  const QuotaTree tree({web}, GPU_RESOURCE);
  // 4 own + 2 (idle-cq) + 10 (spare lends 10 of its 8 + 3).
  EXPECT_EQ(tree.available(0, {0}), 16);
  EXPECT_EQ(tree.available(0, {5}), 11);
}

// Many large queues: the tree's sums pass an int (Kueue quotas may be 9,999,999 each); what a tenant may take is
// capped at the int range, never negative.
TEST(QuotaTree, LargeQuotasDoNotOverflow) {
  TenantSpec web = queue("web-cq", 9999999, "org");
  web.name = "web";
  web.cohort_chain = {cohort("org", "", 9999999, -1, -1, {"k.yaml", 1, 1})};
  for (int i = 0; i < 300; ++i) {
    const std::string name = "q" + std::to_string(i);
    web.cohort_tree.push_back(cohort(name.c_str(), "org", 9999999, -1, -1, {"k.yaml", 10 + i, 1}, true));
  }
  const QuotaTree tree({web}, GPU_RESOURCE);
  EXPECT_EQ(tree.available(0, {0}), std::numeric_limits<int>::max());
  EXPECT_GT(tree.available(0, {5}), 0);
}

}  // namespace
}  // namespace gtw

// Kueue's classical preemption with priorities and several resources (docs/models/quotas.md, "Preemption").
namespace gtw {
namespace {

TEST(QuotaBook, EachResourceHasItsOwnQuotaAndTree) {
  auto specs = tenants({{4, -1}, {0, -1}});
  const std::string mig = "nvidia.com/mig-1g.10gb";
  specs[0].quotas[mig] = {7, -1, -1};
  specs[1].quotas[mig] = {7, -1, -1};
  QuotaBook q(specs);
  EXPECT_TRUE(q.covers(0, mig));
  EXPECT_TRUE(q.covers(1, GPU_RESOURCE));
  EXPECT_FALSE(q.covers(0, "nvidia.com/mig-3g.40gb"));
  const QuotaRequest instances{.workload = 1, .tenant = 0, .resource = mig, .amount = 10};
  EXPECT_TRUE(q.fits(instances)) << "7 of its own and 3 of tenant 1's unused MIG instances";
  EXPECT_EQ(q.admit(instances), 3);
  EXPECT_EQ(q.used(0, mig), 10);
  EXPECT_EQ(q.used(0, GPU_RESOURCE), 0) << "MIG instances do not count against the GPU quota";
  EXPECT_TRUE(q.fits(ask(1, 4))) << "tenant 1's GPU borrowing is untouched by the MIG borrowing";
  EXPECT_FALSE(q.fits(QuotaRequest{.tenant = 1, .resource = mig, .amount = 5}));
  EXPECT_EQ(q.victims(QuotaRequest{.workload = 2, .tenant = 1, .resource = mig, .amount = 4}), std::vector<int>{})
      << "4 of its own are still unused";
  const auto v = q.victims(QuotaRequest{.workload = 2, .tenant = 1, .resource = mig, .amount = 5});
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, std::vector<int>{1}) << "reclaimed within tenant 1's nominal MIG quota";
}

TEST(QuotaBook, WithinClusterQueuePreemptsOnlyWhatItsPolicyAllows) {
  auto specs = tenants({{4, -1}});
  specs[0].preemption.within_cluster_queue = PreemptionPolicy::LOWER_PRIORITY;
  QuotaBook q(specs);
  q.admit(gpus(1, 0, 2, /*priority*/ 0, /*submitted*/ 10));
  q.admit(gpus(2, 0, 2, 5, 20));
  EXPECT_EQ(q.victims(gpus(3, 0, 2, 3, 30)), std::vector<int>{1}) << "only the lower priority";
  EXPECT_FALSE(q.victims(gpus(3, 0, 4, 3, 30))) << "the priority-5 workload is never a victim of priority 3";
  EXPECT_FALSE(q.victims(gpus(3, 0, 2, 0, 5))) << "LowerPriority spares equal priorities";
  specs[0].preemption.within_cluster_queue = PreemptionPolicy::LOWER_OR_NEWER_EQUAL_PRIORITY;
  QuotaBook newer(specs);
  newer.admit(gpus(1, 0, 2, 0, 10));
  newer.admit(gpus(2, 0, 2, 5, 20));
  EXPECT_EQ(newer.victims(gpus(3, 0, 2, 0, 5)), std::vector<int>{1}) << "equal priority, submitted after it";
  EXPECT_FALSE(newer.victims(gpus(3, 0, 2, 0, 15))) << "equal priority, submitted before it";
  specs[0].preemption.within_cluster_queue = PreemptionPolicy::NEVER;
  QuotaBook never(specs);
  never.admit(gpus(1, 0, 4, 0, 10));
  EXPECT_FALSE(never.victims(gpus(3, 0, 2, 100, 30)));
}

TEST(QuotaBook, ReclaimFollowsThePolicyAndPrioritiesOfTheBorrowers) {
  auto specs = tenants({{4, -1}, {0, -1}});
  specs[0].preemption.reclaim_within_cohort = PreemptionPolicy::LOWER_PRIORITY;
  QuotaBook q(specs);
  q.admit(gpus(1, 1, 2, /*priority*/ 1));
  q.admit(gpus(2, 1, 2, /*priority*/ 9));
  EXPECT_EQ(q.victims(gpus(3, 0, 2, 5)), std::vector<int>{1}) << "the borrower of lower priority";
  EXPECT_FALSE(q.victims(gpus(3, 0, 4, 5))) << "the priority-9 borrower is spared";
  specs[0].preemption.reclaim_within_cohort = PreemptionPolicy::NEVER;
  QuotaBook never(specs);
  never.admit(gpus(1, 1, 4));
  EXPECT_FALSE(never.victims(gpus(3, 0, 2, 100))) << "reclaimWithinCohort: Never";
  specs[0].preemption.reclaim_within_cohort = PreemptionPolicy::ANY;
  QuotaBook any(specs);
  any.admit(gpus(1, 1, 2, 1));
  any.admit(gpus(2, 1, 2, 9));
  EXPECT_EQ(any.victims(gpus(3, 0, 4, 0)), (std::vector<int>{1, 2})) << "lower priority first, then the others";
}

// borrowWithinCohort: a workload that must borrow preempts lower-priority workloads of borrowing queues, those at
// most maxPriorityThreshold when one is set. Without it, a workload beyond its nominal quota preempts nobody.
TEST(QuotaBook, BorrowWithinCohortPreemptsLowerPrioritiesUpToTheThreshold) {
  auto specs = tenants({{2, -1}, {2, -1}, {2, -1}});  // tenant 2 lends its 2, idle
  QuotaBook plain(specs);
  plain.admit(gpus(1, 1, 2));
  plain.admit(gpus(2, 1, 2));  // borrowed from tenant 2
  EXPECT_FALSE(plain.victims(gpus(3, 0, 3, 10))) << "3 > its nominal 2: no reclaim";
  specs[0].preemption.borrow_within_cohort = true;
  QuotaBook borrow(specs);
  borrow.admit(gpus(1, 1, 2));
  borrow.admit(gpus(2, 1, 2));
  EXPECT_EQ(borrow.victims(gpus(3, 0, 3, 10)), std::vector<int>{2}) << "the borrowing workload, not tenant 1's own 2";
  EXPECT_FALSE(borrow.victims(gpus(3, 0, 3, 0))) << "equal priority is not lower";
  specs[0].preemption.max_priority_threshold = -1;
  QuotaBook threshold(specs);
  threshold.admit(gpus(1, 1, 2));
  threshold.admit(gpus(2, 1, 2));
  EXPECT_FALSE(threshold.victims(gpus(3, 0, 3, 10))) << "priority 0 is above the threshold -1";
}

// After removing candidates until the request fits, Kueue puts back those it did not need: here the newest
// borrower (1 GPU) goes first but the request only fits once the 3-GPU one goes, and then the first comes back.
TEST(QuotaBook, VictimsThatAreNotNeededArePutBack) {
  QuotaBook q(tenants({{4, -1}, {0, -1}}));
  q.admit(gpus(1, 1, 3));
  q.admit(gpus(2, 1, 1));
  EXPECT_EQ(q.victims(gpus(3, 0, 3)), std::vector<int>{1});
  EXPECT_EQ(q.victims(gpus(3, 0, 4)), (std::vector<int>{2, 1}));
  EXPECT_EQ(q.victims(gpus(3, 1, 0)), std::vector<int>{}) << "a request that fits needs no victims";
}

}  // namespace
}  // namespace gtw

// Kueue's fair sharing (docs/models/quotas.md, "Fair sharing"): the dominant resource share and the preemption that
// evens the shares. Three queues of 4 GPUs in one cohort: each could obtain 12 (its lendable resources).
namespace gtw {
namespace {

FairSharingSpec fair(std::vector<FairSharingStrategy> strategies = {
                         FairSharingStrategy::LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
                         FairSharingStrategy::LESS_THAN_INITIAL_SHARE}) {
  FairSharingSpec fs;
  fs.enabled = true;
  fs.strategies = std::move(strategies);
  return fs;
}

TEST(QuotaFairSharing, TheShareIsTheBorrowedPartOfWhatTheCohortCouldLendOverTheWeight) {
  auto specs = tenants({{4, -1}, {4, -1}, {4, -1}});
  specs[1].fair_weight = 2;
  specs[2].fair_weight = 0;
  QuotaBook q(specs, fair());
  EXPECT_DOUBLE_EQ(q.share(0), 0) << "nothing borrowed";
  q.admit(gpus(1, 0, 7));
  EXPECT_DOUBLE_EQ(q.share(0), 3 * 1000.0 / 12) << "3 borrowed of the 12 the cohort could lend";
  const QuotaRequest more = gpus(2, 0, 1);
  EXPECT_DOUBLE_EQ(q.share(0, &more), 4 * 1000.0 / 12) << "with the request's GPU";
  EXPECT_DOUBLE_EQ(q.share(1, &more), 0) << "another tenant's request does not count";
  q.admit(gpus(3, 1, 5));
  EXPECT_DOUBLE_EQ(q.share(1), 1000.0 / 12 / 2) << "weight 2 halves it";
  EXPECT_DOUBLE_EQ(q.share(2), 0) << "weight 0, not borrowing";
  const QuotaRequest one = gpus(4, 2, 5);
  EXPECT_TRUE(std::isinf(q.share(2, &one))) << "weight 0 while borrowing: without bound";
  QuotaBook alone(tenants({{4, -1}}), fair());  // the implicit cohort of one queue lends only its own quota
  alone.admit(gpus(1, 0, 4));
  EXPECT_DOUBLE_EQ(alone.share(0), 0);
}

// Queue 0 borrows 4 (8 in use, share 333); queue 2 holds its nominal 4 and asks for 2 more (share 167 with them).
// Classical preemption never preempts for a borrowing request; fair sharing takes one of queue 0's jobs, since
// queue 2's share with its job (167) is at most queue 0's share after the preemption (167).
TEST(QuotaFairSharing, ABorrowingRequestPreemptsFromTheQueueWithTheHigherShare) {
  const auto specs = tenants({{4, -1}, {4, -1}, {4, -1}});
  const auto fill = [](QuotaBook& q) {
    for (int w = 1; w <= 4; ++w) q.admit(gpus(w, 0, 2));
    q.admit(gpus(5, 2, 4));
  };
  QuotaBook classical(specs);
  fill(classical);
  EXPECT_FALSE(classical.victims(gpus(9, 2, 2)));
  QuotaBook fs(specs, fair());
  fill(fs);
  EXPECT_EQ(fs.victims(gpus(9, 2, 2)), std::vector<int>{4}) << "queue 0's newest";
  EXPECT_FALSE(fs.victims(gpus(9, 2, 4))) << "share 333 with 4 more: above queue 0's 167 after, not below its 333";
  EXPECT_EQ(fs.victims(gpus(9, 1, 4)), (std::vector<int>{4, 3})) << "within queue 1's nominal quota";
}

// Weight 2 halves queue 0's share: after a preemption it would be 83, below queue 2's 167 with its job (strategy 1
// fails) and its 167 before is not above 167 either (strategy 2 fails): queue 0 keeps its GPUs.
TEST(QuotaFairSharing, AHeavierWeightProtectsABorrower) {
  auto specs = tenants({{4, -1}, {4, -1}, {4, -1}});
  specs[0].fair_weight = 2;
  QuotaBook q(specs, fair());
  for (int w = 1; w <= 4; ++w) q.admit(gpus(w, 0, 2));
  q.admit(gpus(5, 2, 4));
  EXPECT_FALSE(q.victims(gpus(9, 2, 2)));
  specs[0].fair_weight = 0.5;  // a lighter weight doubles its share: 667 before, 333 after
  QuotaBook light(specs, fair());
  for (int w = 1; w <= 4; ++w) light.admit(gpus(w, 0, 2));
  light.admit(gpus(5, 2, 4));
  EXPECT_EQ(light.victims(gpus(9, 2, 2)), std::vector<int>{4});
}

// The strategies on their own: with LessThanInitialShare, a request is compared with the target's share before the
// preemption, so queue 2 (333 with 4 more) may not take from queue 0 (333) but may with 2 more (167 < 333); with
// LessThanOrEqualToFinalShare alone, what fails it is not retried.
TEST(QuotaFairSharing, EachStrategyComparesTheSharesItNames) {
  const auto specs = tenants({{4, -1}, {4, -1}, {4, -1}});
  const auto fill = [](QuotaBook& q) {
    for (int w = 1; w <= 4; ++w) q.admit(gpus(w, 0, 2));
    q.admit(gpus(5, 2, 4));
  };
  QuotaBook initial(specs, fair({FairSharingStrategy::LESS_THAN_INITIAL_SHARE}));
  fill(initial);
  EXPECT_EQ(initial.victims(gpus(9, 2, 2)), std::vector<int>{4});
  EXPECT_FALSE(initial.victims(gpus(9, 2, 4)));
  // Queue 0 holds one 6-GPU job (share 167), queue 1 2 GPUs, queue 2 its 4. Queue 2's 2 more give it 167: the
  // job's removal would leave queue 0 at 0 (strategy 1 fails), and 167 is not below 167 (strategy 2 fails too);
  // with 1 more (83 < 167) strategy 2 passes.
  QuotaBook full(specs, fair());
  full.admit(gpus(1, 0, 6));
  full.admit(gpus(2, 1, 2));
  full.admit(gpus(5, 2, 4));
  EXPECT_FALSE(full.victims(gpus(9, 2, 2)));
  EXPECT_EQ(full.victims(gpus(9, 2, 1)), std::vector<int>{1}) << "strategy 2: 83 < 167";
  QuotaBook final_only(specs, fair({FairSharingStrategy::LESS_THAN_OR_EQUAL_TO_FINAL_SHARE}));
  final_only.admit(gpus(1, 0, 6));
  final_only.admit(gpus(2, 1, 2));
  final_only.admit(gpus(5, 2, 4));
  EXPECT_FALSE(final_only.victims(gpus(9, 2, 1))) << "83 > 0 after, and no second strategy";
}

// The claimant's own queue, when its share with the request is the highest, gives up its own candidates first
// (its withinClusterQueue policy chooses them), before any other queue is weighed.
TEST(QuotaFairSharing, TheClaimantsOwnQueueGoesFirstWhenItsShareIsHighest) {
  auto specs = tenants({{4, -1}, {4, -1}, {4, -1}});
  specs[2].preemption.within_cluster_queue = PreemptionPolicy::LOWER_PRIORITY;
  QuotaBook q(specs, fair());
  q.admit(gpus(1, 0, 6));                  // queue 0: share 167
  q.admit(gpus(2, 2, 4));                  // queue 2 at its nominal quota
  q.admit(gpus(3, 2, 2, /*priority*/ 0));  // and 2 borrowed: share 167
  EXPECT_EQ(q.victims(gpus(9, 2, 2, /*priority*/ 5)), std::vector<int>{3})
      << "its share with the request (333) is the highest: its own lower-priority job goes";
}

// Hierarchical fair sharing (Kueue v0.11+): cohorts have shares too, and a cohort's queues are weighed together
// against the other cohorts. org (no quota of its own) above team-a (queues a1 and a2, 4 each) and team-b (queue
// b1, 4): 12 GPUs, and each team could obtain all 12.
std::vector<TenantSpec> two_teams(double team_a_weight = 1) {
  CohortSpec org = cohort("org", "", 0);
  CohortSpec a = cohort("team-a", "org", 0);
  a.fair_weight = team_a_weight;
  CohortSpec b = cohort("team-b", "org", 0);
  std::vector<TenantSpec> out{queue("a1", 4, "team-a"), queue("a2", 4, "team-a"), queue("b1", 4, "team-b")};
  out[0].cohort_chain = {a, org};
  out[1].cohort_chain = {a, org};
  out[2].cohort_chain = {b, org};
  return out;
}

// a1 holds 6 (2 borrowed, its share 167) but team-a as a whole borrows nothing (6 of its 8); b1 holds its 4. With
// one more GPU each, team-a would still borrow nothing while team-b would borrow 1 (83): a1's head goes first,
// though a1's own share with it (250) is the higher one.
TEST(QuotaFairSharing, TheTournamentWeighsCohortsAgainstEachOther) {
  QuotaBook q(two_teams(), fair());
  q.admit(gpus(1, 0, 6));
  q.admit(gpus(2, 2, 4));
  const std::vector<QuotaRequest> heads{gpus(3, 2, 1, 0, /*submitted*/ 1), gpus(4, 0, 1, 0, 2)};
  EXPECT_GT(q.share(0, &heads[1]), q.share(2, &heads[0])) << "by the queues' own shares, b1 would go first";
  EXPECT_EQ(q.fair_first(heads), 1u);
  // Within team-a, the queues' own shares decide: a2 (nothing borrowed with 2) before a1 (250 with 1 more).
  const std::vector<QuotaRequest> same_team{gpus(5, 0, 1, 0, 1), gpus(6, 1, 2, 0, 2)};
  EXPECT_EQ(q.fair_first(same_team), 1u);
  // Equal shares: the higher priority, then the earlier submission.
  const std::vector<QuotaRequest> tied{gpus(7, 1, 1, 0, 1), gpus(8, 1, 1, 5, 2)};
  EXPECT_EQ(q.fair_first(tied), 1u);
}

// a1 and b1 both borrow 2 (share 167 each); a2 asks for its nominal 2. Weighed queue by queue, a1 (the lower
// index on the tie) would lose a job; weighed by cohort, team-a with a2's request borrows nothing (8 of its 8)
// and team-b borrows 2: b1 loses one, and team-b's share after it (0) is not below team-a's (0).
TEST(QuotaFairSharing, PreemptionComparesTheSidesBelowTheCommonCohort) {
  QuotaBook q(two_teams(), fair());
  q.admit(gpus(1, 0, 2));
  q.admit(gpus(2, 0, 2));
  q.admit(gpus(3, 0, 2));  // a1: 6
  q.admit(gpus(4, 2, 2));
  q.admit(gpus(5, 2, 2));
  q.admit(gpus(6, 2, 2));  // b1: 6
  EXPECT_EQ(q.victims(gpus(9, 1, 2)), std::vector<int>{6});
  // team-a weighted 0.25: its share with a2's request is still 0 (it borrows nothing), so b1 still loses one.
  QuotaBook light(two_teams(0.25), fair());
  for (int w = 1; w <= 3; ++w) light.admit(gpus(w, 0, 2));
  for (int w = 4; w <= 6; ++w) light.admit(gpus(w, 2, 2));
  EXPECT_EQ(light.victims(gpus(9, 1, 2)), std::vector<int>{6});
  // a2 asks for 8, 4 beyond its nominal quota: team-a's share with it (6 borrowed of 12: 500) is above team-b's
  // after losing a job (0) and not below its 167 before, and a2's own (333) above a1's: nothing is preempted.
  QuotaBook full(two_teams(), fair());
  for (int w = 1; w <= 3; ++w) full.admit(gpus(w, 0, 2));
  for (int w = 4; w <= 6; ++w) full.admit(gpus(w, 2, 2));
  EXPECT_FALSE(full.victims(gpus(9, 1, 8)));
}

// Classical preemption in nested cohorts (Kueue v0.11+, fair sharing off): a1 is beyond its own nominal quota (6 of
// 4) but team-a with its request stays within its subtree quota (8 of 8), while team-b borrows 2 of team-a's. The
// request has a hierarchical advantage over team-b's borrower and reclaims it whatever the priorities. Asking for
// 4 it has none (team-a would borrow too), and a queue beyond its nominal quota in a flat cohort preempts nobody.
TEST(QuotaTree, AQueueWhoseTeamStaysWithinItsQuotaReclaimsFromAnotherTeam) {
  const auto fill = [](QuotaBook& q) {
    for (int w = 1; w <= 3; ++w) q.admit(gpus(w, 0, 2));                  // a1: 6
    for (int w = 4; w <= 6; ++w) q.admit(gpus(w, 2, 2, /*priority*/ 9));  // b1: 6, of higher priority
  };
  QuotaBook teams(two_teams());
  fill(teams);
  EXPECT_EQ(teams.victims(gpus(9, 0, 2)), std::vector<int>{6});
  EXPECT_FALSE(teams.victims(gpus(9, 0, 4)));
  QuotaBook flat(tenants({{4, -1}, {4, -1}, {4, -1}}));
  fill(flat);
  EXPECT_FALSE(flat.victims(gpus(9, 0, 2)));
}

}  // namespace
}  // namespace gtw
