// spec.compliance and workloads[].secrets (docs/models/compliance.md): the rules in force (a Kyverno-like
// shape: name, rule, action, match, parameters, requirements) and the recorded transfer bases.
#include <charconv>

#include "LoaderInternal.hpp"

namespace gtw {

namespace {

const std::vector<std::string>& compliance_action_names() {
  static const std::vector<std::string> names{"enforce", "audit"};
  return names;
}

const std::vector<std::string>& transfer_mechanism_names() {
  static const std::vector<std::string> names{"adequacy", "SCC", "BCR", "Art49"};
  return names;
}

// A scalar parameter: a number, a bool, else a string (as spec.policies.placement.params).
ParamValue scalar_param(const std::string& s) {
  double number = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec == std::errc() && ptr == s.data() + s.size()) return number;
  if (s == "true" || s == "false") return s == "true";
  return s;
}

}  // namespace

// A transfer's mechanism (required): one of adequacy, SCC, BCR, Art49.
void Loader::read_mechanism(const Ctx& c, std::string& mechanism) {
  get_string(c, "mechanism", mechanism, true);
  const auto& names = transfer_mechanism_names();
  if (auto m = child(c, "mechanism"))
    if (!mechanism.empty() && std::find(names.begin(), names.end(), mechanism) == names.end())
      d_.error(m->loc(), m->path, "unknown transfer mechanism '" + mechanism + "'" + suggest(mechanism, names));
}

void Loader::read_compliance(const Ctx& c, ComplianceSpec& cs) {
  cs.loc = c.loc();
  if (!check_map(c)) return;
  if (auto rules = child(c, "rules")) {
    for (const auto& item : items(*rules)) {
      ComplianceRuleSpec r;
      read_compliance_rule(item, r);
      cs.rules.push_back(std::move(r));
    }
  }
  if (auto transfers = child(c, "transfers")) {
    for (const auto& item : items(*transfers)) {
      TransferBasisSpec t;
      t.loc = item.loc();
      if (check_map(item)) {
        get_string(item, "data", t.data, true);
        get_string(item, "toRegion", t.to_region, true);
        read_mechanism(item, t.mechanism);
        get_quantity(item, "at", t.at, parse_duration, false, false);
      }
      cs.transfers.push_back(std::move(t));
    }
  }
  if (auto erasures = child(c, "erasures")) {
    static const std::vector<std::string> classes{"store", "localNvme", "host", "gpu"};
    for (const auto& item : items(*erasures)) {
      ErasureRequestSpec e;
      e.loc = item.loc();
      if (check_map(item)) {
        get_string(item, "data", e.data, true);
        get_quantity(item, "at", e.at, parse_duration, true, false);
        get_quantity(item, "completedAfter", e.completed_after, parse_duration, false, false);
        if (auto scope = child(item, "scope")) {
          for (const auto& s : items(*scope)) {
            std::string name;
            if (!scalar(s, name, "a location class (store, localNvme, host or gpu)")) continue;
            if (std::find(classes.begin(), classes.end(), name) == classes.end())
              d_.error(s.loc(), s.path, "unknown location class '" + name + "'" + suggest(name, classes));
            else
              e.scope.push_back(name);
          }
        }
      }
      cs.erasures.push_back(std::move(e));
    }
  }
  if (auto records = child(c, "processingRecords")) read_processing_records(*records, cs);
}

void Loader::read_processing_records(const Ctx& c, ComplianceSpec& cs) {
  for (const auto& item : items(c)) {
    ProcessingRecordSpec r;
    r.loc = item.loc();
    if (check_map(item)) {
      get_string(item, "name", r.name, true);
      get_string(item, "tenant", r.tenant, true);
      read_string_list(item, "purposes", r.purposes);
      read_string_list(item, "categories", r.categories);
      read_string_list(item, "recipients", r.recipients);
      if (auto transfers = child(item, "transfers")) {
        for (const auto& t : items(*transfers)) {
          RecordedTransferSpec rt;
          rt.loc = t.loc();
          if (!check_map(t)) continue;
          get_string(t, "toRegion", rt.to_region, true);
          read_mechanism(t, rt.mechanism);
          r.transfers.push_back(std::move(rt));
        }
      }
    }
    cs.processing_records.push_back(std::move(r));
  }
}

void Loader::read_compliance_rule(const Ctx& c, ComplianceRuleSpec& r) {
  r.loc = c.loc();
  if (!check_map(c)) return;
  get_string(c, "name", r.name, true);
  get_string(c, "rule", r.rule, true);
  if (auto x = child(c, "rule")) r.rule_loc = x->loc();
  get_enum(c, "action", r.action, compliance_action_names(), false);
  if (auto x = child(c, "action")) r.action_loc = x->loc();
  if (auto m = child(c, "match")) {
    r.match.loc = m->loc();
    if (check_map(*m)) {
      read_string_list(*m, "tenants", r.match.tenants);
      read_string_list(*m, "classifications", r.match.classifications);
      read_string_list(*m, "data", r.match.data);
    }
  }
  if (auto params = child(c, "parameters")) {
    if (expect_map(*params)) {
      for (const auto& kv : params->node) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const Ctx value{kv.second, params->file, params->path + "." + key, "", {}, params->loc()};
        if (r.param_locs.count(key)) {
          d_.error(value.loc(), value.path,
                   "duplicate key '" + key + "' (first at line " + std::to_string(r.param_locs[key].line) + ")");
          continue;
        }
        r.param_locs[key] = value.loc();
        if (kv.second.IsSequence()) {
          // A list parameter (allowedRegions, acceptedMechanisms ...): its items joined with ','.
          std::string joined;
          for (const auto& item : items(value)) {
            std::string s;
            if (!scalar(item, s, "a name")) continue;
            if (s.find(',') != std::string::npos) {
              d_.error(item.loc(), item.path, "list items may not contain ','");
              continue;
            }
            joined += (joined.empty() ? "" : ",") + s;
          }
          r.params[key] = joined;
          continue;
        }
        std::string s;
        if (!scalar(value, s, "a number, bool, string or list of strings")) continue;
        r.params[key] = scalar_param(s);
      }
    }
  }
  read_string_list(c, "requirements", r.requirements);
}

void Loader::read_workload_secrets(const Ctx& c, WorkloadSpec& w) {
  if (auto s = child(c, "secrets")) {
    w.secrets_loc = s->loc();
    read_string_list(c, "secrets", w.secrets);
  }
}

}  // namespace gtw
