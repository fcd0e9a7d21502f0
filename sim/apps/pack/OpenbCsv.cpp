#include "OpenbCsv.hpp"

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "Csv.hpp"
#include "Diagnostics.hpp"
#include "Errors.hpp"

namespace gtw::trace {

namespace {

void throw_if_errors(const Diagnostics& diags) {
  if (!diags.has_errors()) return;
  std::string text = diags.format_all();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  throw InputError(text);
}

constexpr int64_t MAX_MILLI_CPU = int64_t{1} << 40;
constexpr int64_t MAX_MEMORY_MIB = int64_t{1} << 40;

}  // namespace

std::vector<OpenbNode> read_openb_nodes(const std::string& path) {
  Diagnostics diags;
  CsvTable table(path, diags);
  const int c_name = table.column("sn", true), c_cpu = table.column("cpu_milli", true),
            c_mem = table.column("memory_mib", true), c_gpu = table.column("gpu", true),
            c_model = table.column("model", true);
  if (c_name < 0 || c_cpu < 0 || c_mem < 0 || c_gpu < 0 || c_model < 0) throw_if_errors(diags);
  std::vector<OpenbNode> out;
  std::map<std::string, int> seen;
  for (const auto& row : table.rows()) {
    OpenbNode node;
    node.name = row.fields[static_cast<size_t>(c_name)].text;
    if (node.name.empty())
      diags.error(table.loc(row.line, row.fields[static_cast<size_t>(c_name)].column), "sn",
                  "expected a node name, got an empty field");
    if (auto [it, inserted] = seen.emplace(node.name, row.line); !inserted && !node.name.empty())
      diags.error(table.loc(row.line, row.fields[static_cast<size_t>(c_name)].column), "sn",
                  "duplicate node '" + node.name + "' (first on line " + std::to_string(it->second) + ")");
    node.cpu_milli = table.integer(row, c_cpu, "cpu_milli", MAX_MILLI_CPU);
    node.memory_mib = table.integer(row, c_mem, "memory_mib", MAX_MEMORY_MIB);
    node.gpus = static_cast<int>(table.integer(row, c_gpu, "gpu", MAX_GPUS));
    node.model = row.fields[static_cast<size_t>(c_model)].text;
    if (node.model == "nan") node.model.clear();
    if (node.gpus > 0 && node.model.empty())
      diags.error(table.loc(row.line, row.fields[static_cast<size_t>(c_model)].column), "model",
                  "expected the GPU model of a node with " + std::to_string(node.gpus) + " GPU(s), got an empty field");
    out.push_back(std::move(node));
  }
  if (out.empty() && !diags.has_errors()) diags.error(table.loc(1, 1), "", "no nodes: expected at least one row");
  throw_if_errors(diags);
  return out;
}

std::vector<OpenbPod> read_openb_pods(const std::string& path) {
  Diagnostics diags;
  CsvTable table(path, diags);
  const int c_name = table.column("name", true), c_cpu = table.column("cpu_milli", true),
            c_mem = table.column("memory_mib", true), c_num = table.column("num_gpu", true),
            c_milli = table.column("gpu_milli", true), c_spec = table.column("gpu_spec", false),
            c_qos = table.column("qos", false), c_created = table.column("creation_time", false),
            c_deleted = table.column("deletion_time", false);
  if (c_name < 0 || c_cpu < 0 || c_mem < 0 || c_num < 0 || c_milli < 0) throw_if_errors(diags);
  std::vector<OpenbPod> out;
  std::map<std::string, int> seen;
  for (const auto& row : table.rows()) {
    OpenbPod pod;
    const CsvField& name = row.fields[static_cast<size_t>(c_name)];
    pod.name = name.text;
    if (pod.name.empty())
      diags.error(table.loc(row.line, name.column), "name", "expected a pod name, got an empty field");
    else if (auto [it, inserted] = seen.emplace(pod.name, row.line); !inserted)
      diags.error(table.loc(row.line, name.column), "name",
                  "duplicate pod '" + pod.name + "' (first on line " + std::to_string(it->second) + ")");
    pod.cpu_milli = table.integer(row, c_cpu, "cpu_milli", MAX_MILLI_CPU);
    pod.memory_mib = table.integer(row, c_mem, "memory_mib", MAX_MEMORY_MIB);
    const size_t errors_before = diags.error_count();
    pod.num_gpu = static_cast<int>(table.integer(row, c_num, "num_gpu", MAX_GPUS));
    pod.gpu_milli = static_cast<int>(table.integer(row, c_milli, "gpu_milli", 1000));
    const int milli_column = row.fields[static_cast<size_t>(c_milli)].column;
    // The GPU fields must agree, which only means something when both parsed.
    if (diags.error_count() != errors_before) {
      out.push_back(std::move(pod));
      continue;
    }
    if (pod.num_gpu == 0 && pod.gpu_milli != 0)
      diags.error(table.loc(row.line, milli_column), "gpu_milli",
                  "expected 0 for a pod without GPUs (num_gpu 0), got " + std::to_string(pod.gpu_milli));
    if (pod.num_gpu == 1 && pod.gpu_milli == 0)
      diags.error(table.loc(row.line, milli_column), "gpu_milli",
                  "expected a share in [1, 1000] for a one-GPU pod, got 0");
    if (pod.num_gpu > 1 && pod.gpu_milli != 1000)
      diags.error(table.loc(row.line, milli_column), "gpu_milli",
                  "expected 1000 (whole GPUs) for a pod with " + std::to_string(pod.num_gpu) + " GPUs, got " +
                      std::to_string(pod.gpu_milli));
    if (c_spec >= 0) {
      std::string spec = row.fields[static_cast<size_t>(c_spec)].text;
      if (spec == "nan") spec.clear();
      std::stringstream ss(spec);
      std::string model;
      while (std::getline(ss, model, '|'))
        if (!model.empty()) pod.gpu_spec.push_back(model);
    }
    if (c_qos >= 0) pod.qos = row.fields[static_cast<size_t>(c_qos)].text;
    // Times in seconds; an empty deletion time means the pod outlived the trace.
    constexpr int64_t MAX_TRACE_SECONDS = int64_t{1} << 40;
    if (c_created >= 0) pod.creation_time = table.integer(row, c_created, "creation_time", MAX_TRACE_SECONDS);
    if (c_deleted >= 0 && !row.fields[static_cast<size_t>(c_deleted)].text.empty()) {
      pod.deletion_time = table.integer(row, c_deleted, "deletion_time", MAX_TRACE_SECONDS);
      if (pod.creation_time >= 0 && pod.deletion_time < pod.creation_time)
        diags.error(table.loc(row.line, row.fields[static_cast<size_t>(c_deleted)].column), "deletion_time",
                    "expected a time >= creation_time (" + std::to_string(pod.creation_time) + "), got " +
                        std::to_string(pod.deletion_time));
    }
    out.push_back(std::move(pod));
  }
  if (out.empty() && !diags.has_errors()) diags.error(table.loc(1, 1), "", "no pods: expected at least one row");
  throw_if_errors(diags);
  return out;
}

std::vector<int> read_openb_arrivals(const std::string& path, const std::vector<OpenbPod>& pods) {
  Diagnostics diags;
  CsvTable table(path, diags);
  const int c_seq = table.column("seq", true), c_base = table.column("base_pod", true);
  if (c_seq < 0 || c_base < 0) throw_if_errors(diags);
  std::unordered_map<std::string, int> index;  // lookup only, never iterated
  index.reserve(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) index.emplace(pods[i].name, static_cast<int>(i));
  std::vector<int> out;
  for (const auto& row : table.rows()) {
    const CsvField& seq = row.fields[static_cast<size_t>(c_seq)];
    const auto expected = static_cast<int64_t>(out.size());
    const int64_t value = table.integer(row, c_seq, "seq", int64_t{1} << 40);
    if (value != expected && !seq.text.empty())
      diags.error(table.loc(row.line, seq.column), "seq",
                  "expected " + std::to_string(expected) + " (arrivals numbered 0, 1, 2, ... in order), got '" +
                      seq.text + "'");
    const CsvField& base = row.fields[static_cast<size_t>(c_base)];
    auto it = index.find(base.text);
    if (it == index.end()) {
      diags.error(table.loc(row.line, base.column), "base_pod",
                  "expected the name of a pod of the pod list, got '" + base.text + "'");
      out.push_back(-1);
      continue;
    }
    out.push_back(it->second);
  }
  if (out.empty() && !diags.has_errors()) diags.error(table.loc(1, 1), "", "no arrivals: expected at least one row");
  throw_if_errors(diags);
  return out;
}

}  // namespace gtw::trace
