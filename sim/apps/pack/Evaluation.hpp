#pragma once
// The whole packing evaluation of ATC'23 ("Beware of Fragmentation", Sec. 6): pod lists x policies x tune
// seeds, each run built from its seed as the published simulator builds it (Tuning.hpp), sampled as its
// published curves are (DiscreteCurves), written in the published CSV layout, compared row by row with the
// published cached results, and drawn as the paper's allocation figure.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "PackingReplay.hpp"

namespace gtw::trace {

/// The 17 pod lists of the published evaluation (experiments/run_scripts), as openb_pod_list_<name>.csv.
const std::vector<std::string>& published_workloads();
/// The policy's directory name in the published results (01-Random ... 06-FGD).
std::string published_policy_label(const std::string& policy);

struct EvaluationOptions {
  std::string trace_dir;               // holds openb_node_list_gpu_node.csv and the pod lists
  std::vector<std::string> workloads;  // pod list names (default: published_workloads())
  std::vector<std::string> policies;   // default: all six
  std::vector<int64_t> seeds;          // tune seeds (default 42..51)
  double tune_ratio = 1.3;
  double popularity_percent = 95;
  int jobs = 1;  // runs in parallel (each run is independent and deterministic)
};

struct EvaluationRun {
  std::string workload;  // openb_pod_list_<name>
  std::string policy;
  int64_t seed = 0;
  int64_t total_gpus = 0;
  int64_t failed_pods = 0;
  DiscreteCurves curves;
};

/// Every run, ordered as the published CSV is: workloads by name, policies in the paper's order, seeds.
std::vector<EvaluationRun> run_evaluation(const EvaluationOptions& options);

/// analysis_{allo,frag}_discrete.csv as the published simulator writes it (frag: `fragmentation` true).
std::string discrete_csv(const std::vector<EvaluationRun>& runs, double tune_ratio, bool fragmentation);

/// Per run: allocation at 80, 100 and 130 % arrived demand and fragmentation at 100 and 130 %.
std::string figure_csv(const std::vector<EvaluationRun>& runs);
/// The allocation at 130 % arrived demand per pod list and policy (mean over seeds, min-max bars).
std::string figure_svg(const std::vector<EvaluationRun>& runs);

struct RowComparison {
  std::string workload, policy;
  int64_t seed = 0;
  int columns = 0;          // columns both give
  double max_abs_diff = 0;  // percentage points
  bool exact = false;       // every column printed alike
};

struct PublishedComparison {
  std::vector<RowComparison> rows;  // runs with a published row
  size_t missing = 0;               // runs without one
};

/// A published analysis_*_discrete.csv: per (workload, sc_policy, tune as printed, seed), columns 0..130 as
/// printed ("" where the file leaves one blank).
using PublishedCurves = std::map<std::tuple<std::string, std::string, std::string, int64_t>, std::vector<std::string>>;
/// Reads one; throws InputError (file:line) for a malformed file. CRLF line ends are accepted.
PublishedCurves read_published_curves(const std::string& path);

/// Compares the runs' curves (allocation, or fragmentation) with the published rows of the same workload,
/// policy, tune ratio and seed.
PublishedComparison compare_with_published(const std::vector<EvaluationRun>& runs, const PublishedCurves& published,
                                           double tune_ratio, bool fragmentation);
std::string comparison_csv(const PublishedComparison& c);
/// Per policy: runs compared, exact, within 0.05 pp at every column, worst difference (markdown table).
std::string comparison_summary(const PublishedComparison& c);

}  // namespace gtw::trace
