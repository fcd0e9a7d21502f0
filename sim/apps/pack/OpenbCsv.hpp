#pragma once
// Readers for Alibaba's GPU-sharing trace "openb" (cluster-trace-gpu-v2023, the trace of the ATC'23 paper
// "Beware of Fragmentation"): the node list, a pod list and an arrival order. Columns are found by their
// header name, so their order does not matter. Every problem of a file is collected and thrown at once as
// an InputError whose lines read "file:line:col: error: column: what was expected".
#include <cstdint>
#include <string>
#include <vector>

namespace gtw::trace {

/// One row of openb_node_list_*.csv (sn,cpu_milli,memory_mib,gpu,model).
struct OpenbNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int gpus = 0;
  std::string model;  // empty for a node without GPUs
};

/// One row of openb_pod_list_*.csv (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,...]).
struct OpenbPod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int num_gpu = 0;
  int gpu_milli = 0;                  // per GPU, 0..1000
  std::vector<std::string> gpu_spec;  // accepted GPU models; empty = any
  std::string qos;
  int64_t creation_time = -1;  // seconds since the trace's start; -1 when the list has no times
  int64_t deletion_time = -1;  // -1: never deleted within the trace
};

/// Largest GPU count accepted on a node or a pod (the model masks hold 64 models).
inline constexpr int MAX_GPUS = 64;

std::vector<OpenbNode> read_openb_nodes(const std::string& path);
std::vector<OpenbPod> read_openb_pods(const std::string& path);
/// arrivals_*.csv (seq,pod,base_pod): the index into `pods` of each arrival's base pod, in order.
/// seq must count 0, 1, 2, ... and every base_pod must name a pod of the list.
std::vector<int> read_openb_arrivals(const std::string& path, const std::vector<OpenbPod>& pods);

}  // namespace gtw::trace
