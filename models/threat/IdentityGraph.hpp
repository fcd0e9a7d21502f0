#pragma once
// The identity graph (docs/models/identity.md): principals (users, service accounts with SPIFFE-style
// ids), services, agents and the tools they call, secrets and data, as a Boost.Graph. Edges say who
// can call or read what and how identity propagates on each hop: the caller's token passed through,
// exchanged for a narrower one, or replaced by the service's own identity (the confused deputy).
// No SimGrid: the analyses and the compliance rules read it.
#include <string>
#include <vector>

#include "InvocationStep.hpp"
#include "Scenario.hpp"

namespace gtw::identity {

/// One way a principal of `observer_tenant` reaches data or a secret of `source_tenant`.
struct IdentityPath {
  int observer_tenant = -1;              // tenant of the principal at the start of the path
  int source_tenant = -1;                // tenant owning the target
  std::string principal;                 // the starting principal
  std::string target;                    // data item, store or secret name
  std::string target_kind;               // data | store | secret
  std::string action;                    // read | write | use
  std::vector<std::string> hops;         // node names from the principal to the target, inclusive
  std::vector<std::string> propagation;  // per hop after the first: passthrough | exchange | replace
  std::string effective_identity;        // the identity the target sees on the last hop
  bool confused_deputy = false;          // reached only because a hop replaced the caller's identity with a broader one
  bool granted = false;                  // the effective identity holds a grant on the target
};

/// Every path by which a principal of one tenant reaches another tenant's data or secrets, sorted by
/// (observer, source, principal, target). Deterministic.
std::vector<IdentityPath> cross_tenant_paths(const ScenarioSpec& spec);

/// How much the search did: edges expanded, and whether a bound (100 000 paths, 5 000 000 expansions) cut
/// it short (the output is then a deterministic prefix of the enumeration, still sorted).
struct PathSearchStats {
  size_t expansions = 0;
  bool truncated = false;
};
std::vector<IdentityPath> cross_tenant_paths(const ScenarioSpec& spec, PathSearchStats& stats);

/// Every hop of every invocation of spec.identity.invocations, sorted by (time, invocation, call, order of
/// the walk). Seeded: the Poisson calls and the edges' probabilities draw from streams named after the
/// invocation. Deterministic.
std::vector<InvocationStep> simulate_invocations(const ScenarioSpec& spec, uint64_t seed);

}  // namespace gtw::identity
