// The identity graph's cross-tenant paths (models/threat/IdentityGraph, docs/models/identity.md): the
// confused deputy is found and disappears with passthrough or exchange; nothing within one tenant is
// reported; grants, ACL-free stores, the hop bound and the output order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "IdentityGraph.hpp"
#include "Loader.hpp"
#include "Subprocess.hpp"

namespace gtw {
namespace {

// A scenario with a health tenant (records on a store only it may read) and a public tenant, plus the
// given spec.identity section (YAML, indented by four spaces under `identity:`).
ScenarioSpec load_with_identity(const std::string& identity, const std::string& storage_allow = "[health]") {
  const std::string yaml = R"(apiVersion: gputwin.dev/v1alpha1
kind: Scenario
metadata: {name: identity-graph}
spec:
  duration: 10s
  cluster:
    nodePools:
      - {name: n, count: 1, gpu: H100-80GB-SXM, gpusPerNode: 1}
    storage:
      - {name: lustre, kind: parallelFs, allow: )" +
                           storage_allow + R"(}
  tenants:
    - {name: health}
    - {name: public}
  data:
    - {name: health-records, kind: dataset, tenant: health, store: lustre}
    - {name: public-ckpt, kind: checkpoint, tenant: public, store: localNvme}
  workloads:
    - name: health-train
      kind: training
      tenant: health
      memory: 1GiB
      iterations: 1
      step: {flops: 1TFLOP}
      io: {dataset: health-records, identity: sa-train}
  identity:
)" + identity;
  test::TempDir dir;
  const std::string file = dir.file("s.yaml");
  test::write_text(file, yaml);
  Diagnostics diags;
  ScenarioSpec spec = load_scenario(file, {}, diags);
  EXPECT_FALSE(diags.has_errors()) << diags.format_all();
  return spec;
}

const std::string PRINCIPALS = R"(    principals:
      - {name: alice, tenant: public, kind: user}
      - {name: sa-rag, tenant: health, kind: serviceAccount}
    services:
      - {name: rag-agent, tenant: health, kind: agent, identity: sa-rag}
)";

std::string deputy_identity(const std::string& second_hop) {
  return PRINCIPALS + R"(    edges:
      - {from: alice, to: rag-agent, action: call, propagation: passthrough}
      - {from: rag-agent, to: health-records, action: read, propagation: )" +
         second_hop + R"(}
    grants:
      - {principal: sa-rag, resource: health-records, actions: [read]}
)";
}

std::vector<identity::IdentityPath> from(const std::vector<identity::IdentityPath>& all, const std::string& principal) {
  std::vector<identity::IdentityPath> out;
  for (const auto& p : all)
    if (p.principal == principal) out.push_back(p);
  return out;
}

TEST(IdentityGraph, ConfusedDeputyIsFound) {
  const auto spec = load_with_identity(deputy_identity("replace"));
  const auto paths = from(identity::cross_tenant_paths(spec), "alice");
  ASSERT_EQ(paths.size(), 1u);
  const auto& p = paths[0];
  EXPECT_EQ(p.observer_tenant, spec.tenant_index("public"));
  EXPECT_EQ(p.source_tenant, spec.tenant_index("health"));
  EXPECT_EQ(p.target, "health-records");
  EXPECT_EQ(p.target_kind, "data");
  EXPECT_EQ(p.action, "read");
  EXPECT_EQ(p.hops, (std::vector<std::string>{"alice", "rag-agent", "health-records"}));
  EXPECT_EQ(p.propagation, (std::vector<std::string>{"passthrough", "replace"}));
  EXPECT_EQ(p.effective_identity, "sa-rag");
  EXPECT_TRUE(p.granted);
  EXPECT_TRUE(p.confused_deputy);
}

TEST(IdentityGraph, PassthroughClosesTheDeputy) {
  const auto spec = load_with_identity(deputy_identity("passthrough"));
  EXPECT_TRUE(from(identity::cross_tenant_paths(spec), "alice").empty());
}

TEST(IdentityGraph, ExchangeClosesTheDeputy) {
  const auto spec = load_with_identity(deputy_identity("exchange"));
  EXPECT_TRUE(from(identity::cross_tenant_paths(spec), "alice").empty());
}

TEST(IdentityGraph, ExchangeKeepsWhatTheCallerIsGranted) {
  // alice holds her own grant: an exchange passes it on, and that is no confused deputy.
  const auto spec = load_with_identity(deputy_identity("exchange") +
                                       "      - {principal: alice, resource: health-records, actions: [read]}\n");
  const auto paths = from(identity::cross_tenant_paths(spec), "alice");
  ASSERT_EQ(paths.size(), 2u);  // the direct grant and the exchanged hop
  for (const auto& p : paths) {
    EXPECT_EQ(p.effective_identity, "alice");
    EXPECT_TRUE(p.granted);
    EXPECT_FALSE(p.confused_deputy);
  }
  EXPECT_EQ(paths[0].hops, (std::vector<std::string>{"alice", "health-records"}));
  EXPECT_EQ(paths[0].propagation, (std::vector<std::string>{"direct"}));
  EXPECT_EQ(paths[1].hops, (std::vector<std::string>{"alice", "rag-agent", "health-records"}));
}

TEST(IdentityGraph, NoPathWithinOneTenantIsReported) {
  // sa-rag and sa-train (health) reach health-records; none of that is cross-tenant.
  const auto spec = load_with_identity(deputy_identity("replace"));
  const auto paths = identity::cross_tenant_paths(spec);
  for (const auto& p : paths) EXPECT_NE(p.observer_tenant, p.source_tenant);
  EXPECT_TRUE(from(paths, "sa-rag").empty());
  EXPECT_TRUE(from(paths, "sa-train").empty());
}

TEST(IdentityGraph, AStoreWithoutAclLetsTheCallerThroughWithoutAGrant) {
  // The records' store admits everyone: passthrough reaches them as alice herself (no grant, no deputy).
  const auto spec = load_with_identity(deputy_identity("passthrough"), "[]");
  const auto paths = from(identity::cross_tenant_paths(spec), "alice");
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].effective_identity, "alice");
  EXPECT_FALSE(paths[0].granted);
  EXPECT_FALSE(paths[0].confused_deputy);
}

TEST(IdentityGraph, SecretsNeedAGrant) {
  const std::string base = PRINCIPALS + R"(    secrets:
      - {name: records-key, tenant: health, path: secret/data/health/records}
    edges:
      - {from: alice, to: rag-agent, action: call, propagation: replace}
      - {from: rag-agent, to: records-key, action: use, propagation: passthrough}
)";
  EXPECT_TRUE(identity::cross_tenant_paths(load_with_identity(base)).empty());
  const auto paths = identity::cross_tenant_paths(
      load_with_identity(base + "    grants:\n      - {principal: sa-rag, resource: records-key, actions: [use]}\n"));
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].target_kind, "secret");
  EXPECT_EQ(paths[0].effective_identity, "sa-rag");
  EXPECT_TRUE(paths[0].confused_deputy);
}

TEST(IdentityGraph, PathsLongerThanEightHopsAreNotFollowed) {
  // alice -> s1 -> ... -> sN -> health-records (replace on the last hop): N + 1 hops.
  const auto chain = [](int n) {
    std::string y =
        "    principals:\n      - {name: alice, tenant: public}\n      - {name: sa-rag, tenant: health}\n"
        "    services:\n";
    for (int i = 1; i <= n; ++i) y += "      - {name: s" + std::to_string(i) + ", tenant: health, identity: sa-rag}\n";
    y += "    edges:\n      - {from: alice, to: s1}\n";
    for (int i = 1; i < n; ++i) y += "      - {from: s" + std::to_string(i) + ", to: s" + std::to_string(i + 1) + "}\n";
    y += "      - {from: s" + std::to_string(n) + ", to: health-records, action: read, propagation: replace}\n";
    return y;
  };
  EXPECT_EQ(from(identity::cross_tenant_paths(load_with_identity(chain(7))), "alice").size(), 1u);  // 8 hops
  EXPECT_TRUE(from(identity::cross_tenant_paths(load_with_identity(chain(8))), "alice").empty());   // 9 hops
}

TEST(IdentityGraph, OutputIsSortedAndDeterministic) {
  const auto valid =
      load_with_identity(PRINCIPALS + R"(      - {name: tool, tenant: health, kind: tool, identity: sa-rag}
    edges:
      - {from: alice, to: tool, action: call, propagation: replace}
      - {from: alice, to: rag-agent, action: call, propagation: replace}
      - {from: tool, to: health-records, action: read}
      - {from: rag-agent, to: health-records, action: read}
    grants:
      - {principal: sa-rag, resource: health-records, actions: [read]}
)");
  const auto a = identity::cross_tenant_paths(valid);
  const auto b = identity::cross_tenant_paths(valid);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].hops, b[0].hops);
  EXPECT_EQ(a[0].hops[1], "rag-agent");  // sorted by hops: rag-agent < tool
  EXPECT_EQ(a[1].hops[1], "tool");
}

TEST(IdentityGraph, TheSearchIsBoundedOnADenseGraph) {
  // Ten health services all calling each other: about 10^7 simple paths of up to 8 hops.
  std::string y = "    principals:\n      - {name: alice, tenant: public}\n    services:\n";
  for (int i = 0; i < 10; ++i) y += "      - {name: s" + std::to_string(i) + ", tenant: health}\n";
  y += "    edges:\n";
  for (int i = 0; i < 10; ++i) {
    if (i < 3) y += "      - {from: alice, to: s" + std::to_string(i) + "}\n";
    for (int j = 0; j < 10; ++j)
      if (i != j) y += "      - {from: s" + std::to_string(i) + ", to: s" + std::to_string(j) + "}\n";
    y += "      - {from: s" + std::to_string(i) + ", to: health-records, action: read}\n";
  }
  identity::PathSearchStats stats;
  const auto paths = identity::cross_tenant_paths(load_with_identity(y, "[]"), stats);
  EXPECT_TRUE(stats.truncated);
  EXPECT_LE(stats.expansions, 5'000'001u);
  EXPECT_FALSE(paths.empty());
  EXPECT_LE(paths.size(), 100'000u);
  for (size_t i = 1; i < paths.size(); ++i) EXPECT_FALSE(paths[i].hops < paths[i - 1].hops);
}

}  // namespace
}  // namespace gtw
