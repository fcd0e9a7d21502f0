// findings.sarif: the leakage surface as SARIF 2.1.0 security findings, so code-scanning tools show
// each open channel at the scenario line whose sharing opens it. Stable rule ids (one per resource x
// relation, one per discrete kind) and partial fingerprints (the tenant pair) let tools de-duplicate
// findings across runs.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <set>

#include "ComplianceWriters.hpp"
#include "Writers.hpp"

namespace gtw {
namespace {

using json = nlohmann::ordered_json;

// MITRE ATLAS knowledge-base release the technique ids refer to (anchors.md).
constexpr const char* ATLAS_VERSION = "5.6.0";
// TCSEC covert-channel guideline (attacks.md section 4): above 100 bit/s a channel is "high
// bandwidth"; 1 bit/s or more must be audited.
constexpr double HIGH_BANDWIDTH_BPS = 100;
constexpr double AUDIT_BPS = 1;

std::string tenant(const ScenarioSpec& spec, int t) {
  return t >= 0 && static_cast<size_t>(t) < spec.tenants.size() ? spec.tenants[static_cast<size_t>(t)].name : "?";
}

std::string number(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

bool attack_succeeded(const ScenarioSpec& spec, const AttackResult& r) {
  if (r.workload < 0 || static_cast<size_t>(r.workload) >= spec.workloads.size()) return false;
  switch (spec.workloads[static_cast<size_t>(r.workload)].attack.type) {
    case AttackType::COVERT_CHANNEL:
      return r.achieved_bps > 0;
    case AttackType::PRIME_PROBE:
      return r.accuracy > 0;
    case AttackType::MODEL_EXTRACTION:
      return r.observations > 0;
    case AttackType::REMANENCE_SCRAPE:
      return r.bytes_recovered > 0;
    case AttackType::NOISY_NEIGHBOUR:
      return r.victim_p99_during_s > 1.1 * r.victim_p99_before_s;
    case AttackType::MPS_KILL:
      return r.victim_replicas_ended > 0;
    case AttackType::QUERY_EXTRACTION:
      return r.queries_answered > 0;
  }
  return false;
}

std::string findings_sarif(const ScenarioSpec& spec, const RunResult& run, const LeakageReport& l,
                           const std::string& tool_version, const ComplianceReport* compliance) {
  std::map<std::string, json> rules;  // by id, sorted
  json results = json::array();
  auto where = [&](const std::vector<int>& gpus, int fallback_gpu) {
    const int g = !gpus.empty() ? gpus.front() : fallback_gpu;
    if (g >= 0 && static_cast<size_t>(g) < run.gpus.size())
      return sarif_location(sharing_location(spec, run.gpus[static_cast<size_t>(g)]), spec.source_file);
    return sarif_location(SourceLoc{spec.source_file, 1, 1}, spec.source_file);
  };

  // A data exposure is opened by the scenario line that leaves the data readable: the source's network
  // policy entry (no encryption in transit, a shared segment), else the data item (plaintext network);
  // the data item's store line (plaintext storage). Other discrete kinds: the GPU's sharing line.
  auto data_where = [&](const DiscreteExposure& d) {
    const DataSpec* item = d.data >= 0 && static_cast<size_t>(d.data) < spec.data.size()
                               ? &spec.data[static_cast<size_t>(d.data)]
                               : nullptr;
    if (d.kind == DiscreteKind::PLAINTEXT_NETWORK) {
      for (const auto& p : spec.network_policies)
        if (p.tenant == tenant(spec, d.source) && p.loc.line > 0) return sarif_location(p.loc, spec.source_file);
      if (item && item->loc.line > 0) return sarif_location(item->loc, spec.source_file);
    } else if (d.kind == DiscreteKind::PLAINTEXT_STORAGE && item) {
      return sarif_location(item->store_loc.line > 0 ? item->store_loc : item->loc, spec.source_file);
    }
    if (d.kind == DiscreteKind::PLAINTEXT_NETWORK || d.kind == DiscreteKind::PLAINTEXT_STORAGE) {
      if (d.workload >= 0) return sarif_location(spec.workloads[static_cast<size_t>(d.workload)].loc, spec.source_file);
      return sarif_location(SourceLoc{spec.source_file, 1, 1}, spec.source_file);
    }
    return where({}, d.gpu);
  };

  for (const auto& c : l.channels) {
    if (c.state != channel::State::OPEN || c.bound_bits <= 0) continue;
    const std::string rule_id =
        std::string("GTW-LEAK-") + channel::resource_name(c.resource) + "-" + channel::mode_name(c.mode);
    const bool high = c.capacity_bps > HIGH_BANDWIDTH_BPS;
    const std::string level = high ? "error" : c.capacity_bps >= AUDIT_BPS ? "warning" : "note";
    if (!rules.count(rule_id)) {
      json tags = json::array({"security", "leakage", "covert-channel"});
      for (const auto& t : c.atlas) tags.push_back(t);
      std::string closers;
      for (const auto& x : c.closed_by) closers += (closers.empty() ? "" : ", ") + x;
      rules[rule_id] = {
          {"id", rule_id},
          {"name",
           std::string("LeakageChannel/") + channel::resource_name(c.resource) + "/" + channel::mode_name(c.mode)},
          {"shortDescription",
           {{"text", std::string("Open ") + channel::resource_description(c.resource) + " channel (" +
                         channel::mode_name(c.mode) + ")"}}},
          {"fullDescription", {{"text", c.reason}}},
          {"help", {{"text", "Closed by: " + (closers.empty() ? std::string("-") : closers)}}},
          {"helpUri", docs_uri("models/leakage.md")},
          {"properties",
           {{"tags", tags}, {"security-severity", high ? "7.5" : "5.0"}, {"atlas_version", ATLAS_VERSION}}}};
    }
    const std::string text = tenant(spec, c.observer) + " can learn up to " + number("%.4g", c.bound_bits) +
                             " bits about " + tenant(spec, c.source) + " through " +
                             channel::resource_description(c.resource) + " (" + channel::mode_name(c.mode) +
                             "): " + number("%.4g", c.exposure_s) + " s co-active x " + number("%.4g", c.capacity_bps) +
                             " bit/s (" + c.capacity_source + ")";
    json props = {{"observer", tenant(spec, c.observer)}, {"source", tenant(spec, c.source)},
                  {"exposure_s", c.exposure_s},           {"capacity_bps", c.capacity_bps},
                  {"bound_bits", c.bound_bits},           {"tags", c.atlas}};
    results.push_back(
        {{"ruleId", rule_id},
         {"level", level},
         {"message", {{"text", text}}},
         {"locations", json::array({where(c.gpus, -1)})},
         {"partialFingerprints",
          {{"leakagePair/v1", tenant(spec, c.observer) + "<-" + tenant(spec, c.source) + "/" +
                                  channel::resource_name(c.resource) + "/" + channel::mode_name(c.mode)}}},
         {"properties", props}});
  }

  for (const auto& d : l.discrete) {
    if (d.closed || d.bytes <= 0) continue;
    const bool memory = d.kind == DiscreteKind::UNSCRUBBED_MEMORY;
    const std::string rule_id = std::string("GTW-LEAK-") + discrete_kind_name(d.kind);
    const std::vector<std::string> atlas = {"AML.T0025", "AML.T0024.002"};
    if (!rules.count(rule_id)) {
      json tags = json::array({"security", "leakage"});
      for (const auto& t : atlas) tags.push_back(t);
      const char* what = memory ? "GPU memory handed to another tenant without a scrub"
                         : d.kind == DiscreteKind::PLAINTEXT_PCIE
                             ? "Plaintext host-device transfers on a node shared with another tenant"
                         : d.kind == DiscreteKind::PLAINTEXT_NETWORK
                             ? "Plaintext data on network links another tenant's flows also cross"
                             : "Data unencrypted at rest on a store another tenant may read";
      std::string closers;
      for (const auto& x : d.closed_by) closers += (closers.empty() ? "" : ", ") + x;
      rules[rule_id] = {
          {"id", rule_id},
          {"name", std::string("DiscreteExposure/") + discrete_kind_name(d.kind)},
          {"shortDescription", {{"text", what}}},
          {"fullDescription", {{"text", d.basis}}},
          {"help", {{"text", "Closed by: " + closers}}},
          {"helpUri", docs_uri(d.kind == DiscreteKind::PLAINTEXT_NETWORK || d.kind == DiscreteKind::PLAINTEXT_STORAGE
                                   ? "models/storage.md"
                                   : "models/leakage.md")},
          {"properties",
           {{"tags", tags}, {"security-severity", memory ? "8.0" : "7.0"}, {"atlas_version", ATLAS_VERSION}}}};
    }
    const std::string workload = d.data >= 0 && static_cast<size_t>(d.data) < spec.data.size()
                                     ? spec.data[static_cast<size_t>(d.data)].name
                                 : d.workload >= 0 ? spec.workloads[static_cast<size_t>(d.workload)].name
                                                   : std::string("?");
    const std::string text = tenant(spec, d.observer) + " can read " + format_bytes(Bytes(d.bytes)) + " of " +
                             tenant(spec, d.source) + "/" + workload + " (" + discrete_kind_name(d.kind) + "; " +
                             d.basis + ")";
    results.push_back({{"ruleId", rule_id},
                       {"level", "error"},
                       {"message", {{"text", text}}},
                       {"locations", json::array({data_where(d)})},
                       {"partialFingerprints",
                        {{"leakagePair/v1", tenant(spec, d.observer) + "<-" + tenant(spec, d.source) + "/" + workload +
                                                "/" + discrete_kind_name(d.kind)}}},
                       {"properties",
                        {{"observer", tenant(spec, d.observer)},
                         {"source", tenant(spec, d.source)},
                         {"bytes", d.bytes},
                         {"tags", atlas}}}});
  }

  // The identity channel (docs/models/identity.md): each path by which a principal of one tenant reaches
  // another tenant's data or secrets is a finding, at the identity edge that replaced the caller's identity
  // (the confused deputy) or else at the principal's entry. It carries no bytes, so the loop above skips it.
  for (const auto& p : l.identity_paths) {
    const std::string rule_id = "GTW-LEAK-identityPath";
    if (!rules.count(rule_id))
      rules[rule_id] = {
          {"id", rule_id},
          {"name", "DiscreteExposure/identityPath"},
          {"shortDescription",
           {{"text", "A principal reaches another tenant's data or secrets through the identity graph"}}},
          {"fullDescription",
           {{"text",
             "Calls and grants in spec.identity let the path's effective identity read or use the target; "
             "a hop that replaces the caller's identity with a broader service identity is a confused deputy."}}},
          {"help", {{"text", "Closed by: passthrough or token exchange instead of replace, narrower grants"}}},
          {"helpUri", docs_uri("models/identity.md")},
          {"properties",
           {{"tags", json::array({"security", "leakage", "identity", "AML.T0025", "LLM03:2026"})},
            {"security-severity", "7.5"},
            {"atlas_version", ATLAS_VERSION}}}};
    SourceLoc loc;
    for (size_t h = 0; h + 1 < p.hops.size() && loc.line <= 0; ++h)
      for (const auto& e : spec.identity.edges)
        if (e.from == p.hops[h] && e.to == p.hops[h + 1] && e.propagation == Propagation::REPLACE) {
          loc = e.loc;
          break;
        }
    for (const auto& pr : spec.identity.principals)
      if (loc.line <= 0 && pr.name == p.principal) loc = pr.loc;
    std::string chain;
    for (const auto& h : p.hops) chain += (chain.empty() ? "" : " -> ") + h;
    const std::string text = tenant(spec, p.observer_tenant) + "'s " + p.principal + " reaches " +
                             tenant(spec, p.source_tenant) + "'s " + p.target_kind + " " + p.target + " (" + p.action +
                             ") as " + p.effective_identity + ": " + chain +
                             (p.confused_deputy ? " (confused deputy)" : "");
    results.push_back({{"ruleId", rule_id},
                       {"level", p.confused_deputy ? "error" : "warning"},
                       {"message", {{"text", text}}},
                       {"locations", json::array({sarif_location(loc, spec.source_file)})},
                       {"partialFingerprints",
                        {{"leakagePair/v1", tenant(spec, p.observer_tenant) + "<-" + tenant(spec, p.source_tenant) +
                                                "/" + p.principal + "/" + p.target + "/identityPath"}}},
                       {"properties",
                        {{"observer", tenant(spec, p.observer_tenant)},
                         {"source", tenant(spec, p.source_tenant)},
                         {"confused_deputy", p.confused_deputy},
                         {"hops", p.hops},
                         {"tags", json::array({"AML.T0025", "LLM03:2026"})}}}});
  }

  // Attacks replayed in the simulation: one result each, at the attack's line in the scenario. An attack
  // that achieved something is an error; one the design stopped is a note.
  for (const auto& r : l.attacks) {
    const auto& ws = spec.workloads[static_cast<size_t>(r.workload)];
    const std::string rule_id = "GTW-ATTACK-" + r.type;
    std::vector<std::string> atlas;
    switch (ws.attack.type) {
      case AttackType::COVERT_CHANNEL:
        atlas = {"AML.T0025"};
        break;
      case AttackType::PRIME_PROBE:
        atlas = {"AML.T0014"};
        break;
      case AttackType::MODEL_EXTRACTION:
        atlas = {"AML.T0024.002"};
        break;
      case AttackType::REMANENCE_SCRAPE:
        atlas = {"AML.T0025", "AML.T0024.002"};
        break;
      case AttackType::NOISY_NEIGHBOUR:
      case AttackType::MPS_KILL:
        atlas = {"AML.T0029"};
        break;
      case AttackType::QUERY_EXTRACTION:
        atlas = {"AML.T0040", "AML.T0024.002"};  // AI model inference API access; extract AI model
        break;
    }
    const bool success = attack_succeeded(spec, r);
    if (!rules.count(rule_id)) {
      json tags = json::array({"security", "attack-replay"});
      for (const auto& t : atlas) tags.push_back(t);
      rules[rule_id] = {
          {"id", rule_id},
          {"name", "AttackReplay/" + r.type},
          {"shortDescription", {{"text", "Attack replayed in the simulation: " + r.type}}},
          {"fullDescription",
           {{"text",
             "An attacker workload ran this attack against the design (docs/models/leakage.md, "
             "\"Attack replay\")."}}},
          {"help",
           {{"text",
             "Closed by the isolation that removes the attack's channel or access (a MIG instance or a dedicated "
             "GPU, confidential computing, scrubbing freed memory); the result says whether the replay succeeded "
             "against this design."}}},
          {"helpUri", docs_uri("models/leakage.md")},
          {"properties", {{"tags", tags}, {"security-severity", "8.0"}, {"atlas_version", ATLAS_VERSION}}}};
    }
    const SourceLoc loc = ws.attack.loc.line > 0 ? ws.attack.loc : ws.loc;
    results.push_back({{"ruleId", rule_id},
                       {"level", success ? "error" : "note"},
                       {"message",
                        {{"text", r.name + " (" + r.attacker + " <- " +
                                      (r.victim.empty() ? std::string("-") : r.victim) + "): " + r.outcome}}},
                       {"locations", json::array({sarif_location(loc, spec.source_file)})},
                       {"partialFingerprints", {{"attack/v1", r.name + "/" + r.type}}},
                       {"properties",
                        {{"attacker", r.attacker},
                         {"victim", r.victim},
                         {"resource", r.resource},
                         {"relation", r.relation},
                         {"bound_bps", r.bound_bps},
                         {"within_bound", r.within_bound},
                         {"tags", atlas}}}});
  }

  if (compliance && compliance->configured) compliance_sarif(spec, *compliance, rules, results);

  json rule_list = json::array();
  for (auto& [id, r] : rules) rule_list.push_back(std::move(r));
  json root;
  // The OASIS schema of SARIF 2.1.0 (errata 01), the one the output is validated against
  // (tests/fixtures/schemas/sarif-schema-2.1.0.json).
  root["$schema"] = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
  root["version"] = "2.1.0";
  root["runs"] = json::array({{{"tool",
                                {{"driver",
                                  {{"name", "gputwin"},
                                   {"version", tool_version},
                                   {"informationUri", docs_uri("cli.md")},
                                   {"rules", rule_list}}}}},
                               {"automationDetails", {{"id", "gputwin/leakage/" + spec.name + "/"}}},
                               {"properties",
                                {{"scenario", spec.name},
                                 {"seed", spec.seed},
                                 {"total_bits", l.total_bits},
                                 {"total_bytes", l.total_bytes},
                                 {"atlas_version", ATLAS_VERSION}}},
                               {"results", results}}});
  return root.dump(2) + "\n";
}

}  // namespace gtw
