#pragma once
// spec.identity and spec.audit (docs/models/identity.md, docs/models/audit.md): principals, services,
// agents, tools, secrets, who may call or read what and how identity propagates; grants and
// revocations; and the audit pipeline (delay, throughput, retention, injected losses and tampering).
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Units.hpp"

namespace gtw {

enum class PrincipalKind { USER, SERVICE_ACCOUNT, SHARED, ANONYMOUS };
enum class ServiceKind { SERVICE, AGENT, TOOL };
enum class Propagation { PASSTHROUGH, EXCHANGE, REPLACE };

struct PrincipalSpec {
  std::string name;
  std::string tenant;
  int tenant_index = -1;  // resolved by validation
  PrincipalKind kind = PrincipalKind::USER;
  std::string spiffe_id;  // empty: spiffe://<tenant>/<kind>/<name>
  SourceLoc loc;
};

/// A service, agent or tool: a node that acts on behalf of its callers, under its own identity.
struct ServiceNodeSpec {
  std::string name;
  std::string tenant;
  int tenant_index = -1;
  ServiceKind kind = ServiceKind::SERVICE;
  std::string identity;  // principal it runs as (its own service account)
  std::string workload;  // the workload it is (optional): the data that workload reads and writes is reachable from it
  SourceLoc loc;
};

struct SecretSpec {
  std::string name;
  std::string tenant;
  int tenant_index = -1;
  std::string path;                   // Vault-like path, e.g. secret/data/health/db
  bool requires_attestation = false;  // released only to a confidential VM with a fresh attestation
  // Lifecycle (docs/models/identity.md, "Secrets over time"): the value changes every `rotation` (0: never);
  // a read with a lease (> 0) gets a credential of its own that expires `lease` after the read.
  Seconds rotation{0};
  Seconds lease{0};
  std::vector<std::string> protects;  // data items and stores the secret opens (its blast radius when leaked)
  SourceLoc loc;
};

/// Calls all of one invocation may make (validation refuses more, counting `at` plus rate x window).
inline constexpr double MAX_INVOCATION_CALLS = 1e6;
/// Hops all invocations may make: calls x the hops one call can walk (every edge taken), at most this.
inline constexpr double MAX_INVOCATION_HOPS = 5e6;
/// Depth of a run-time walk (hops from the principal), as the graph's path search.
inline constexpr int MAX_INVOCATION_DEPTH = 8;
/// Rotations of one secret within spec.duration (validation refuses a shorter period).
inline constexpr double MAX_ROTATIONS = 1e5;

enum class TokenValidation { LOCAL, INTROSPECTION };

/// Run-time calls into the graph: `principal` calls `entry` (a service or agent) at the listed times and/or
/// as a Poisson process; the callee then calls its tools and services and reads its resources hop by hop.
struct InvocationSpec {
  std::string name;
  std::string principal;
  std::string entry;
  std::vector<Seconds> at;  // explicit call times
  PerSecond rate{0};        // Poisson calls per second on top (0: none)
  Seconds from{0};
  Seconds until{-1};  // < 0: the end of the run's arrivals
  SourceLoc loc;
};

/// `from` may call (or read/write/use) `to`; on that hop the caller's identity is passed through,
/// exchanged for a narrower token, or replaced by `from`'s own service identity.
struct IdentityEdgeSpec {
  std::string from;
  std::string to;
  std::string action = "call";  // call | read | write | use
  Propagation propagation = Propagation::PASSTHROUGH;
  Seconds latency{0.02};     // run time: how long the hop takes before the callee acts (assumed 20 ms)
  double probability = 1.0;  // run time: share of the caller's invocations that take this hop
  SourceLoc loc;
};

struct GrantSpec {
  std::string principal;
  std::string resource;              // data item, store or secret
  std::vector<std::string> actions;  // read | write | use (empty: all)
  Seconds from{0};
  Seconds until{-1};  // < 0: never expires
  SourceLoc loc;
};

struct RevocationSpec {
  std::string principal;
  Seconds at{0};
  SourceLoc loc;
};

struct IdentitySpec {
  std::vector<PrincipalSpec> principals;
  std::vector<ServiceNodeSpec> services;
  std::vector<SecretSpec> secrets;
  std::vector<IdentityEdgeSpec> edges;
  std::vector<GrantSpec> grants;
  std::vector<RevocationSpec> revocations;
  std::vector<InvocationSpec> invocations;
  Seconds token_lifetime{3600};  // access tokens (a principal's, an exchanged one) expire this long after issue
  TokenValidation token_validation = TokenValidation::LOCAL;  // local: signature only; introspection: online
  Seconds session_idle_timeout{0};  // a principal's session ends after this long without a call (0: never)
  SourceLoc loc;
};

/// What happens after an incident becomes known (docs/models/compliance.md, "Incidents").
struct IncidentResponseSpec {
  Seconds detect_after{-1};  // incidents without their own detection delay become known this long after (< 0: never)
  Seconds revoke_after{-1};  // a leaked secret is rotated this long after the leak is known (< 0: never)
  Seconds notify_after{-1};  // the supervisory authority is notified this long after awareness (< 0: never)
  SourceLoc loc;
};

struct AuditGapSpec {
  Seconds from{0};
  Seconds until{0};
  SourceLoc loc;
};

struct AuditTamperSpec {
  int record = 0;     // index in the written stream
  std::string field;  // principal | resource | outcome | time ...
  std::string value;
  SourceLoc loc;
};

/// How the audit store keeps tenants' records: all in one stream, or each tenant's in its own.
enum class AuditStreams { SHARED, PER_TENANT };
const std::vector<std::string>& audit_streams_names();  // shared | perTenant

struct AuditSpec {
  bool enabled = true;
  Seconds delay{1};            // shipping delay from access to the audit store
  Seconds jitter{0};           // uniform extra delay in [0, jitter)
  PerSecond throughput{0};     // records/s the shipper writes (0: unlimited); a burst queues
  Seconds retention{0};        // how long records are kept (0: forever)
  Seconds clock_skew{0};       // offset of the audit store's clock from the reference clock at t = 0
  double clock_drift_ppm = 0;  // its rate error: the offset grows by this many s per 1e6 s (until a sync)
  Seconds clock_sync{0};       // every this long the clock is stepped to the reference (offset 0); 0: never
  AuditStreams streams = AuditStreams::SHARED;  // one stream for all tenants, or one per tenant (PCI A1.3)
  bool separate_store = true;                   // records on a store apart from the audited system (AU-9(2))
  bool hash_chained = true;
  bool log_requests = false;            // every completed inference request is recorded (EU AI Act Art. 12 use logs)
  double drop_probability = 0;          // each record lost with this probability (seeded)
  std::vector<AuditGapSpec> gaps;       // the shipper is down: accesses in these windows produce no record
  std::vector<AuditTamperSpec> tamper;  // records modified after they were written (tests integrity)
  SourceLoc loc;
};

}  // namespace gtw
