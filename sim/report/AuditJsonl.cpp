// audit.jsonl: the audit records one per line (docs/models/audit.md, "Outputs"), and the reader
// `gputwin audit verify` uses.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "AtomicFile.hpp"
#include "AuditWriters.hpp"
#include "Diagnostics.hpp"
#include "StrictJson.hpp"

namespace gtw {

bool audit_applies(const ScenarioSpec& spec) {
  return !spec.data.empty() || spec.identity.loc.line > 0 || spec.audit.loc.line > 0;
}

std::string audit_jsonl(const audit::AuditLog& log) {
  std::string out;
  for (const auto& r : log.records) {
    nlohmann::ordered_json j;
    j["index"] = r.index;
    j["event_seq"] = r.event_seq;
    j["t_event"] = r.t_event;  // shortest round-trip form: re-parsing gives the same double (and hash)
    j["t_written"] = r.t_written;
    j["type"] = r.type;
    j["principal"] = r.principal;
    j["tenant"] = r.tenant;
    j["owner"] = r.owner;
    j["resource"] = r.resource;
    j["source"] = r.source;
    j["location"] = r.location;
    j["outcome"] = r.outcome;
    j["hash_prev"] = r.hash_prev;
    j["hash"] = r.hash;
    out += j.dump();
    out += '\n';
  }
  return out;
}

void write_audit_jsonl(const std::string& path, const audit::AuditLog& log) {
  write_file_atomic(path, audit_jsonl(log));
}

namespace {

// The fields of a record, each exactly once: the hash chain covers these and nothing else, so a field
// it does not cover (an extra key, a second value under a repeated key) would be tampering it cannot see.
const std::vector<std::string>& audit_fields() {
  static const std::vector<std::string> fields{"index",     "event_seq", "t_event",   "t_written", "type",
                                               "principal", "tenant",    "owner",     "resource",  "source",
                                               "location",  "outcome",   "hash_prev", "hash"};
  return fields;
}

constexpr size_t MAX_AUDIT_STRING = 4096;
constexpr int64_t MAX_TENANT_INDEX = 1'000'000;  // tenant and owner: -1 (none) or an index of spec.tenants

bool is_sha256_hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Parses one line; throws std::runtime_error with the problem.
audit::AuditRecord parse_audit_record(const std::string& line) {
  // Strict: a repeated key (nlohmann keeps its last value) is a second value the chain does not cover.
  const nlohmann::json j = parse_json_strict(line);
  if (!j.is_object()) throw std::runtime_error("expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    const auto& fields = audit_fields();
    if (std::find(fields.begin(), fields.end(), key) == fields.end())
      throw std::runtime_error("unknown field '" + key + "': the hash chain does not cover it" + suggest(key, fields));
  }
  const auto get = [&](const char* key) -> const nlohmann::json& {
    if (!j.contains(key)) throw std::runtime_error(std::string("missing key '") + key + "'");
    return j.at(key);
  };
  const auto integer = [&](const char* key, int64_t min, int64_t max) {
    const auto& v = get(key);
    if (!v.is_number_integer()) throw std::runtime_error(std::string("'") + key + "' must be an integer");
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max))
      throw std::runtime_error(std::string("'") + key + "' must be at most " + std::to_string(max));
    const auto x = v.get<int64_t>();
    if (x < min || x > max)
      throw std::runtime_error(std::string("'") + key + "' must be between " + std::to_string(min) + " and " +
                               std::to_string(max));
    return x;
  };
  const auto time_of = [&](const char* key) {
    const auto& v = get(key);
    if (!v.is_number()) throw std::runtime_error(std::string("'") + key + "' must be a number");
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || x > 1e12)
      throw std::runtime_error(std::string("'") + key + "' must be a time in simulated seconds (0 to 1e12)");
    return x;
  };
  const auto string_of = [&](const char* key) {
    const auto& v = get(key);
    if (!v.is_string()) throw std::runtime_error(std::string("'") + key + "' must be a string");
    auto s = v.get<std::string>();
    if (s.size() > MAX_AUDIT_STRING)
      throw std::runtime_error(std::string("'") + key + "' is longer than " + std::to_string(MAX_AUDIT_STRING) +
                               " bytes");
    for (unsigned char c : s)
      if (c < 0x20 || c == 0x7f) throw std::runtime_error(std::string("'") + key + "' holds a control character");
    return s;
  };
  audit::AuditRecord r;
  r.index = static_cast<uint64_t>(integer("index", 0, INT64_MAX));
  r.event_seq = integer("event_seq", -1, INT64_MAX);
  r.t_event = time_of("t_event");
  r.t_written = time_of("t_written");
  r.type = string_of("type");
  r.principal = string_of("principal");
  r.tenant = static_cast<int>(integer("tenant", -1, MAX_TENANT_INDEX));
  r.owner = static_cast<int>(integer("owner", -1, MAX_TENANT_INDEX));
  r.resource = string_of("resource");
  r.source = string_of("source");
  r.location = string_of("location");
  r.outcome = string_of("outcome");
  r.hash_prev = string_of("hash_prev");
  r.hash = string_of("hash");
  if (!r.hash_prev.empty() && !is_sha256_hex(r.hash_prev))
    throw std::runtime_error("'hash_prev' must be empty (first record) or 64 lower-case hex digits");
  if (!is_sha256_hex(r.hash)) throw std::runtime_error("'hash' must be 64 lower-case hex digits (SHA-256)");
  return r;
}

}  // namespace

bool parse_audit_jsonl(const std::string& text, std::vector<audit::AuditRecord>& out, std::string& error) {
  int number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.push_back(parse_audit_record(line));
    } catch (const std::exception& e) {
      error = std::to_string(number) + ": error: " + e.what();
      return false;
    }
  }
  return true;
}

}  // namespace gtw
