#pragma once
// audit.jsonl and the /audit group of results.h5 (docs/models/audit.md, "Outputs").
#include <string>

#include "AuditLog.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw {

/// Whether a run has an audit trail to write: tagged data (spec.data) or a spec.identity / spec.audit section.
bool audit_applies(const ScenarioSpec& spec);

/// One JSON object per record and line, keys in a fixed order (index, event_seq, t_event, t_written, type,
/// principal, tenant, owner, resource, source, location, outcome, hash_prev, hash); times round-trip exactly.
std::string audit_jsonl(const audit::AuditLog& log);
/// Writes audit_jsonl(log) to `path` atomically.
void write_audit_jsonl(const std::string& path, const audit::AuditLog& log);

/// Parses audit.jsonl text back into records; on a malformed line returns false with `error` set to
/// "<line>: <what>" (1-based line).
bool parse_audit_jsonl(const std::string& text, std::vector<audit::AuditRecord>& out, std::string& error);

}  // namespace gtw
