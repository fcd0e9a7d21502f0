#pragma once
// The compliance rule interface (docs/models/compliance.md): a rule is a plug-in registered by name
// with its parameters, requirement references and help; it evaluates the run's event log, audit
// stream and identity paths after the run (audit action) and, with action enforce, is asked by the
// engine before a placement or a data access and may refuse it. No SimGrid.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "AuditLog.hpp"
#include "IdentityGraph.hpp"
#include "Placement.hpp"
#include "Registry.hpp"
#include "RunIndex.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw::policy {

enum class ComplianceStatus { PASS, FAIL, WARN, ERROR, SKIP };
const char* compliance_status_name(ComplianceStatus s);  // pass | fail | warn | error | skip

/// One piece of evidence: an event of the log, an audit record, or a spec object.
struct ComplianceEvidence {
  int64_t event = -1;         // EventLog seq (-1: none)
  int64_t audit_record = -1;  // AuditRecord index (-1: none)
  double time = 0;            // simulated s
  std::string resource;       // GPU, node, data item, principal, record ...
  std::string detail;         // what is wrong (or right) about it
  std::string kind;           // evidence kind where a rule has several (e.g. lost | late | missing)
  SourceLoc loc;              // the scenario line that caused it, when one does (a workload, pool, data item)
};

struct ComplianceFinding {
  std::string policy;   // the scenario's rule instance name
  std::string rule;     // built-in rule name (residency, audit-completeness, ...)
  std::string rule_id;  // C1 .. C24 (../shared/reference/compliance.md)
  std::string title;
  ComplianceStatus status = ComplianceStatus::PASS;
  std::string severity;  // critical | high | medium | low | info
  ComplianceAction action = ComplianceAction::AUDIT;
  std::vector<std::string> requirements;  // e.g. "GDPR Art. 44", "HIPAA 164.312(b)"
  std::string message;                    // one line: what was checked and what was found
  size_t checked = 0;                     // items evaluated (events, records, pairs ...)
  size_t violations = 0;
  size_t prevented = 0;                      // decisions refused by enforce (COMPLIANCE_REFUSED events)
  std::vector<ComplianceEvidence> evidence;  // the first violations (or, on a pass, none)
  size_t evidence_omitted = 0;               // violations beyond the evidence listed
  SourceLoc loc;                             // the rule's entry in the scenario
};

/// A leakage channel between two tenants, for the leakage-budget rule (filled from the leakage surface).
struct ChannelCapacity {
  int observer = -1;
  int source = -1;
  std::string channel;  // resource/mode
  double capacity_bps = 0;
  double exposure_s = 0;
};

struct ComplianceInput {
  const ScenarioSpec& spec;
  const RunResult& run;
  const audit::AuditLog& audit;
  const std::vector<identity::IdentityPath>& identity_paths;
  const std::vector<ChannelCapacity>& channels;
  /// audit::verify_chain(audit.records) when the caller has already run it (evaluate_compliance), so
  /// that the integrity rule does not hash every record again; null: the rule verifies.
  const audit::ChainCheck* chain = nullptr;
  /// The run index (stays, loads, data records) when the caller has built it (evaluate_compliance), so that
  /// every rule reads the same stays; null: a rule that needs it builds its own.
  const RunIndex* index = nullptr;
};

/// What the engine asks an enforcing rule before placing a replica on a GPU.
struct PlacementCheck {
  const ScenarioSpec& spec;
  const PlacementRequest& request;
  const GpuView& gpu;
  const ClusterView& view;
  const std::string& region;  // region of the GPU's node pool
  double now = 0;
};

/// What the engine (data path) asks an enforcing rule before a movement or access of tagged data.
struct AccessCheck {
  const ScenarioSpec& spec;
  const DataMovement& movement;  // as it would be recorded (allowed = true)
  std::string gpu_region;        // region of the GPU's node (empty: no GPU)
  double now = 0;
};

/// What the engine asks an enforcing rule before a replica fetches a secret (a key release).
struct KeyReleaseCheck {
  const ScenarioSpec& spec;
  int workload = -1;
  int replica = -1;
  int secret = -1;            // index into spec.identity.secrets
  std::vector<int> gpus;      // the replica's GPUs
  bool confidential = false;  // every one of them is in confidential-computing mode
  double attested_at = -1;    // latest successful attestation of the replica covering every GPU (< 0: none, or
                              // a later one failed)
  double now = 0;
};

class ComplianceRule {
 public:
  virtual ~ComplianceRule() = default;
  /// Evaluates the run (after it). `cfg` is the scenario's instance (match, params with defaults, action).
  virtual ComplianceFinding evaluate(const ComplianceInput& in, const ComplianceRuleSpec& cfg) const = 0;
  /// Enforce: whether to refuse placing the replica on this GPU (the default: allow); `why`, when not null, gets the
  /// reason. The engine asks for every eligible device of every decision, so the reason is built only on demand.
  virtual bool refuse_placement(const PlacementCheck&, const ComplianceRuleSpec&, std::string* /*why*/) const {
    return false;
  }
  /// Enforce: a reason to refuse the data movement, or nullopt (the default: allow).
  virtual std::optional<std::string> refuse_access(const AccessCheck&, const ComplianceRuleSpec&) const {
    return std::nullopt;
  }
  /// Enforce: a reason to refuse releasing the secret to the replica, or nullopt (the default: allow).
  virtual std::optional<std::string> refuse_key_release(const KeyReleaseCheck&, const ComplianceRuleSpec&) const {
    return std::nullopt;
  }
};

/// Registry metadata beyond PluginInfo: the rule id and the requirements it is derived from.
struct ComplianceRuleInfo {
  std::string rule_id;                    // C1 ..
  std::vector<std::string> requirements;  // always listed on its findings
  std::string severity;                   // default severity of a failure
  bool enforceable = false;               // has a refuse_* hook (action enforce is accepted)
};

using ComplianceRegistry = Registry<ComplianceRule>;

/// The built-in rules (explicit registration, so static linking cannot drop them).
const ComplianceRegistry& builtin_compliance_registry();
const ComplianceRuleInfo& compliance_rule_info(const std::string& rule);

}  // namespace gtw::policy
