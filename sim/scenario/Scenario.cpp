#include "Scenario.hpp"

namespace gtw {

const std::vector<std::string>& vgpu_scheduler_names() {
  static const std::vector<std::string> names{"bestEffort", "equalShare", "fixedShare"};
  return names;
}

const std::vector<std::string>& api_logprobs_names() {
  static const std::vector<std::string> names{"full", "top", "none"};
  return names;
}

const std::vector<std::string>& gpu_visibility_names() {
  static const std::vector<std::string> names{"node", "allocated"};
  return names;
}

const std::vector<std::string>& fair_sharing_strategy_names() {
  static const std::vector<std::string> names{"LessThanOrEqualToFinalShare", "LessThanInitialShare"};
  return names;
}

const std::vector<std::string>& classification_names() {
  static const std::vector<std::string> names{"public", "internal", "confidential", "restricted"};
  return names;
}

const std::vector<std::string>& fault_scope_names() {
  static const std::vector<std::string> names{"gpu", "node"};
  return names;
}

const std::vector<std::string>& slo_kind_names() {
  static const std::vector<std::string> names{"latency",      "throughput", "slowdown", "completionTime",
                                              "availability", "ttft",       "tpot"};
  return names;
}
const char* slo_kind_name(SloKind k) {
  return slo_kind_names()[static_cast<size_t>(k)].c_str();
}

const std::vector<std::string>& arrival_process_names() {
  static const std::vector<std::string> names{"poisson", "bursty", "constant", "diurnal", "trace"};
  return names;
}

const std::vector<std::string>& workload_kind_names() {
  static const std::vector<std::string> names{"inference", "training", "batch", "attack"};
  return names;
}
const char* workload_kind_name(WorkloadKind k) {
  return workload_kind_names()[static_cast<size_t>(k)].c_str();
}

const std::vector<std::string>& attack_type_names() {
  static const std::vector<std::string> names{"covertChannel", "primeProbe",      "remanenceScrape", "noisyNeighbour",
                                              "mpsKill",       "modelExtraction", "queryExtraction"};
  return names;
}
const char* attack_type_name(AttackType t) {
  return attack_type_names()[static_cast<size_t>(t)].c_str();
}

const std::vector<std::string>& runtime_kind_names() {
  static const std::vector<std::string> names{"auto", "runc", "gvisor", "kata", "vm", "cvm"};
  return names;
}
const char* runtime_kind_name(RuntimeKind k) {
  return runtime_kind_names()[static_cast<size_t>(k)].c_str();
}

const std::vector<std::string>& batching_mode_names() {
  static const std::vector<std::string> names = {"static", "continuous"};
  return names;
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names{"fp32", "fp16", "bf16", "fp8"};
  return names;
}
double dtype_bytes(DType d) {
  switch (d) {
    case DType::FP32:
      return 4;
    case DType::FP16:
      return 2;
    case DType::BF16:
      return 2;
    case DType::FP8:
      return 1;
  }
  return 2;
}

int SharingSpec::instance_replicas(const std::string& profile) const {
  if (const auto it = mig_replicas.find(profile); it != mig_replicas.end()) return it->second;
  if (const auto all = mig_replicas.find("all"); all != mig_replicas.end()) return all->second;
  return 1;
}

const SharingSpec& NodePoolSpec::sharing_for(int gpu) const {
  for (const auto& o : gpu_sharing)
    for (int g : o.gpus)
      if (g == gpu) return o.sharing;
  return sharing;
}

int ScenarioSpec::tenant_index(const std::string& tenant_name) const {
  for (size_t i = 0; i < tenants.size(); ++i)
    if (tenants[i].name == tenant_name) return static_cast<int>(i);
  return -1;
}

int ScenarioSpec::total_gpus() const {
  int n = 0;
  for (const auto& p : node_pools) n += p.count * p.gpus_per_node;
  return n;
}

}  // namespace gtw
