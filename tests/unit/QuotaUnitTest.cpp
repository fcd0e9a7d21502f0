// Kueue-like quota bookkeeping: nominal quota, borrowing within the cohort's unused quota and the
// tenant's limit, and reclaim by preempting the newest borrowers, only as many as needed.
#include <gtest/gtest.h>

#include <limits>

#include "Quota.hpp"

namespace gtw {
namespace {

std::vector<TenantSpec> tenants(std::vector<std::pair<int, int>> quotas) {
  std::vector<TenantSpec> out;
  for (const auto& [nominal, limit] : quotas) {
    TenantSpec t;
    t.quota_gpus = nominal;
    t.borrowing_limit = limit;
    out.push_back(t);
  }
  return out;
}

TEST(QuotaBook, BorrowsOnlyUnusedQuotaAndOnlyUpToItsLimit) {
  QuotaBook q(tenants({{4, 2}, {4, -1}, {-1, -1}}));
  EXPECT_TRUE(q.managed(0));
  EXPECT_FALSE(q.managed(2)) << "no quota: not managed";
  EXPECT_EQ(q.admit(10, 0, 4), 0);
  EXPECT_TRUE(q.fits(0, 2)) << "2 borrowed from tenant 1's unused quota";
  EXPECT_EQ(q.admit(11, 0, 2), 2);
  EXPECT_EQ(q.borrowed(0), 2);
  EXPECT_FALSE(q.fits(0, 1)) << "beyond nominal 4 + limit 2";
  EXPECT_TRUE(q.fits(1, 2)) << "the cohort still has 2 unused";
  EXPECT_FALSE(q.fits(1, 3));
  EXPECT_TRUE(q.release(11));
  EXPECT_FALSE(q.release(11)) << "released once";
  EXPECT_EQ(q.used(0), 4);
}

TEST(QuotaBook, ALenderReclaimsFromTheNewestBorrowersOnlyAsMuchAsItNeeds) {
  QuotaBook q(tenants({{4, -1}, {4, -1}}));
  q.admit(1, 0, 4);  // nominal
  q.admit(2, 0, 2);  // borrowed
  q.admit(3, 0, 2);  // borrowed, newest
  EXPECT_FALSE(q.fits(1, 2));
  auto v = q.victims(1, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, std::vector<int>{3}) << "the newest borrower, and only it";
  v = q.victims(1, 4);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, (std::vector<int>{3, 2}));
  EXPECT_FALSE(q.victims(1, 5)) << "beyond its nominal quota a tenant cannot reclaim";
  // Tenant 0 is not borrowing beyond its nominal workload: workload 1 is never a victim.
  q.release(2);
  q.release(3);
  q.admit(4, 1, 4);
  EXPECT_FALSE(q.victims(0, 1)) << "tenant 0 is at its nominal quota; nobody borrows";
}

// Kueue's lendingLimit: a lender with nominal 8 and lendingLimit 2 keeps 6 guaranteed; borrowers get at most
// its 2, and the lender's own use counts against its guaranteed 6 first.
TEST(QuotaBook, ALendingLimitKeepsTheRestOfTheNominalQuotaGuaranteed) {
  auto specs = tenants({{8, -1}, {0, -1}});
  specs[0].lending_limit = 2;
  QuotaBook q(specs);
  EXPECT_TRUE(q.fits(1, 2));
  EXPECT_FALSE(q.fits(1, 3)) << "only the lendable 2 of the lender's 8 unused GPUs";
  q.admit(1, 1, 2);
  EXPECT_TRUE(q.fits(0, 6)) << "the lender's guaranteed 6 stay free";
  EXPECT_FALSE(q.fits(0, 7)) << "the 7th comes from the pool, which the borrower holds";
  const auto v = q.victims(0, 8);
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, std::vector<int>{1}) << "reclaimed within its nominal quota";
  // Without a lending limit the borrower may take all 8.
  QuotaBook open(tenants({{8, -1}, {0, -1}}));
  EXPECT_TRUE(open.fits(1, 8));
}

}  // namespace
}  // namespace gtw

namespace gtw {
namespace {

// Kueue ClusterQueues in a tree of cohorts (KEP-79): org (own quota 2) above team-a and team-b; team-b may borrow
// at most 1 from org and lends at most 1 of its subtree. cq-c stands alone (a ClusterQueue without a cohort).
std::vector<TenantSpec> org_tree() {
  const auto cq = [](const char* name, int nominal, const char* cohort) {
    TenantSpec t;
    t.name = name;
    t.quota_gpus = nominal;
    t.cluster_queue = name;
    t.cohort = cohort;
    return t;
  };
  CohortSpec org{"org", "", 2, -1, -1, {}};
  CohortSpec a{"team-a", "org", 0, -1, -1, {}};
  CohortSpec b{"team-b", "org", 0, 1, 1, {}};
  std::vector<TenantSpec> out{cq("cq-a1", 4, "team-a"), cq("cq-a2", 2, "team-a"), cq("cq-b", 4, "team-b"),
                              cq("cq-c", 3, "")};
  out[0].cohort_chain = {a, org};
  out[1].cohort_chain = {a, org};
  out[2].cohort_chain = {b, org};
  return out;
}

TEST(QuotaTree, CohortsLendUpAndBorrowDownWithinTheirLimits) {
  const auto specs = org_tree();
  const QuotaTree tree(specs);
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
  EXPECT_EQ(q.admit(1, 0, 8), 4);  // cq-a1: 4 nominal + 4 borrowed (team-a2's 2 and org's 2)
  EXPECT_TRUE(q.fits(2, 4));
  EXPECT_FALSE(q.fits(2, 5)) << "team-b's 3 guaranteed + 1 from org";
  EXPECT_FALSE(q.fits(1, 2)) << "cq-a2's nominal is lent out";
  // cq-a2 asks for its nominal 2 back: cq-a1's workload (borrowing) is preempted.
  const auto victims = q.victims(1, 2);
  ASSERT_TRUE(victims);
  EXPECT_EQ(*victims, std::vector<int>{1});
  // The standalone queue neither lends nor borrows, and is never a victim of the tree.
  EXPECT_TRUE(q.fits(3, 3));
  EXPECT_FALSE(q.fits(3, 4));
}

// Reclaim preempts only borrowers whose GPUs come back to the claimant: a1 lends to a2 inside team-a, which lends
// nothing up to org (lendingLimit 0); b1 lends to b2 inside team-b. When b1 wants its quota back, a2's workload
// (the newest) borrows in the same tree but frees nothing for b1: only b2's is preempted.
TEST(QuotaTree, ReclaimSkipsBorrowersWhoseReleaseDoesNotHelp) {
  const auto cq = [](const char* name, int nominal, const char* cohort) {
    TenantSpec t;
    t.name = name;
    t.quota_gpus = nominal;
    t.cluster_queue = name;
    t.cohort = cohort;
    return t;
  };
  CohortSpec team_a{"team-a", "org", 0, -1, 0, {"kueue.yaml", 1, 1}};
  CohortSpec team_b{"team-b", "org", 0, -1, -1, {"kueue.yaml", 2, 1}};
  CohortSpec org{"org", "", 0, -1, -1, {}};
  std::vector<TenantSpec> specs{cq("a1", 4, "team-a"), cq("a2", 0, "team-a"), cq("b1", 4, "team-b"),
                                cq("b2", 0, "team-b")};
  specs[0].cohort_chain = specs[1].cohort_chain = {team_a, org};
  specs[2].cohort_chain = specs[3].cohort_chain = {team_b, org};
  QuotaBook q(specs);
  EXPECT_EQ(q.admit(10, 3, 4), 4);  // b2 borrows b1's 4
  EXPECT_EQ(q.admit(11, 1, 4), 4);  // a2 borrows a1's 4 (team-a keeps them)
  const auto victims = q.victims(2, 4);
  ASSERT_TRUE(victims);
  EXPECT_EQ(*victims, std::vector<int>{10});
}

// Every ClusterQueue and Cohort of the tree lends, also those no tenant has (they come in cohort_tree), and a
// cohort may lend more than its own nominal quota (its subtree's).
TEST(QuotaTree, QueuesAndCohortsWithoutTenantsLendTheirQuota) {
  TenantSpec web;
  web.name = "web";
  web.quota_gpus = 4;
  web.cluster_queue = "web-cq";
  web.cohort = "team-a";
  CohortSpec team_a{"team-a", "org", 0, -1, -1, {"k.yaml", 1, 1}};
  CohortSpec org{"org", "", 0, -1, -1, {"k.yaml", 2, 1}};
  CohortSpec spare{"spare", "org", 8, -1, 10, {"k.yaml", 3, 1}};
  CohortSpec idle_queue{"idle-cq", "team-a", 2, -1, -1, {"k.yaml", 4, 1}, true};
  CohortSpec spare_queue{"spare-cq", "spare", 3, -1, -1, {"k.yaml", 5, 1}, true};
  web.cohort_chain = {team_a, org};
  web.cohort_tree = {spare, idle_queue, spare_queue};
  const QuotaTree tree({web});
  // 4 own + 2 (idle-cq) + 10 (spare lends 10 of its 8 + 3).
  EXPECT_EQ(tree.available(0, {0}), 16);
  EXPECT_EQ(tree.available(0, {5}), 11);
}

// Many large queues: the tree's sums pass an int (Kueue quotas may be 9,999,999 each); what a tenant may take is
// capped at the int range, never negative.
TEST(QuotaTree, LargeQuotasDoNotOverflow) {
  TenantSpec web;
  web.name = "web";
  web.quota_gpus = 9999999;
  web.cluster_queue = "web-cq";
  web.cohort = "org";
  web.cohort_chain = {CohortSpec{"org", "", 9999999, -1, -1, {"k.yaml", 1, 1}}};
  for (int i = 0; i < 300; ++i)
    web.cohort_tree.push_back(CohortSpec{"q" + std::to_string(i), "org", 9999999, -1, -1, {"k.yaml", 10 + i, 1}, true});
  const QuotaTree tree({web});
  EXPECT_EQ(tree.available(0, {0}), std::numeric_limits<int>::max());
  EXPECT_GT(tree.available(0, {5}), 0);
}

}  // namespace
}  // namespace gtw
