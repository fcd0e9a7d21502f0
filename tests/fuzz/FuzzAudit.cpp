// Fuzz target: the audit log reader (sim/report/AuditWriters.hpp, parse_audit_jsonl) and what
// `gputwin audit verify` does with its records (the hash chain). A parsed log must also round-trip:
// written back with audit_jsonl and read again, it gives the same records. A malformed line is a clean
// outcome (false with a "<line>: <what>" error); any exception escapes (a finding).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "AuditLog.hpp"
#include "AuditWriters.hpp"
#include "Errors.hpp"
#include "FuzzSupport.hpp"

namespace {

bool same(const gtw::audit::AuditRecord& a, const gtw::audit::AuditRecord& b) {
  return a.index == b.index && a.event_seq == b.event_seq && a.t_event == b.t_event && a.t_written == b.t_written &&
         a.type == b.type && a.principal == b.principal && a.tenant == b.tenant && a.owner == b.owner &&
         a.resource == b.resource && a.source == b.source && a.location == b.location && a.outcome == b.outcome &&
         a.hash_prev == b.hash_prev && a.hash == b.hash;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<gtw::audit::AuditRecord> records;
    std::string error;
    if (!gtw::parse_audit_jsonl(text, records, error)) {
      GTW_FUZZ_CHECK(!error.empty());
      return 0;
    }
    const auto check = gtw::audit::verify_chain(records);
    GTW_FUZZ_CHECK(check.intact == (check.first_bad < 0));
    GTW_FUZZ_CHECK(check.first_bad < static_cast<int64_t>(records.size()));
    for (const auto& r : records) {
      (void)gtw::audit::canonical_text(r);
      // JSON has no NaN or infinity: a non-finite time cannot be written back, so the round trip stops here.
      if (!std::isfinite(r.t_event) || !std::isfinite(r.t_written)) return 0;
    }
    gtw::audit::AuditLog log;
    log.records = records;
    const std::string again = gtw::audit_jsonl(log);
    std::vector<gtw::audit::AuditRecord> back;
    GTW_FUZZ_CHECK(gtw::parse_audit_jsonl(again, back, error));
    GTW_FUZZ_CHECK(back.size() == records.size());
    for (size_t i = 0; i < back.size(); ++i) GTW_FUZZ_CHECK(same(back[i], records[i]));
    GTW_FUZZ_CHECK(gtw::audit::verify_chain(back).intact == check.intact);
  } catch (const gtw::InputError&) {
    // a located input error: clean
  }
  return 0;
}
