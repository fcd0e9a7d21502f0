// Reference checks of spec.compliance and workloads[].secrets (names that need only the spec). The rule
// names and parameters are checked against the rule registry by check_compliance_rules
// (policies/compliance, called by prepare_scenario), which gtw_scenario cannot link.
#include <algorithm>
#include <map>
#include <set>

#include "Loader.hpp"
#include "Text.hpp"

namespace gtw {

void check_compliance_references(const ScenarioSpec& spec, Diagnostics& diags) {
  std::vector<std::string> tenants, data, secrets;
  for (const auto& t : spec.tenants) tenants.push_back(t.name);
  for (const auto& d : spec.data) data.push_back(d.name);
  for (const auto& s : spec.identity.secrets) secrets.push_back(s.name);
  std::vector<std::string> classes;
  for (const auto& c : classification_names()) classes.push_back(lower(c));

  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < spec.compliance.rules.size(); ++i) {
    const auto& r = spec.compliance.rules[i];
    const std::string path = "spec.compliance.rules[" + std::to_string(i) + "]";
    if (!r.name.empty()) {
      auto [it, inserted] = seen.emplace(r.name, i);
      if (!inserted)
        diags.error(r.loc, path + ".name",
                    "duplicate rule name '" + r.name + "' (first used by spec.compliance.rules[" +
                        std::to_string(it->second) + "])");
    }
    const SourceLoc at = r.match.loc.line > 0 ? r.match.loc : r.loc;
    for (const auto& t : r.match.tenants)
      if (!contains(tenants, t))
        diags.error(at, path + ".match.tenants", "no tenant named '" + t + "'" + suggest(t, tenants));
    for (const auto& d : r.match.data)
      if (!contains(data, d))
        diags.error(at, path + ".match.data", "no data item named '" + d + "'" + suggest(d, data));
    for (const auto& c : r.match.classifications)
      if (!contains(classes, lower(c)))
        diags.error(at, path + ".match.classifications", "unknown classification '" + c + "'" + suggest(c, classes));
  }
  for (size_t i = 0; i < spec.compliance.transfers.size(); ++i) {
    const auto& t = spec.compliance.transfers[i];
    if (!t.data.empty() && !contains(data, t.data) && !contains(tenants, t.data)) {
      std::vector<std::string> both = data;
      both.insert(both.end(), tenants.begin(), tenants.end());
      diags.error(t.loc, "spec.compliance.transfers[" + std::to_string(i) + "].data",
                  "no data item or tenant named '" + t.data + "'" + suggest(t.data, both));
    }
  }
  for (size_t i = 0; i < spec.compliance.erasures.size(); ++i) {
    const auto& e = spec.compliance.erasures[i];
    if (!e.data.empty() && !contains(data, e.data))
      diags.error(e.loc, "spec.compliance.erasures[" + std::to_string(i) + "].data",
                  "no data item named '" + e.data + "'" + suggest(e.data, data));
  }
  std::set<std::string> record_names;
  for (size_t i = 0; i < spec.compliance.processing_records.size(); ++i) {
    const auto& r = spec.compliance.processing_records[i];
    const std::string path = "spec.compliance.processingRecords[" + std::to_string(i) + "]";
    if (!r.name.empty() && !record_names.insert(r.name).second)
      diags.error(r.loc, path + ".name", "duplicate record name '" + r.name + "'");
    if (!r.tenant.empty() && !contains(tenants, r.tenant))
      diags.error(r.loc, path + ".tenant", "no tenant named '" + r.tenant + "'" + suggest(r.tenant, tenants));
    for (const auto& t : r.recipients)
      if (!contains(tenants, t))
        diags.error(r.loc, path + ".recipients", "no tenant named '" + t + "'" + suggest(t, tenants));
  }
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto& w = spec.workloads[i];
    for (const auto& s : w.secrets)
      if (!contains(secrets, s))
        diags.error(w.secrets_loc.line > 0 ? w.secrets_loc : w.loc, "spec.workloads[" + std::to_string(i) + "].secrets",
                    "no secret named '" + s + "' in spec.identity.secrets" + suggest(s, secrets));
  }
}

}  // namespace gtw
