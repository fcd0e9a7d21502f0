// The /compliance group of results.h5 (docs/formats/results-h5.md): one row per rule instance and one
// per piece of evidence, so a notebook can join findings to /events by seq.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ComplianceWriters.hpp"
#include "H5Util.hpp"

namespace gtw {

namespace {

struct FindingRow {
  const char* policy;
  const char* rule;
  const char* rule_id;
  const char* status;
  const char* severity;
  const char* action;
  uint64_t checked;
  uint64_t violations;
  uint64_t prevented;
  const char* requirements;
  const char* message;
};

struct EvidenceRow {
  uint32_t finding;  // row of /compliance/findings
  int64_t event;     // seq in /events, -1: none
  int64_t audit_record;
  double time_s;
  const char* resource;
  const char* detail;
};

}  // namespace

void write_compliance_group(hid_t root, const ComplianceReport& c) {
  using namespace h5;
  const H5Id group = make_group(root, "compliance");
  const H5Id str = vlen_string_type();
  // The rows point into these strings: keep them alive until the tables are written.
  std::vector<std::string> requirements, actions;
  requirements.reserve(c.findings.size());
  actions.reserve(c.findings.size());
  std::vector<FindingRow> findings;
  std::vector<EvidenceRow> evidence;
  for (size_t i = 0; i < c.findings.size(); ++i) {
    const auto& f = c.findings[i];
    std::string reqs;
    for (const auto& r : f.requirements) reqs += (reqs.empty() ? "" : "; ") + r;
    requirements.push_back(std::move(reqs));
    actions.emplace_back(f.action == ComplianceAction::ENFORCE ? "enforce" : "audit");
    findings.push_back({f.policy.c_str(), f.rule.c_str(), f.rule_id.c_str(), policy::compliance_status_name(f.status),
                        f.severity.c_str(), actions.back().c_str(), f.checked, f.violations, f.prevented,
                        requirements.back().c_str(), f.message.c_str()});
    for (const auto& e : f.evidence)
      evidence.push_back(
          {static_cast<uint32_t>(i), e.event, e.audit_record, e.time, e.resource.c_str(), e.detail.c_str()});
  }
  const hid_t s = str.get();
  const hid_t u64 = H5T_NATIVE_UINT64, fu64 = H5T_STD_U64LE, i64 = H5T_NATIVE_INT64, fi64 = H5T_STD_I64LE;
  write_table(
      group.get(), "findings", findings,
      {GTW_FIELD(FindingRow, policy, s, s), GTW_FIELD(FindingRow, rule, s, s), GTW_FIELD(FindingRow, rule_id, s, s),
       GTW_FIELD(FindingRow, status, s, s), GTW_FIELD(FindingRow, severity, s, s), GTW_FIELD(FindingRow, action, s, s),
       GTW_FIELD(FindingRow, checked, u64, fu64), GTW_FIELD(FindingRow, violations, u64, fu64),
       GTW_FIELD(FindingRow, prevented, u64, fu64), GTW_FIELD(FindingRow, requirements, s, s),
       GTW_FIELD(FindingRow, message, s, s)});
  write_table(group.get(), "evidence", evidence,
              {GTW_FIELD(EvidenceRow, finding, H5T_NATIVE_UINT32, H5T_STD_U32LE),
               GTW_FIELD(EvidenceRow, event, i64, fi64), GTW_FIELD(EvidenceRow, audit_record, i64, fi64),
               GTW_FIELD(EvidenceRow, time_s, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE),
               GTW_FIELD(EvidenceRow, resource, s, s), GTW_FIELD(EvidenceRow, detail, s, s)});
  attr_u64(group.get(), "passed", c.passed);
  attr_u64(group.get(), "failed", c.failed);
  attr_u64(group.get(), "warned", c.warned);
  attr_u64(group.get(), "errors", c.errored);
  attr_u64(group.get(), "skipped", c.skipped);
  attr_u64(group.get(), "audit_chain_intact", c.chain.intact ? 1 : 0);
}

}  // namespace gtw
