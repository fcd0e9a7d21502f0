// audit.jsonl: the audit records one per line (docs/models/audit.md, "Outputs"), and the reader
// `gputwin audit verify` uses.
#include <nlohmann/json.hpp>

#include <sstream>

#include "sim/report/AuditWriters.hpp"
#include "sim/report/Writers.hpp"

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

bool parse_audit_jsonl(const std::string& text, std::vector<audit::AuditRecord>& out, std::string& error) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto fail = [&](const std::string& what) {
      error = std::to_string(number) + ": " + what;
      return false;
    };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      return fail(std::string("not JSON (") + e.what() + ")");
    }
    if (!j.is_object()) return fail("expected a JSON object");
    audit::AuditRecord r;
    try {
      const auto get = [&](const char* key) -> const nlohmann::json& {
        if (!j.contains(key)) throw std::runtime_error(std::string("missing key '") + key + "'");
        return j.at(key);
      };
      const auto& index = get("index");
      if (!index.is_number_unsigned()) throw std::runtime_error("'index' must be a non-negative integer");
      r.index = index.get<uint64_t>();
      const auto integer = [&](const char* key) {
        const auto& v = get(key);
        if (!v.is_number_integer()) throw std::runtime_error(std::string("'") + key + "' must be an integer");
        return v.get<int64_t>();
      };
      const auto number_of = [&](const char* key) {
        const auto& v = get(key);
        if (!v.is_number()) throw std::runtime_error(std::string("'") + key + "' must be a number");
        return v.get<double>();
      };
      const auto string_of = [&](const char* key) {
        const auto& v = get(key);
        if (!v.is_string()) throw std::runtime_error(std::string("'") + key + "' must be a string");
        return v.get<std::string>();
      };
      r.event_seq = integer("event_seq");
      r.t_event = number_of("t_event");
      r.t_written = number_of("t_written");
      r.type = string_of("type");
      r.principal = string_of("principal");
      r.tenant = static_cast<int>(integer("tenant"));
      r.owner = static_cast<int>(integer("owner"));
      r.resource = string_of("resource");
      r.source = string_of("source");
      r.location = string_of("location");
      r.outcome = string_of("outcome");
      r.hash_prev = string_of("hash_prev");
      r.hash = string_of("hash");
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    out.push_back(std::move(r));
  }
  return true;
}

}  // namespace gtw
