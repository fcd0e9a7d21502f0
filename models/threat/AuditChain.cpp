// The audit records' hash chain: canonical text and verification (build_audit_log is in AuditLog.cpp).
#include <cstdio>

#include "AuditLog.hpp"
#include "Sha256.hpp"
#include "Text.hpp"

namespace gtw::audit {

namespace {

// Times with 9 significant decimals of a second: exact enough to tell records apart, stable across runs.
std::string fixed_time(double t) {
  return format_printf("%.9f", t);
}

}  // namespace

std::string canonical_text(const AuditRecord& r) {
  // '\x1f' (unit separator) cannot occur in names the loader accepts, so fields cannot run together.
  std::string s;
  const auto add = [&s](const std::string& v) {
    s += v;
    s += '\x1f';
  };
  add(std::to_string(r.index));
  add(std::to_string(r.event_seq));
  add(fixed_time(r.t_event));
  add(fixed_time(r.t_written));
  add(r.type);
  add(r.principal);
  add(std::to_string(r.tenant));
  add(std::to_string(r.owner));
  add(r.resource);
  add(r.source);
  add(r.location);
  add(r.outcome);
  add(r.hash_prev);
  return s;
}

ChainCheck verify_chain(const std::vector<AuditRecord>& records) {
  ChainCheck check;
  std::string previous;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    const auto fail = [&](const char* why) {
      check.intact = false;
      check.first_bad = static_cast<int64_t>(i);
      check.reason = why;
      return check;
    };
    if (r.index != i) return fail("index gap (a record was deleted or inserted)");
    if (r.hash_prev != previous) return fail("broken link (hash_prev does not match the previous record)");
    if (sha256_hex(canonical_text(r)) != r.hash) return fail("hash mismatch (the record was modified)");
    previous = r.hash;
  }
  return check;
}

}  // namespace gtw::audit
