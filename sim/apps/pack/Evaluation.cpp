#include "Evaluation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#include "Csv.hpp"
#include "Diagnostics.hpp"
#include "Errors.hpp"
#include "GoRand.hpp"
#include "Tuning.hpp"
#include "XmlText.hpp"

namespace gtw::trace {

namespace fs = std::filesystem;

const std::vector<std::string>& published_workloads() {
  static const std::vector<std::string> names{"cpu050",      "cpu100",     "cpu200",     "cpu250",     "default",
                                              "gpushare100", "gpushare40", "gpushare60", "gpushare80", "gpuspec10",
                                              "gpuspec20",   "gpuspec25",  "gpuspec33",  "multigpu20", "multigpu30",
                                              "multigpu40",  "multigpu50"};
  return names;
}

std::string published_policy_label(const std::string& policy) {
  static const std::map<std::string, std::string> labels{
      {"random-fit", "01-Random"},      {"dot-product", "02-DotProd"}, {"gpu-clustering", "03-GpuClustering"},
      {"gpu-packing", "04-GpuPacking"}, {"best-fit", "05-BestFit"},    {"fgd", "06-FGD"}};
  const auto it = labels.find(policy);
  return it == labels.end() ? policy : it->second;
}

namespace {

struct Job {
  size_t workload;
  size_t seed;
};

// One (pod list, seed): the arrivals and node ranks of the published run, then every policy on them.
std::vector<EvaluationRun> run_one(const EvaluationOptions& o, const std::vector<OpenbNode>& nodes,
                                   const std::vector<OpenbPod>& pods, const std::string& workload, int64_t seed) {
  int64_t capacity = 0;
  for (const auto& n : nodes) capacity += static_cast<int64_t>(n.gpus) * 1000;
  GoRand rng(seed);
  const TunedArrivals tuned = tune_arrivals(pods, capacity, o.tune_ratio, rng);
  ReplayOptions replay;
  replay.seed = static_cast<uint64_t>(seed);
  replay.popularity_percent = o.popularity_percent;
  replay.tie_break = packing::TieBreak::RANK;
  replay.node_rank = published_node_ranks(nodes, rng);
  const PackingInput input = build_packing_input(nodes, pods, tuned.base);
  std::vector<EvaluationRun> out;
  for (const auto& policy : o.policies) {
    const PackingResult r = run_packing(input, policy, replay);
    out.push_back({"openb_pod_list_" + workload, policy, seed, static_cast<int64_t>(input.cluster.gpu_free.size()),
                   r.failed_pods, r.discrete});
  }
  return out;
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::vector<EvaluationRun> run_evaluation(const EvaluationOptions& given) {
  EvaluationOptions o = given;
  if (o.workloads.empty()) o.workloads = published_workloads();
  if (o.policies.empty()) o.policies = packing::packing_policy_order();
  if (o.seeds.empty())
    for (int64_t s = 42; s <= 51; ++s) o.seeds.push_back(s);
  std::sort(o.workloads.begin(), o.workloads.end());
  const std::string node_file = (fs::path(o.trace_dir) / "openb_node_list_gpu_node.csv").string();
  const auto nodes = read_openb_nodes(node_file);
  int64_t gpus = 0;
  for (const auto& n : nodes) gpus += n.gpus;
  if (gpus == 0) throw InputError(node_file + ": no node has a GPU: there is no GPU capacity to pack");
  std::vector<std::vector<OpenbPod>> pods;
  for (const auto& w : o.workloads)
    pods.push_back(read_openb_pods((fs::path(o.trace_dir) / ("openb_pod_list_" + w + ".csv")).string()));

  std::vector<Job> jobs;
  for (size_t w = 0; w < o.workloads.size(); ++w)
    for (size_t s = 0; s < o.seeds.size(); ++s) jobs.push_back({w, s});
  std::vector<std::vector<EvaluationRun>> done(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex failure_lock;
  std::exception_ptr failure;  // the first failure, rethrown as it was (an input error stays one)
  const auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      try {
        done[j] = run_one(o, nodes, pods[jobs[j].workload], o.workloads[jobs[j].workload], o.seeds[jobs[j].seed]);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = jobs.size();  // no further runs
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, o.jobs); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);

  // The published order: workload, then policy, then seed.
  std::vector<EvaluationRun> runs;
  for (size_t w = 0; w < o.workloads.size(); ++w)
    for (size_t p = 0; p < o.policies.size(); ++p)
      for (size_t s = 0; s < o.seeds.size(); ++s) runs.push_back(done[w * o.seeds.size() + s][p]);
  return runs;
}

std::string discrete_csv(const std::vector<EvaluationRun>& runs, double tune_ratio, bool fragmentation) {
  // The published allocation file has a total_gpus column, the fragmentation file none.
  std::string out = fragmentation ? "workload,sc_policy,tune,seed" : "workload,sc_policy,tune,seed,total_gpus";
  for (int c = 0; c <= MAX_ARRIVED_PCT; ++c) out += "," + std::to_string(c);
  out += "\n";
  for (const auto& r : runs) {
    out += r.workload + "," + published_policy_label(r.policy) + "," + python_float(tune_ratio) + "," +
           std::to_string(r.seed) + (fragmentation ? std::string() : "," + std::to_string(r.total_gpus));
    for (double v : fragmentation ? r.curves.frag : r.curves.allocated) out += "," + python_float(v);
    out += "\n";
  }
  return out;
}

std::string figure_csv(const std::vector<EvaluationRun>& runs) {
  std::string out = "workload,policy,seed,alloc_at_80,alloc_at_100,alloc_at_130,frag_at_100,frag_at_130,failed_pods\n";
  const auto cell = [](const std::vector<double>& v, int c) {
    return static_cast<size_t>(c) < v.size() && !std::isnan(v[static_cast<size_t>(c)])
               ? fixed2(v[static_cast<size_t>(c)])
               : std::string();
  };
  for (const auto& r : runs)
    out += r.workload + "," + r.policy + "," + std::to_string(r.seed) + "," + cell(r.curves.allocated, 80) + "," +
           cell(r.curves.allocated, 100) + "," + cell(r.curves.allocated, 130) + "," + cell(r.curves.frag, 100) + "," +
           cell(r.curves.frag, 130) + "," + std::to_string(r.failed_pods) + "\n";
  return out;
}

std::string figure_svg(const std::vector<EvaluationRun>& runs) {
  // Mean, min and max over seeds of the allocation at 130 % arrived, per (workload, policy).
  std::vector<std::string> workloads, policies;
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  for (const auto& r : runs) {
    if (std::find(workloads.begin(), workloads.end(), r.workload) == workloads.end()) workloads.push_back(r.workload);
    if (std::find(policies.begin(), policies.end(), r.policy) == policies.end()) policies.push_back(r.policy);
    const double v = r.curves.allocated.size() > 130 ? r.curves.allocated[130] : std::nan("");
    if (!std::isnan(v)) values[{r.workload, r.policy}].push_back(v);
  }
  const char* colours[] = {"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#d62728"};
  const double lo = 70, hi = 100;  // the allocation axis, % of GPU capacity
  const int left = 60, top = 40, group = 16 * static_cast<int>(policies.size()) + 14, height = 300;
  const int width = left + group * static_cast<int>(workloads.size()) + 20;
  const auto y = [&](double v) { return top + height * (1 - (std::clamp(v, lo, hi) - lo) / (hi - lo)); };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << top + height + 130
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s << "<text x=\"" << left
    << "\" y=\"20\" font-size=\"13\">GPU allocation (% of capacity) at 130 % arrived GPU "
       "demand: mean over tune seeds, bar = min to max</text>\n";
  for (int t = 70; t <= 100; t += 5) {
    s << "<line x1=\"" << left << "\" x2=\"" << width - 20 << "\" y1=\"" << y(t) << "\" y2=\"" << y(t)
      << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << y(t) + 4 << "\" text-anchor=\"end\">" << t
      << "</text>\n";
  }
  for (size_t w = 0; w < workloads.size(); ++w) {
    const int x0 = left + group * static_cast<int>(w) + 7;
    for (size_t p = 0; p < policies.size(); ++p) {
      const auto it = values.find({workloads[w], policies[p]});
      if (it == values.end() || it->second.empty()) continue;
      const auto& v = it->second;
      double sum = 0;
      for (double x : v) sum += x;
      const double mean = sum / static_cast<double>(v.size());
      const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
      const int x = x0 + 16 * static_cast<int>(p);
      s << "<rect x=\"" << x << "\" y=\"" << y(mean) << "\" width=\"13\" height=\"" << top + height - y(mean)
        << "\" fill=\"" << colours[p % 6] << "\"><title>" << xml_escape(workloads[w]) << " " << xml_escape(policies[p])
        << ": " << fixed2(mean) << "</title></rect>\n";
      s << "<line x1=\"" << x + 6.5 << "\" x2=\"" << x + 6.5 << "\" y1=\"" << y(*mn) << "\" y2=\"" << y(*mx)
        << "\" stroke=\"#000\"/>\n";
    }
    const std::string label = workloads[w].substr(workloads[w].rfind('_') + 1);
    s << "<text transform=\"translate(" << x0 + group / 2 << "," << top + height + 12 << ") rotate(45)\">"
      << xml_escape(label) << "</text>\n";
  }
  for (size_t p = 0; p < policies.size(); ++p)
    s << "<rect x=\"" << left + 110 * static_cast<int>(p) << "\" y=\"" << top + height + 95
      << "\" width=\"10\" height=\"10\" fill=\"" << colours[p % 6] << "\"/><text x=\""
      << left + 110 * static_cast<int>(p) + 14 << "\" y=\"" << top + height + 104 << "\">" << xml_escape(policies[p])
      << "</text>\n";
  s << "</svg>\n";
  return s.str();
}

PublishedCurves read_published_curves(const std::string& published_csv) {
  Diagnostics diags;
  CsvTable table(published_csv, diags);  // CR line ends, a BOM and blank lines are the table's concern
  const int c_workload = table.column("workload", true), c_policy = table.column("sc_policy", true),
            c_tune = table.column("tune", true), c_seed = table.column("seed", true);
  // Columns 0..130 follow the key (and total_gpus in the allocation file; the fragmentation file has none).
  std::vector<int> c_value;
  for (int c = 0; c <= MAX_ARRIVED_PCT; ++c) c_value.push_back(table.column(std::to_string(c), true));
  PublishedCurves published;
  if (!diags.has_errors()) {
    for (const auto& row : table.rows()) {
      const auto text = [&](int col) -> const std::string& { return row.fields[static_cast<size_t>(col)].text; };
      const auto at = [&](int col) { return table.loc(row.line, row.fields[static_cast<size_t>(col)].column); };
      int64_t seed = 0;
      size_t used = 0;
      try {
        seed = std::stoll(text(c_seed), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text(c_seed).size())
        diags.error(at(c_seed), "seed", "expected a whole number, got '" + text(c_seed) + "'");
      std::vector<std::string> values;
      for (int c = 0; c <= MAX_ARRIVED_PCT; ++c) {
        const int col = c_value[static_cast<size_t>(c)];
        char* end = nullptr;
        const double v = std::strtod(text(col).c_str(), &end);
        if (!text(col).empty() && (*end != '\0' || !std::isfinite(v)))
          diags.error(at(col), std::to_string(c), "expected a percentage, got '" + text(col) + "'");
        values.push_back(text(col));
      }
      published[{text(c_workload), text(c_policy), text(c_tune), seed}] = std::move(values);
    }
  }
  if (diags.has_errors()) {
    std::string message = diags.format_all();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw InputError(message);
  }
  return published;
}

PublishedComparison compare_with_published(const std::vector<EvaluationRun>& runs, const PublishedCurves& published,
                                           double tune_ratio, bool fragmentation) {
  PublishedComparison out;
  const std::string tune = python_float(tune_ratio);
  for (const auto& r : runs) {
    const auto it = published.find({r.workload, published_policy_label(r.policy), tune, r.seed});
    if (it == published.end()) {
      ++out.missing;
      continue;
    }
    RowComparison row{r.workload, r.policy, r.seed, 0, 0, true};
    const auto& ours = fragmentation ? r.curves.frag : r.curves.allocated;
    for (size_t c = 0; c < ours.size() && c < it->second.size(); ++c) {
      const std::string& theirs = it->second[c];
      if (python_float(ours[c]) != theirs) row.exact = false;
      if (theirs.empty() || std::isnan(ours[c])) continue;
      ++row.columns;
      row.max_abs_diff = std::max(row.max_abs_diff, std::fabs(ours[c] - std::strtod(theirs.c_str(), nullptr)));
    }
    out.rows.push_back(row);
  }
  return out;
}

std::string comparison_csv(const PublishedComparison& c) {
  std::string out = "workload,policy,seed,columns,max_abs_diff_pp,exact\n";
  for (const auto& r : c.rows)
    out += r.workload + "," + r.policy + "," + std::to_string(r.seed) + "," + std::to_string(r.columns) + "," +
           fixed2(r.max_abs_diff) + "," + (r.exact ? "true" : "false") + "\n";
  return out;
}

std::string comparison_summary(const PublishedComparison& c) {
  std::vector<std::string> order;
  std::map<std::string, std::tuple<int, int, int, double>> by;  // runs, exact, within 0.05, worst
  for (const auto& r : c.rows) {
    if (!by.count(r.policy)) order.push_back(r.policy);
    auto& [n, exact, close, worst] = by[r.policy];
    ++n;
    exact += r.exact;
    close += r.max_abs_diff <= 0.05 + 1e-9;
    worst = std::max(worst, r.max_abs_diff);
  }
  std::string out =
      "| policy | runs compared | identical | within 0.05 pp everywhere | worst difference (pp) |\n"
      "|---|---:|---:|---:|---:|\n";
  for (const auto& p : order) {
    const auto& [n, exact, close, worst] = by[p];
    out += "| " + p + " | " + std::to_string(n) + " | " + std::to_string(exact) + " | " + std::to_string(close) +
           " | " + fixed2(worst) + " |\n";
  }
  if (c.missing) out += "\n" + std::to_string(c.missing) + " run(s) have no published row.\n";
  return out;
}

}  // namespace gtw::trace
