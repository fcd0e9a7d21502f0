#pragma once
// The scenario loader's reader class, shared by the files that read sections of the scenario
// (Loader.cpp, LoadIdentity.cpp, ...). Internal to gtw_scenario: use load_scenario() (Loader.hpp).
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Loader.hpp"
#include "Scenario.hpp"

namespace gtw {

// A YAML node with where it came from: file, YAML path (index form and name form), include chain.
struct Ctx {
  YAML::Node node;
  std::string file;
  std::string path;      // spec.workloads[2].arrival
  std::string alt_path;  // spec.workloads[chat-svc].arrival (names instead of indices)
  std::vector<std::string> chain;
  SourceLoc fallback;
  // A YAML document parsed from a string inside another file (a ConfigMap's data value): where its
  // first line and column are in that file. `pinned`: the string is not a literal block, so lines do
  // not map; every location is the string's own (fallback).
  int line_offset = 0;
  int col_offset = 0;
  bool pinned = false;

  SourceLoc loc() const {
    const YAML::Mark m = node.Mark();
    if (file == "--set" || pinned || m.is_null() || m.line < 0) return fallback;
    return SourceLoc{file, m.line + 1 + line_offset, m.column + 1 + col_offset};
  }
  /// A node below this one (same file, same embedding).
  Ctx below(const YAML::Node& n, std::string p, std::string alt, SourceLoc fb) const {
    Ctx c{n, file, std::move(p), std::move(alt), chain, std::move(fb)};
    c.line_offset = line_offset;
    c.col_offset = col_offset;
    c.pinned = pinned;
    return c;
  }
};

struct OverrideSlot {
  std::string value;
  bool used = false;
};

class Loader {
 public:
  Loader(Diagnostics& diags, const std::vector<Override>& overrides) : d_(diags) {
    for (const auto& o : overrides) overrides_[o.path] = OverrideSlot{o.value, false};
  }

  ScenarioSpec load(const std::string& path);

 private:
  Diagnostics& d_;
  std::map<std::string, OverrideSlot> overrides_;
  std::set<std::string> included_;
  size_t nodes_visited_ = 0;
  uintmax_t total_bytes_ = 0;  // main file and every $ref include, each time it is read
  static constexpr uintmax_t MAX_TOTAL_BYTES = 8 * MAX_SCENARIO_BYTES;
  // Mappings and list items walked. A legitimate 8 MiB file stays well below; YAML aliases can make a
  // small file expand to far more, and each visit costs microseconds.
  static constexpr size_t MAX_NODES = 500'000;
  bool mig_from_file_ = false;  // the node pool being read takes its MIG layout from topology.mig

  // ---- files and references ----
  std::optional<YAML::Node> read_yaml_file(const std::string& file, const SourceLoc& from, const std::string& path,
                                           std::string* sha256 = nullptr);
  // Every non-empty document of a file (a Kubernetes multi-document stream); `text` gets the file's text.
  std::optional<std::vector<YAML::Node>> read_yaml_documents(const std::string& file, const SourceLoc& from,
                                                             const std::string& path, std::string* sha256,
                                                             std::string* text);
  std::optional<Ctx> resolve(Ctx c);
  std::optional<Ctx> child(const Ctx& parent, const std::string& key);
  /// The `--set` value given for `path` (or its named form `alt`), marked used; `found` says whether there is
  /// one (an invalid value is reported and gives nullopt with `found` true).
  std::optional<Ctx> override_value(const Ctx& parent, const std::string& path, const std::string& alt, bool& found);
  std::vector<Ctx> items(const Ctx& list);

  // ---- shape checks ----
  bool expect_map(const Ctx& c);
  bool expect_list(const Ctx& c);
  bool check_map(const Ctx& c);  // mapping + only known keys

  // ---- scalars ----
  bool scalar(const Ctx& c, std::string& out, const char* what);
  bool check_name(const Ctx& c, const std::string& name);
  void get_string(const Ctx& parent, const std::string& key, std::string& out, bool required);
  // Numbers are checked against their documented range (FieldDocs.cpp, field_ranges()).
  bool in_schema_range(const Ctx& c, double value, const std::string& text, bool quoted);
  std::optional<long long> read_integer(const Ctx& parent, const std::string& key, bool required,
                                        std::optional<Ctx>& at, std::string& text);
  void get_int(const Ctx& parent, const std::string& key, int& out, bool required);
  // For fields outside the schema (a verbatim device-plugin config): an explicit range.
  void get_int_in(const Ctx& parent, const std::string& key, int& out, bool required, long long min, long long max);
  void get_uint64(const Ctx& parent, const std::string& key, uint64_t& out);
  void get_number(const Ctx& parent, const std::string& key, double& out, bool required);
  template <class Enum>
  void get_enum(const Ctx& parent, const std::string& key, Enum& out, const std::vector<std::string>& names,
                bool required);
  template <class Q, class ParseFn>
  void get_quantity(const Ctx& parent, const std::string& key, Q& out, ParseFn parse, bool required, bool positive);
  void missing(const Ctx& parent, const std::string& key);

  // ---- sections ----
  void read_metadata(const Ctx& c, ScenarioSpec& spec);
  void read_spec(const Ctx& c, ScenarioSpec& spec);
  void read_node_pool(const Ctx& c, NodePoolSpec& pool);
  void read_sharing_fields(const Ctx& c, SharingSpec& sharing);
  void read_mig_layout(const Ctx& layout, std::vector<std::string>& out);
  void read_device_plugin_config(const Ctx& c, SharingSpec& sharing, DevicePluginSpec* plugin = nullptr);
  // ---- Kubernetes and NVIDIA files (LoadK8s.cpp) ----
  struct K8sFile {
    std::string file;
    std::string text;
    std::vector<Ctx> documents;  // each with its kind's reader still to apply
  };
  std::optional<K8sFile> read_k8s_file(const Ctx& sel, const std::string& key);
  void read_node_labels(const Ctx& sel, const Ctx& pool_ctx, NodePoolSpec& pool);
  std::optional<Ctx> embedded_document(const Ctx& value, const std::string& file_text, const char* what);
  std::optional<Ctx> select_config_map_data(const Ctx& sel, const K8sFile& f, const std::string& config,
                                            const Ctx* config_ctx, const char* what,
                                            const std::function<bool(const Ctx&)>& accepts, std::string& chosen);
  void allow_keys(const Ctx& m, const std::vector<std::string>& keys, const char* in);
  void read_device_plugin_resources(const Ctx& mode, SharingSpec& sharing, DevicePluginSpec& dp);
  void read_shared_mig_resource(const Ctx& name_ctx, const std::string& profile, int replicas,
                                const SharingSpec& sharing, DevicePluginSpec& dp);
  void read_device_plugin_selection(const Ctx& c, NodePoolSpec& pool);
  void read_mig_config(const Ctx& c, NodePoolSpec& pool);
  void read_mig_parted(const Ctx& doc, const Ctx& sel, MigConfigSpec& out);
  bool read_mig_parted_entry(const Ctx& item, MigPartedEntry& e);
  void read_device_filter(const Ctx& filter, std::vector<std::string>& out);
  // ---- OpenSLO v1 SLO/SLI documents as a tenant's SLOs (LoadOpenSlo.cpp) ----
  struct TwinMetric {  // the twin metric an OpenSLO indicator is mapped to
    bool known = false;
    SloKind kind = SloKind::LATENCY;
    double percentile = -1;  // < 0: per event (the budget's target or timeSliceTarget sets it)
    double unit = 1;         // seconds per unit of `value` (duration metrics)
    bool ratio = false;      // ratioMetric: good/total
    std::string workload;
    std::string source;  // for messages: where the mapping came from
  };
  void read_openslo(const Ctx& sel, std::vector<SloSpec>& out);
  std::vector<Ctx> openslo_documents(const K8sFile& f);
  std::optional<Ctx> openslo_indicator(const Ctx& slo_spec, const std::vector<Ctx>& docs);
  void read_openslo_mapping(const Ctx& sel, TwinMetric& m);
  void read_openslo_time_window(const Ctx& spec, SloSpec& proto);
  bool read_openslo_budgeting(const Ctx& spec, std::string& budgeting);
  bool read_openslo_sli(const Ctx& sli_spec, const Ctx& sel, TwinMetric& m);
  bool read_metric_source(const Ctx& holder, TwinMetric& m, const char* side);
  bool read_prometheus_query(const Ctx& query, TwinMetric& m);
  bool read_gputwin_source(const Ctx& spec, TwinMetric& m);
  bool openslo_number(const Ctx& parent, const std::string& key, double& out, double min, double max);
  std::optional<Seconds> openslo_duration(const Ctx& c);
  void read_openslo_objective(const Ctx& obj, const std::string& budgeting, const TwinMetric& m, SloSpec& slo);
  void openslo_bound(const Ctx& obj, const TwinMetric& m, SloSpec& slo);
  // ---- Kueue ResourceFlavor/ClusterQueue/LocalQueue/Cohort as a tenant's quota (LoadKueue.cpp) ----
  void read_kueue_quota(const Ctx& sel, TenantSpec& t);
  void read_cluster_queue(const Ctx& cq, const std::vector<Ctx>& docs, TenantSpec& t);
  void read_native_quota(const Ctx& quota, TenantSpec& t);
  void read_kueue_preemption(const Ctx& p, QuotaPreemptionSpec& out);
  void read_queueing_strategy(const Ctx& holder, TenantSpec& t);
  void read_priority_class(const Ctx& doc, PriorityClasses& classes);
  bool read_int32(const Ctx& holder, const char* key, int& out, bool required);
  void read_priority_classes_file(const Ctx& sel, PriorityClasses& classes);
  void read_fair_sharing(const Ctx& holder, FairSharingSpec& out);
  void read_kueue_configuration(const Ctx& doc, FairSharingSpec& out);
  void read_kueue_configuration_file(const Ctx& sel, FairSharingSpec& out);
  bool read_fair_weight(const Ctx& holder, double& weight);
  void read_kueue_cohort(const std::vector<Ctx>& docs, TenantSpec& t);
  void read_cohort_object(const Ctx& cohort, const std::vector<Ctx>& docs, const TenantSpec& t, CohortSpec& c);
  void read_lender_queue(const Ctx& cq, const std::vector<Ctx>& docs, TenantSpec& t, const std::string& cohort);
  void warn_other_flavor(const Ctx& groups, const std::string& who, const std::string& flavor, const TenantSpec& t);
  // Whose resourceGroups are read: the tenant's ClusterQueue, a Cohort above it, or another ClusterQueue of its tree.
  enum class QuotaOwner { TENANT_QUEUE, COHORT, LENDER_QUEUE };
  void read_kueue_resource_groups(const Ctx& groups, const std::vector<Ctx>& docs, TenantSpec& t, QuotaOwner owner);
  void read_kueue_resource_quota(const Ctx& resource, ResourceQuota& q, bool has_cohort, QuotaOwner owner);
  void read_kueue_flavor(const Ctx& flavor_quota, const std::vector<Ctx>& docs, TenantSpec& t);
  void read_tenant(const Ctx& c, TenantSpec& tenant);
  void read_slo(const Ctx& c, SloSpec& slo);
  void read_workload(const Ctx& c, WorkloadSpec& w);
  void read_model_shape(const Ctx& c, ModelSpec& m);
  void read_continuous_batching(const Ctx& c, ServingSpec& s);
  void read_kv_cache(const Ctx& c, ServingSpec& s);
  void read_arrival(const Ctx& c, ArrivalSpec& a);
  void read_policy(const Ctx& c, PolicyRef& p);
  void read_attack(const Ctx& c, WorkloadSpec& w);
  void read_bit_rate(const Ctx& c, AttackSpec& a);
  void read_isolation(const Ctx& c, IsolationPolicySpec& iso);
  void get_bool(const Ctx& parent, const std::string& key, bool& out);
  // A warning for blocksPerSm given without blocks (a kernel without a grid fills every SM).
  void warn_occupancy_without_grid(const Ctx& kernel, const KernelSpec& k);
  // ---- network, storage, data (models/fabric, models/storage) ----
  void read_string_list(const Ctx& parent, const std::string& key, std::vector<std::string>& out);
  void read_node_topology(const Ctx& c, NodeTopologySpec& t);
  void read_fabric(const Ctx& c, FabricSpec& f);
  void read_storage(const Ctx& c, StorageSpec& s);
  void read_data(const Ctx& c, DataSpec& d);
  void read_network_policy(const Ctx& c, NetworkPolicySpec& n);
  void read_workload_io(const Ctx& c, WorkloadIoSpec& io);
  // ---- identity graph and audit pipeline (models/threat; LoadIdentity.cpp) ----
  void read_identity(const Ctx& c, IdentitySpec& id);
  void read_audit(const Ctx& c, AuditSpec& a);
  void read_incident_response(const Ctx& c, IncidentResponseSpec& r);
  // ---- compliance rules and transfer bases (policies/compliance; LoadCompliance.cpp) ----
  void read_compliance(const Ctx& c, ComplianceSpec& cs);
  void read_compliance_rule(const Ctx& c, ComplianceRuleSpec& r);
  void read_processing_records(const Ctx& c, ComplianceSpec& cs);
  void read_mechanism(const Ctx& c, std::string& mechanism);
  void read_workload_secrets(const Ctx& c, WorkloadSpec& w);
};

// Templates here so that every file reading a section can use them.
template <class Enum>
void Loader::get_enum(const Ctx& parent, const std::string& key, Enum& out, const std::vector<std::string>& names,
                      bool required) {
  auto c = child(parent, key);
  if (!c) {
    if (required) missing(parent, key);
    return;
  }
  std::string s;
  if (!scalar(*c, s, "a name")) return;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) {
      out = static_cast<Enum>(i);
      return;
    }
  }
  d_.error(c->loc(), c->path, "unknown value '" + s + "'" + suggest(s, names));
}

template <class Q, class ParseFn>
void Loader::get_quantity(const Ctx& parent, const std::string& key, Q& out, ParseFn parse, bool required,
                          bool positive) {
  auto c = child(parent, key);
  if (!c) {
    if (required) missing(parent, key);
    return;
  }
  std::string s;
  if (!scalar(*c, s, "a quantity with a unit")) return;
  auto r = parse(s);
  if (!r) {
    d_.error(c->loc(), c->path, r.error);
    return;
  }
  if (!std::isfinite(r.quantity->value)) {
    d_.error(c->loc(), c->path, "value is too large, got \"" + s + "\"");
    return;
  }
  if (positive && r.quantity->value <= 0) {
    d_.error(c->loc(), c->path, "must be greater than zero, got \"" + s + "\"");
    return;
  }
  if (!in_schema_range(*c, r.quantity->value, s, true)) return;
  out = *r.quantity;
}

}  // namespace gtw
