#pragma once
// spec.compliance (docs/models/compliance.md): compliance rules in a Kyverno-like shape (name, rule,
// match, parameters, action enforce|audit, requirement references) and the recorded transfer bases
// the residency rules accept.
#include <map>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Registry.hpp"
#include "Units.hpp"

namespace gtw {

enum class ComplianceAction { ENFORCE, AUDIT };

/// Which tenants / data a rule applies to (empty lists match everything).
struct ComplianceMatchSpec {
  std::vector<std::string> tenants;
  std::vector<std::string> classifications;
  std::vector<std::string> data;
  SourceLoc loc;
};

struct ComplianceRuleSpec {
  std::string name;  // the policy instance's name (unique in the scenario)
  std::string rule;  // built-in rule name (registry, policies/compliance)
  ComplianceAction action = ComplianceAction::AUDIT;
  ComplianceMatchSpec match;
  Params params;  // list values are joined with ',' (e.g. allowedRegions)
  std::map<std::string, SourceLoc> param_locs;
  std::vector<std::string> requirements;  // extra requirement references (the rule's own are always listed)
  SourceLoc loc;
  SourceLoc rule_loc;
  SourceLoc action_loc;
};

/// A recorded Chapter V transfer basis: data `data` may be placed or moved to `to_region` from `at` on.
struct TransferBasisSpec {
  std::string data;       // data item name, or a tenant name (all its data)
  std::string to_region;  // region the basis covers
  std::string mechanism;  // adequacy | SCC | BCR | Art49
  Seconds at{0};
  SourceLoc loc;
};

/// A request to erase a data item (GDPR Art. 17) at `at`; the erasure procedure removes the copies in the
/// location classes of `scope` and is done `completed_after` later (< 0: never).
struct ErasureRequestSpec {
  std::string data;
  Seconds at{0};
  Seconds completed_after{-1};
  std::vector<std::string> scope;  // store | localNvme | host | gpu
  SourceLoc loc;
};

/// A transfer to a third country as a record of processing documents it: the region and its safeguard.
struct RecordedTransferSpec {
  std::string to_region;
  std::string mechanism;  // adequacy | SCC | BCR | Art49
  SourceLoc loc;
};

/// A controller's record of processing activities (GDPR Art. 30(1)): for its data, the purposes, the
/// categories of data, the recipients (other tenants that process it), where it is processed, and the
/// transfers to other regions (third countries) with their safeguards. Empty lists cover nothing;
/// processing in the data's own region needs no transfer entry, processing by the controller no recipient.
struct ProcessingRecordSpec {
  std::string name;
  std::string tenant;  // the controller
  std::vector<std::string> purposes;
  std::vector<std::string> categories;
  std::vector<std::string> recipients;  // tenants
  std::vector<RecordedTransferSpec> transfers;
  SourceLoc loc;
};

struct ComplianceSpec {
  std::vector<ComplianceRuleSpec> rules;
  std::vector<TransferBasisSpec> transfers;
  std::vector<ErasureRequestSpec> erasures;
  std::vector<ProcessingRecordSpec> processing_records;
  SourceLoc loc;
};

}  // namespace gtw
