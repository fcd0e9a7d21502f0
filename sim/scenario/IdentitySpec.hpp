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
  SourceLoc loc;
};

/// `from` may call (or read/write/use) `to`; on that hop the caller's identity is passed through,
/// exchanged for a narrower token, or replaced by `from`'s own service identity.
struct IdentityEdgeSpec {
  std::string from;
  std::string to;
  std::string action = "call";  // call | read | write | use
  Propagation propagation = Propagation::PASSTHROUGH;
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

struct AuditSpec {
  bool enabled = true;
  Seconds delay{1};            // shipping delay from access to the audit store
  Seconds jitter{0};           // uniform extra delay in [0, jitter)
  PerSecond throughput{0};     // records/s the shipper writes (0: unlimited); a burst queues
  Seconds retention{0};        // how long records are kept (0: forever)
  Seconds clock_skew{0};       // offset of the audit timestamps from the reference clock
  bool separate_store = true;  // records on a store apart from the audited system (AU-9(2))
  bool hash_chained = true;
  double drop_probability = 0;          // each record lost with this probability (seeded)
  std::vector<AuditGapSpec> gaps;       // the shipper is down: accesses in these windows produce no record
  std::vector<AuditTamperSpec> tamper;  // records modified after they were written (tests integrity)
  SourceLoc loc;
};

}  // namespace gtw
