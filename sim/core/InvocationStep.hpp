#pragma once
// One hop of a run-time invocation of the identity graph (models/threat, simulate_invocations). Each is
// one AGENT_CALL event whose aux is its index in RunResult::invocation_steps.
#include <string>

namespace gtw {

/// One hop of a run-time invocation (docs/models/identity.md, "Invocations at run time"): a principal's
/// call into a service or agent and every call, read, write or use that follows from it along
/// spec.identity.edges, checked at its simulated time against tokens, revocations and grants.
struct InvocationStep {
  int invocation = -1;            // index into spec.identity.invocations
  int call = 0;                   // the call's number within its invocation (time order, 0-based)
  int hop = 1;                    // depth: 1 for principal -> entry
  double time = 0;                // when the callee acts (call start + the latencies of the hops before)
  double call_start = 0;          // when the principal called
  std::string principal;          // who called
  std::string from;               // caller of this hop (principal or service)
  std::string to;                 // callee: a service, data item, store or secret
  std::string target_kind;        // service | data | store | secret
  int target_index = -1;          // index into spec.data / spec.cluster.storage / spec.identity.secrets
  int owner = -1;                 // tenant owning the target (-1: a service, or shared infrastructure)
  std::string action;             // call | read | write | use
  std::string propagation;        // passthrough | exchange | replace
  std::string identity;           // effective identity the callee sees
  int identity_tenant = -1;       // its tenant
  bool narrowed = false;          // an exchange limited it to its grants
  double token_issued = 0;        // the token the hop presents
  double token_expires = 0;       // (an exchanged token is capped by its subject token's expiry)
  bool allowed = true;            // false: refused (the subtree is not walked)
  std::string reason;             // why refused: tokenExpired | revoked | notGranted | notAttested
  bool confused_deputy = false;   // another tenant's resource, reached only because a hop replaced the caller
  bool over_privileged = false;   // the same within the caller's tenant: the caller itself may not do this
  bool after_revocation = false;  // allowed on a token whose subject was revoked before this hop (local checks)
};

}  // namespace gtw
