// The identity graph and its cross-tenant paths (docs/models/identity.md).
//
// Vertices: principals (declared, workloads' io.identity, services' identities), services/agents/tools,
// secrets, data items and stores. Edges: spec.identity.edges, one `direct` edge per grant
// (principal -> resource), each workload identity's own io (-> dataset, weights, checkpoint, secrets),
// and each service with a workload -> that workload's data (`replace`: the workload's accesses run as
// the service's identity).
//
// Enumeration: a depth-first walk from every principal over simple paths of at most MAX_HOPS edges,
// carrying the effective identity (and whether an `exchange` narrowed it to grants). Cost O(P * b^d)
// for P principals, out-degree b and d = MAX_HOPS in the worst case; identity graphs are shallow and
// sparse (a few hops, degree < 10), so in practice O(P * paths). MAX_PATHS bounds the output and
// MAX_EXPANSIONS the work (PathSearchStats says when either cut the search short).
#include "IdentityGraph.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "Rng.hpp"

namespace gtw::identity {

namespace {

constexpr int MAX_HOPS = 8;
constexpr size_t MAX_PATHS = 100'000;
constexpr size_t MAX_EXPANSIONS = 5'000'000;

enum class NodeKind { PRINCIPAL, SERVICE, SECRET, DATA, STORE };
// DIRECT: the node itself acts (a principal's own grant or a workload's own io).
enum class Hop { DIRECT, PASSTHROUGH, EXCHANGE, REPLACE };

const char* hop_name(Hop h) {
  switch (h) {
    case Hop::DIRECT:
      return "direct";
    case Hop::PASSTHROUGH:
      return "passthrough";
    case Hop::EXCHANGE:
      return "exchange";
    case Hop::REPLACE:
      return "replace";
  }
  return "?";
}

struct NodeProps {
  std::string name;
  NodeKind kind = NodeKind::PRINCIPAL;
  int tenant = -1;       // owner (stores: the one tenant of their ACL, else -1: shared infrastructure)
  std::string identity;  // services: the principal they run as
  int index = -1;        // index into its spec list (data, storage, secrets)
};

struct EdgeProps {
  std::string action;  // call | read | write | use
  Hop hop = Hop::PASSTHROUGH;
  std::string acts_as;  // REPLACE on a workload edge: the identity the access runs as
  int spec_edge = -1;   // index into spec.identity.edges (-1: a grant or workload edge)
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, NodeProps, EdgeProps>;
using Vertex = Graph::vertex_descriptor;

class IdentityGraph {
 public:
  explicit IdentityGraph(const ScenarioSpec& spec) : spec_(spec) { build(); }

  PathSearchStats stats;

  std::vector<IdentityPath> cross_tenant_paths() {
    std::vector<IdentityPath> out;
    for (Vertex v = 0; v < boost::num_vertices(g_); ++v) {
      if (g_[v].kind != NodeKind::PRINCIPAL || g_[v].tenant < 0) continue;
      Walk walk{v, {v}, {}, v, false};
      dfs(walk, out);
    }
    std::sort(out.begin(), out.end(), [](const IdentityPath& a, const IdentityPath& b) {
      return std::tie(a.observer_tenant, a.source_tenant, a.principal, a.target, a.hops, a.propagation, a.action) <
             std::tie(b.observer_tenant, b.source_tenant, b.principal, b.target, b.hops, b.propagation, b.action);
    });
    return out;
  }

 private:
  struct Walk {
    Vertex start;
    std::vector<Vertex> path;
    std::vector<Hop> hops;
    Vertex effective;  // principal vertex the current node acts as
    bool narrowed;     // an exchange limited it to what `effective` is granted
  };

  const ScenarioSpec& spec_;
  Graph g_;
  std::map<std::string, Vertex> by_name_;

  Vertex add_node(NodeProps p) {
    auto it = by_name_.find(p.name);
    if (it != by_name_.end()) return it->second;  // first declaration wins (validation reports clashes)
    const Vertex v = boost::add_vertex(p, g_);
    by_name_.emplace(g_[v].name, v);
    return v;
  }

  void add_principal(const std::string& name, int tenant) {
    if (!name.empty()) add_node(NodeProps{name, NodeKind::PRINCIPAL, tenant, name, -1});
  }

  void add_edge(const std::string& from, const std::string& to, const std::string& action, Hop hop,
                const std::string& acts_as = {}, int spec_edge = -1) {
    auto f = by_name_.find(from);
    auto t = by_name_.find(to);
    if (f == by_name_.end() || t == by_name_.end()) return;
    boost::add_edge(f->second, t->second, EdgeProps{action, hop, acts_as, spec_edge}, g_);
  }

  static std::string workload_identity(const WorkloadSpec& w) {
    return w.io.identity.empty() ? w.tenant : w.io.identity;
  }

  void build() {
    const auto& id = spec_.identity;
    for (const auto& p : id.principals) add_principal(p.name, p.tenant_index);
    for (const auto& w : spec_.workloads) add_principal(workload_identity(w), w.tenant_index);
    for (const auto& s : id.services) add_principal(s.identity.empty() ? s.tenant : s.identity, s.tenant_index);
    for (const auto& s : id.services)
      add_node(NodeProps{s.name, NodeKind::SERVICE, s.tenant_index, s.identity.empty() ? s.tenant : s.identity, -1});
    for (size_t i = 0; i < id.secrets.size(); ++i)
      add_node(NodeProps{id.secrets[i].name, NodeKind::SECRET, id.secrets[i].tenant_index, "", static_cast<int>(i)});
    for (size_t i = 0; i < spec_.data.size(); ++i)
      add_node(NodeProps{spec_.data[i].name, NodeKind::DATA, spec_.data[i].tenant_index, "", static_cast<int>(i)});
    for (size_t i = 0; i < spec_.storage.size(); ++i) {
      const auto& st = spec_.storage[i];
      const int owner = st.allow.size() == 1 ? spec_.tenant_index(st.allow[0]) : -1;
      add_node(NodeProps{st.name, NodeKind::STORE, owner, "", static_cast<int>(i)});
    }

    for (size_t i = 0; i < id.edges.size(); ++i) {
      const auto& e = id.edges[i];
      const Hop hop = e.propagation == Propagation::EXCHANGE  ? Hop::EXCHANGE
                      : e.propagation == Propagation::REPLACE ? Hop::REPLACE
                                                              : Hop::PASSTHROUGH;
      add_edge(e.from, e.to, e.action, hop, {}, static_cast<int>(i));
    }
    for (const auto& gr : id.grants) {
      const auto t = by_name_.find(gr.resource);
      const bool secret = t != by_name_.end() && g_[t->second].kind == NodeKind::SECRET;
      add_edge(gr.principal, gr.resource, gr.actions.empty() ? (secret ? "use" : "read") : gr.actions.front(),
               Hop::DIRECT);
    }
    for (const auto& w : spec_.workloads) {
      const std::string who = workload_identity(w);
      add_edge(who, w.io.dataset, "read", Hop::DIRECT);
      add_edge(who, w.io.weights, "read", Hop::DIRECT);
      add_edge(who, w.io.checkpoint, "write", Hop::DIRECT);
      for (const auto& s : w.secrets) add_edge(who, s, "use", Hop::DIRECT);
    }
    for (const auto& s : id.services) {
      if (s.workload.empty()) continue;
      const auto w = std::find_if(spec_.workloads.begin(), spec_.workloads.end(),
                                  [&](const WorkloadSpec& x) { return x.name == s.workload; });
      if (w == spec_.workloads.end()) continue;
      const std::string as = s.identity.empty() ? workload_identity(*w) : s.identity;
      add_edge(s.name, w->io.dataset, "read", Hop::REPLACE, as);
      add_edge(s.name, w->io.weights, "read", Hop::REPLACE, as);
      add_edge(s.name, w->io.checkpoint, "write", Hop::REPLACE, as);
      for (const auto& sec : w->secrets) add_edge(s.name, sec, "use", Hop::REPLACE, as);
    }
  }

  // A grant of `who` on the target (or the store holding it) for the action; at time `at` when given (its
  // from/until window), whatever its window otherwise (the standing capability).
  bool has_grant(Vertex who, Vertex target, const std::string& action, std::optional<double> at = {}) const {
    const std::string& name = g_[who].name;
    const auto& t = g_[target];
    const std::string store = t.kind == NodeKind::DATA ? spec_.data[static_cast<size_t>(t.index)].store : "";
    for (const auto& gr : spec_.identity.grants) {
      if (gr.principal != name) continue;
      if (at && (*at < gr.from.value || (gr.until.value >= 0 && *at >= gr.until.value))) continue;
      if (gr.resource != t.name && (store.empty() || gr.resource != store)) continue;
      if (gr.actions.empty() || std::find(gr.actions.begin(), gr.actions.end(), action) != gr.actions.end())
        return true;
    }
    return false;
  }

  // Whether the ACL in front of `target` admits the tenant of `who` without a grant.
  bool acl_admits(Vertex who, Vertex target) const {
    const auto& t = g_[target];
    const int tenant = g_[who].tenant;
    const auto store_admits = [&](const StorageSpec& st) {
      if (st.allow.empty()) return true;  // no ACL in the way
      return tenant >= 0 && std::find(st.allow.begin(), st.allow.end(),
                                      spec_.tenants[static_cast<size_t>(tenant)].name) != st.allow.end();
    };
    switch (t.kind) {
      case NodeKind::SECRET:
        return false;  // Vault-like: default deny
      case NodeKind::STORE:
        return store_admits(spec_.storage[static_cast<size_t>(t.index)]);
      case NodeKind::DATA: {
        const auto& d = spec_.data[static_cast<size_t>(t.index)];
        for (const auto& st : spec_.storage)
          if (st.name == d.store) return store_admits(st);
        return tenant == t.tenant;  // host memory or node-local NVMe: the owner's own machines
      }
      default:
        return false;
    }
  }

  struct Access {
    bool allowed = false;
    bool granted = false;
  };
  Access access(Vertex who, bool narrowed, Vertex target, const std::string& action,
                std::optional<double> at = {}) const {
    Access a;
    a.granted = has_grant(who, target, action, at);
    a.allowed = a.granted || (!narrowed && acl_admits(who, target));
    return a;
  }

  Vertex principal_vertex(const std::string& name, Vertex fallback) const {
    auto it = by_name_.find(name);
    return it != by_name_.end() && g_[it->second].kind == NodeKind::PRINCIPAL ? it->second : fallback;
  }

  void dfs(Walk& walk, std::vector<IdentityPath>& out) {
    if (out.size() >= MAX_PATHS || stats.expansions >= MAX_EXPANSIONS) {
      stats.truncated = true;
      return;
    }
    const Vertex here = walk.path.back();
    for (auto [e, end] = boost::out_edges(here, g_); e != end; ++e) {
      if (++stats.expansions > MAX_EXPANSIONS) {
        stats.truncated = true;
        return;
      }
      const Vertex next = boost::target(*e, g_);
      if (std::find(walk.path.begin(), walk.path.end(), next) != walk.path.end()) continue;
      const EdgeProps& ep = g_[*e];
      const NodeKind kind = g_[next].kind;
      Vertex effective = walk.effective;
      bool narrowed = walk.narrowed;
      if (ep.hop == Hop::EXCHANGE) {
        narrowed = true;
      } else if (ep.hop == Hop::REPLACE) {
        // A service callee acts as its own identity; a resource is accessed as the acting node's identity.
        const std::string as = !ep.acts_as.empty()         ? ep.acts_as
                               : kind == NodeKind::SERVICE ? g_[next].identity
                                                           : g_[here].identity;
        effective = principal_vertex(as, effective);
        narrowed = false;
      }
      walk.path.push_back(next);
      walk.hops.push_back(ep.hop);
      if (kind == NodeKind::SERVICE) {
        if (static_cast<int>(walk.hops.size()) < MAX_HOPS) {
          const Vertex saved_effective = walk.effective;
          const bool saved_narrowed = walk.narrowed;
          walk.effective = effective;
          walk.narrowed = narrowed;
          dfs(walk, out);
          walk.effective = saved_effective;
          walk.narrowed = saved_narrowed;
        }
      } else if (kind != NodeKind::PRINCIPAL) {
        record(walk, effective, narrowed, ep.action, out);
      }
      walk.path.pop_back();
      walk.hops.pop_back();
    }
  }

  void record(const Walk& walk, Vertex effective, bool narrowed, const std::string& action,
              std::vector<IdentityPath>& out) {
    const Vertex target = walk.path.back();
    const int observer = g_[walk.start].tenant;
    const int source = g_[target].tenant;
    if (source < 0 || observer < 0 || source == observer) return;
    if (out.size() >= MAX_PATHS) {
      stats.truncated = true;
      return;
    }
    const Access via = access(effective, narrowed, target, action);
    if (!via.allowed) return;
    IdentityPath p;
    p.observer_tenant = observer;
    p.source_tenant = source;
    p.principal = g_[walk.start].name;
    p.target = g_[target].name;
    const NodeKind kind = g_[target].kind;
    p.target_kind = kind == NodeKind::SECRET ? "secret" : kind == NodeKind::STORE ? "store" : "data";
    p.action = action;
    for (Vertex v : walk.path) p.hops.push_back(g_[v].name);
    for (Hop h : walk.hops) p.propagation.push_back(hop_name(h));
    p.effective_identity = g_[effective].name;
    p.granted = via.granted;
    // Confused deputy: a replaced identity reaches what the starting principal could not reach itself.
    const bool replaced = std::find(walk.hops.begin(), walk.hops.end(), Hop::REPLACE) != walk.hops.end();
    p.confused_deputy = replaced && effective != walk.start && !access(walk.start, false, target, action).allowed;
    out.push_back(std::move(p));
  }

 public:
  // ---- Invocations at run time (docs/models/identity.md, "Invocations at run time") ----

  std::vector<InvocationStep> invocation_steps(uint64_t seed) const {
    std::vector<InvocationStep> out;
    const auto& id = spec_.identity;
    for (size_t i = 0; i < id.invocations.size(); ++i) {
      const auto& inv = id.invocations[i];
      const auto principal = by_name_.find(inv.principal);
      const auto entry = by_name_.find(inv.entry);
      if (principal == by_name_.end() || entry == by_name_.end()) continue;  // validation reports it
      const std::vector<double> times = call_times(inv, seed);
      for (size_t k = 0; k < times.size(); ++k) {
        RunWalk w{static_cast<int>(i),
                  static_cast<int>(k),
                  times[k],
                  times[k],
                  principal->second,
                  {principal->second},
                  {},
                  principal->second,
                  false,
                  token_for(principal->second, times[k]),
                  {}};
        run_walk(w, seed, out);
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const InvocationStep& a, const InvocationStep& b) {
      return std::tie(a.time, a.invocation, a.call) < std::tie(b.time, b.invocation, b.call);
    });
    return out;
  }

 private:
  struct Token {
    Vertex subject;  // the principal it was issued to
    double issued = 0;
    double expires = 0;
  };
  struct RunWalk {
    int invocation;
    int call;
    double start;
    double clock;  // time of the hop being walked
    Vertex principal;
    std::vector<Vertex> path;
    std::vector<Hop> hops;
    Vertex effective;
    bool narrowed;
    Token token;  // the token the current node presents on its next hop
    std::optional<std::string> refused;
  };

  std::vector<double> call_times(const InvocationSpec& inv, uint64_t seed) const {
    std::vector<double> times;
    for (const auto& t : inv.at) times.push_back(t.value);
    if (inv.rate.value > 0) {
      RngStream rng = make_stream(seed, "identity/invocations/" + inv.name);
      const double until = inv.until.value >= 0 ? inv.until.value : spec_.duration.value;
      for (double t = inv.from.value + rng.exponential(inv.rate.value); t < until; t += rng.exponential(inv.rate.value))
        times.push_back(t);
    }
    std::sort(times.begin(), times.end());
    return times;
  }

  Token token_for(Vertex subject, double now) const {
    return Token{subject, now, now + spec_.identity.token_lifetime.value};
  }

  // When the principal was first revoked (infinity: never).
  double revoked_at(Vertex who) const {
    double at = std::numeric_limits<double>::infinity();
    for (const auto& r : spec_.identity.revocations)
      if (r.principal == g_[who].name) at = std::min(at, r.at.value);
    return at;
  }

  // Whether a service accepts the token at `now`; empty: yes. Local validation checks the signature and
  // expiry only: a token issued before its subject's revocation keeps working until it expires.
  std::optional<std::string> token_refusal(const Token& t, double now) const {
    if (now > t.expires) return std::string("tokenExpired");
    const double revoked = revoked_at(t.subject);
    if (revoked <= t.issued) return std::string("revoked");  // the issuer refuses a revoked subject
    if (spec_.identity.token_validation == TokenValidation::INTROSPECTION && revoked <= now)
      return std::string("revoked");
    return std::nullopt;
  }

  // Whether this call takes the edge: a draw of its own per (invocation, call, edge, path), so that changing one
  // edge's probability, or a refusal that cuts a subtree, moves no other draw.
  bool takes(const RunWalk& w, int spec_edge, uint64_t seed) const {
    const double p = spec_.identity.edges[static_cast<size_t>(spec_edge)].probability;
    if (p >= 1) return true;
    std::string name = "identity/walk/" + spec_.identity.invocations[static_cast<size_t>(w.invocation)].name + "/" +
                       std::to_string(w.call) + "/" + std::to_string(spec_edge) + "/";
    for (Vertex v : w.path) name += std::to_string(v) + ",";
    return make_stream(seed, name).uniform() < p;
  }

  void run_walk(RunWalk& w, uint64_t seed, std::vector<InvocationStep>& out) const {
    const Vertex here = w.path.back();
    for (auto [e, end] = boost::out_edges(here, g_); e != end; ++e) {
      const EdgeProps& ep = g_[*e];
      if (ep.spec_edge < 0) continue;  // run time follows the declared call plan only
      const auto& spec_edge = spec_.identity.edges[static_cast<size_t>(ep.spec_edge)];
      const Vertex next = boost::target(*e, g_);
      // Only the entry is called from the principal.
      if (w.path.size() == 1 && g_[next].name != spec_.identity.invocations[static_cast<size_t>(w.invocation)].entry)
        continue;
      if (std::find(w.path.begin(), w.path.end(), next) != w.path.end() || !takes(w, ep.spec_edge, seed)) continue;
      if (static_cast<int>(w.hops.size()) >= MAX_HOPS) continue;
      w.clock += spec_edge.latency.value;
      InvocationStep step = hop_step(w, here, next, ep);
      out.push_back(step);
      if (!step.allowed || g_[next].kind != NodeKind::SERVICE) continue;
      RunWalk inner = w;
      inner.path.push_back(next);
      inner.hops.push_back(ep.hop);
      inner.effective = principal_vertex(step.identity, w.effective);
      inner.narrowed = step.narrowed;
      inner.token = Token{inner.effective, step.token_issued, step.token_expires};
      run_walk(inner, seed, out);
      w.clock = inner.clock;  // the caller waits for the callee (sequential tool calls)
    }
  }

  // The hop u -> v at w.clock: the token it presents, the identity the callee sees, and for a resource
  // whether that identity may do the action now.
  InvocationStep hop_step(const RunWalk& w, Vertex here, Vertex next, const EdgeProps& ep) const {
    InvocationStep s;
    s.invocation = w.invocation;
    s.call = w.call;
    s.hop = static_cast<int>(w.hops.size()) + 1;
    s.time = w.clock;
    s.call_start = w.start;
    s.principal = g_[w.principal].name;
    s.from = g_[here].name;
    s.to = g_[next].name;
    const NodeKind kind = g_[next].kind;
    s.target_kind = kind == NodeKind::SERVICE  ? "service"
                    : kind == NodeKind::SECRET ? "secret"
                    : kind == NodeKind::STORE  ? "store"
                                               : "data";
    s.target_index = g_[next].index;
    s.owner = kind == NodeKind::SERVICE ? -1 : g_[next].tenant;
    s.action = ep.action;
    s.propagation = hop_name(ep.hop);
    Vertex effective = w.effective;
    bool narrowed = w.narrowed;
    Token token = w.token;
    std::optional<std::string> refused = token_refusal(w.token, w.clock);
    if (!refused && ep.hop == Hop::EXCHANGE) {
      narrowed = true;  // the STS issues a narrower token, capped by its subject token's expiry
      token = Token{effective, w.clock, std::min(w.token.expires, w.clock + spec_.identity.token_lifetime.value)};
      refused = token_refusal(token, w.clock);  // an issuer: it refuses a subject revoked by now
    } else if (!refused && ep.hop == Hop::REPLACE) {
      effective = principal_vertex(kind == NodeKind::SERVICE ? g_[next].identity : g_[here].identity, effective);
      narrowed = false;
      token = token_for(effective, w.clock);  // the service's own, fresh credential
      refused = token_refusal(token, w.clock);
    }
    s.identity = g_[effective].name;
    s.identity_tenant = g_[effective].tenant;
    s.narrowed = narrowed;
    s.token_issued = token.issued;
    s.token_expires = token.expires;
    if (!refused && kind != NodeKind::SERVICE && !access(effective, narrowed, next, ep.action, w.clock).allowed)
      refused = std::string("notGranted");
    // A secret released only to an attested confidential VM: an agent's hop is no such release.
    if (!refused && kind == NodeKind::SECRET &&
        spec_.identity.secrets[static_cast<size_t>(g_[next].index)].requires_attestation)
      refused = std::string("notAttested");
    s.allowed = !refused;
    s.reason = refused.value_or("");
    if (!s.allowed) return s;
    s.after_revocation = revoked_at(token.subject) <= w.clock;
    if (kind != NodeKind::SERVICE) {
      const bool replaced =
          ep.hop == Hop::REPLACE || std::find(w.hops.begin(), w.hops.end(), Hop::REPLACE) != w.hops.end();
      const bool escalated =
          replaced && effective != w.principal && !access(w.principal, false, next, ep.action, w.clock).allowed;
      const int caller_tenant = g_[w.principal].tenant;
      s.confused_deputy = escalated && s.owner >= 0 && caller_tenant >= 0 && s.owner != caller_tenant;
      s.over_privileged = escalated && !s.confused_deputy;
    }
    return s;
  }
};

}  // namespace

std::vector<IdentityPath> cross_tenant_paths(const ScenarioSpec& spec, PathSearchStats& stats) {
  IdentityGraph graph(spec);
  auto out = graph.cross_tenant_paths();
  stats = graph.stats;
  return out;
}

std::vector<IdentityPath> cross_tenant_paths(const ScenarioSpec& spec) {
  PathSearchStats stats;
  return cross_tenant_paths(spec, stats);
}

std::vector<InvocationStep> simulate_invocations(const ScenarioSpec& spec, uint64_t seed) {
  if (spec.identity.invocations.empty()) return {};
  return IdentityGraph(spec).invocation_steps(seed);
}

}  // namespace gtw::identity
