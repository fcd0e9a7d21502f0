// End-to-end: the outputs other tools read (docs/formats/trace-json.md, metrics-prom.md, csv.md). Each is
// checked against its format's rules and against report.json, which the analyses write independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "Csv.hpp"
#include "Subprocess.hpp"

namespace gtw::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
const std::string SRC = GTW_SOURCE_DIR;
const std::string MIG = SRC + "/scenarios/ci/mig.yaml";
const std::string ENFORCE = SRC + "/scenarios/compliance/design-enforce.yaml";
const std::string REMANENCE = SRC + "/scenarios/attacks/remanence-scrape.yaml";
const std::string SERVING = SRC + "/scenarios/examples/serving/time-slicing.yaml";
constexpr long long METRICS_EPOCH = 1767225600;  // simulated time 0 in metrics.prom (2026-01-01T00:00:00Z)

json run_with(const TempDir& dir, const std::string& name, const std::string& scenario, const std::string& formats) {
  const auto r = run_process(run_argv(GTW_BINARY, scenario, dir.file(name), "json," + formats));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(dir.file(name) + "/report.json"));
}

std::string promtool() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"})
    if (fs::exists(std::string(dir) + "/promtool")) return std::string(dir) + "/promtool";
  return "";
}

// --- trace.json ---

TEST(TraceJson, PassesTheFormatChecksOnMigComplianceAttackAndServingRuns) {
  TempDir dir;
  for (const auto& scenario : {MIG, ENFORCE, REMANENCE, SERVING}) {
    const std::string name = fs::path(scenario).stem().string();
    run_with(dir, name, scenario, "trace");
    const auto check =
        run_process({"/usr/bin/env", "python3", SRC + "/scripts/check-trace-json.py", dir.file(name + "/trace.json")});
    EXPECT_EQ(check.exit_code, 0) << scenario << ":\n" << check.out << check.err;
  }
}

TEST(TraceJson, ShowsEachGpuEachTenantsStaysAndTheSecurityEvents) {
  TempDir dir;
  const json report = run_with(dir, "enforce", ENFORCE, "trace");
  const json trace = json::parse(read_text(dir.file("enforce/trace.json")));
  std::set<std::string> processes, slice_names;
  size_t refusals = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && e["cat"] == "placement") slice_names.insert(e["name"].get<std::string>());
    if (e["ph"] == "i" && e["cat"] == "compliance") ++refusals;
  }
  for (const auto& g : report["gpus"]) {
    const std::string prefix = g["node"].get<std::string>() + "/gpu" + std::to_string(g["local_index"].get<int>());
    EXPECT_TRUE(std::any_of(processes.begin(), processes.end(), [&](const auto& p) { return p.rfind(prefix, 0) == 0; }))
        << "no process for " << prefix;
  }
  std::set<std::string> placed;
  for (const auto& p : report["placements"]) placed.insert(p["tenant"].get<std::string>());
  EXPECT_EQ(slice_names, placed) << "stays are named after their tenant (one colour per tenant)";
  size_t refused = 0;
  for (const auto& e : report["compliance"]["enforcement"]) refused += e["placements_refused"].get<size_t>();
  ASSERT_GT(refused, 0u) << "the scenario is chosen for its refused placement";
  EXPECT_EQ(refusals, refused);

  run_with(dir, "scrape", REMANENCE, "trace");
  const std::string scrape = read_text(dir.file("scrape/trace.json"));
  EXPECT_NE(scrape.find("\"attack: remanenceScrape\""), std::string::npos);
  EXPECT_NE(scrape.find("\"residue handed over\""), std::string::npos);
}

// --- metrics.prom ---

struct Sample {
  std::string family, labels;
  double value = 0;
  long long ts = 0;
};

/// Parses the OpenMetrics text, failing the test on what the format forbids: a sample before its
/// family's TYPE and HELP, a family declared twice, decreasing timestamps in a series, no final # EOF.
std::vector<Sample> parse_openmetrics(const std::string& text) {
  std::vector<Sample> samples;
  std::istringstream in(text);
  std::string line, family, last;
  std::set<std::string> families;
  std::map<std::string, long long> last_ts;
  bool help = false;
  while (std::getline(in, line)) {
    last = line;
    if (line == "# EOF") continue;
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream t(line.substr(7));
      std::string type;
      t >> family >> type;
      EXPECT_EQ(type, "gauge") << line;
      EXPECT_TRUE(families.insert(family).second) << "family declared twice: " << family;
      help = false;
      continue;
    }
    if (line.rfind("# HELP " + family + " ", 0) == 0) {
      help = true;
      continue;
    }
    const auto brace = line.find('{'), close = line.rfind('}');
    EXPECT_TRUE(brace != std::string::npos && close != std::string::npos) << line;
    if (brace == std::string::npos || close == std::string::npos) continue;
    Sample s{line.substr(0, brace), line.substr(brace + 1, close - brace - 1)};
    EXPECT_EQ(s.family, family) << "a sample outside its family: " << line;
    EXPECT_TRUE(help) << "no HELP before " << line;
    std::istringstream v(line.substr(close + 1));
    v >> s.value >> s.ts;
    auto [it, inserted] = last_ts.emplace(s.family + "{" + s.labels + "}", s.ts);
    if (!inserted) {
      EXPECT_GT(s.ts, it->second) << "timestamps must increase in a series: " << line;
      it->second = s.ts;
    }
    samples.push_back(std::move(s));
  }
  EXPECT_EQ(last, "# EOF");
  return samples;
}

std::string label(const std::string& labels, const std::string& key) {
  const auto at = labels.find(key + "=\"");
  if (at == std::string::npos) return "";
  const auto start = at + key.size() + 2;
  return labels.substr(start, labels.find('"', start) - start);
}

TEST(MetricsProm, DeviceSeriesAgreeWithEachOtherAndWithTheReport) {
  TempDir dir;
  const json report = run_with(dir, "mig", MIG, "metrics");
  const auto samples = parse_openmetrics(read_text(dir.file("mig/metrics.prom")));
  std::map<std::string, std::map<long long, double>> util, used, free_mib, tenant_sum, tenant_max;
  for (const auto& s : samples) {
    const std::string device = label(s.labels, "gputwin_device");
    if (s.family == "DCGM_FI_DEV_GPU_UTIL") {
      EXPECT_GE(s.value, 0);
      EXPECT_LE(s.value, 100 + 1e-9);
      util[device][s.ts] = s.value / 100;
    } else if (s.family == "DCGM_FI_DEV_FB_USED") {
      used[device][s.ts] = s.value;
    } else if (s.family == "DCGM_FI_DEV_FB_FREE") {
      free_mib[device][s.ts] = s.value;
    } else if (s.family == "gputwin_tenant_gpu_busy_ratio") {
      tenant_sum[device][s.ts] += s.value;
      tenant_max[device][s.ts] = std::max(tenant_max[device][s.ts], s.value);
    }
  }
  ASSERT_EQ(util.size(), report["gpus"].size()) << "one utilisation series per device (GPU or MIG instance)";
  const double duration = report["scenario"]["duration_s"].get<double>();
  for (const auto& g : report["gpus"]) {
    const std::string device = std::to_string(g["index"].get<int>());
    double busy = 0;
    for (const auto& [ts, u] : util[device]) {
      // The union of the tenants' busy time lies between the largest one and their sum.
      EXPECT_LE(u, tenant_sum[device][ts] + 1e-6) << device << " at " << ts;
      EXPECT_GE(u, tenant_max[device][ts] - 1e-6) << device << " at " << ts;
      if (ts - METRICS_EPOCH <= duration) busy += u;  // 1 s buckets: seconds busy in [0, duration]
    }
    if (g.contains("available_from_s") && g["available_from_s"].get<double>() > 0) continue;
    EXPECT_NEAR(busy / duration, g["utilisation"].get<double>(), 0.01) << "device " << device;
    for (const auto& [ts, u] : used[device]) {
      // Used plus free is the device's memory at every sample.
      EXPECT_NEAR(u + free_mib[device][ts], used[device].begin()->second + free_mib[device].begin()->second, 1e-6);
    }
  }
}

TEST(MetricsProm, PromtoolLintsAndLoadsIt) {
  const std::string tool = promtool();
  if (tool.empty()) GTEST_SKIP() << "promtool not installed (scripts/install-deps.sh installs Debian's prometheus)";
  TempDir dir;
  run_with(dir, "serving", SERVING, "metrics");
  const std::string file = dir.file("serving/metrics.prom");
  const auto lint = run_process({"/bin/sh", "-c", "'" + tool + "' check metrics < '" + file + "'"});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out + lint.err, "") << "no lint findings";
  const auto blocks = run_process({tool, "tsdb", "create-blocks-from", "openmetrics", file, dir.file("tsdb")});
  EXPECT_EQ(blocks.exit_code, 0) << blocks.out << blocks.err;
  EXPECT_NE(blocks.out.find("NUM SAMPLES"), std::string::npos) << blocks.out;
}

// Continuously batched workloads get TTFT and TPOT series; a request's first token comes no later than its
// last, so in every sample period TTFT p50 / p99 stay at or below the latency p50 / p99 of the same requests.
TEST(MetricsProm, TokenSeriesOfServedWorkloadsStayBelowTheirLatency) {
  TempDir dir;
  run_with(dir, "serving", SERVING, "metrics");
  std::map<std::string, std::map<std::pair<std::string, long long>, double>> by_family;
  for (const auto& s : parse_openmetrics(read_text(dir.file("serving/metrics.prom"))))
    by_family[s.family][{label(s.labels, "workload"), s.ts}] = s.value;
  for (const char* q : {"p50", "p99"}) {
    const auto& ttft = by_family[std::string("gputwin_request_ttft_") + q + "_seconds"];
    const auto& latency = by_family[std::string("gputwin_request_latency_") + q + "_seconds"];
    ASSERT_GT(ttft.size(), 5u) << q;
    EXPECT_EQ(by_family[std::string("gputwin_request_tpot_") + q + "_seconds"].size(), ttft.size());
    for (const auto& [key, value] : ttft) {
      ASSERT_TRUE(latency.count(key)) << key.first << " at " << key.second;
      EXPECT_GT(value, 0);
      EXPECT_LE(value, latency.at(key) + 1e-9) << q << " " << key.first << " at " << key.second;
    }
  }
}

TEST(MetricsProm, TheShippedGrafanaDashboardAsksOnlyForSeriesTheFileHas) {
  TempDir dir;
  run_with(dir, "serving", SERVING, "metrics");
  std::set<std::string> families;
  for (const auto& s : parse_openmetrics(read_text(dir.file("serving/metrics.prom")))) families.insert(s.family);
  const json dashboard = json::parse(read_text(SRC + "/docs/grafana/gputwin-run.json"));
  size_t queries = 0;
  const auto check = [&](const std::string& expr) {
    for (const std::string prefix : {"DCGM_FI_", "gputwin_"})
      for (auto at = expr.find(prefix); at != std::string::npos; at = expr.find(prefix, at + 1)) {
        auto end = at;
        while (end < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[end])) || expr[end] == '_')) ++end;
        EXPECT_TRUE(families.count(expr.substr(at, end - at))) << expr.substr(at, end - at) << " in " << expr;
        ++queries;
      }
  };
  for (const auto& panel : dashboard["panels"])
    for (const auto& target : panel["targets"]) check(target["expr"].get<std::string>());
  for (const auto& variable : dashboard["templating"]["list"]) check(variable["query"].get<std::string>());
  EXPECT_GE(queries, 7u);
}

// --- CSV ---

TEST(CsvTables, EveryTableParsesAndAgreesWithTheReport) {
  TempDir dir;
  const json report = run_with(dir, "enforce", ENFORCE, "csv");
  const auto table = [&](const std::string& name) {
    Diagnostics diags;
    CsvTable t(dir.file("enforce/" + name), diags);
    EXPECT_FALSE(diags.has_errors()) << name << ": " << diags.format_all();
    return t;
  };
  for (const char* name : {"tenants.csv", "workloads.csv", "slos.csv", "slo_windows.csv", "gpus.csv", "placements.csv",
                           "jobs.csv", "leakage_channels.csv", "leakage_discrete.csv", "attacks.csv", "compliance.csv"})
    EXPECT_TRUE(fs::exists(dir.file(std::string("enforce/") + name))) << name;

  auto gpus = table("gpus.csv");
  EXPECT_EQ(gpus.rows().size(), report["gpus"].size());
  auto placements = table("placements.csv");
  EXPECT_EQ(placements.rows().size(), report["placements"].size());
  auto compliance = table("compliance.csv");
  const int status = compliance.column("status", true);
  ASSERT_EQ(compliance.rows().size(), report["compliance"]["findings"].size());
  for (size_t i = 0; i < compliance.rows().size(); ++i)
    EXPECT_EQ(compliance.rows()[i].fields[static_cast<size_t>(status)].text,
              report["compliance"]["findings"][i]["status"].get<std::string>());

  auto workloads = table("workloads.csv");
  const int name = workloads.column("name", true), p99 = workloads.column("latency_p99_s", true);
  size_t checked = 0;
  for (const auto& t : report["tenants"])
    for (const auto& w : t["workloads"]) {
      if (!w.contains("latency") || w["latency"]["count"].get<size_t>() == 0) continue;
      for (const auto& row : workloads.rows())
        if (row.fields[static_cast<size_t>(name)].text == w["name"].get<std::string>()) {
          EXPECT_NEAR(std::stod(row.fields[static_cast<size_t>(p99)].text), w["latency"]["p99_s"].get<double>(),
                      1e-8 * std::max(1.0, w["latency"]["p99_s"].get<double>()));
          ++checked;
        }
    }
  EXPECT_GT(checked, 0u);
  size_t windows = 0;
  for (const auto& t : report["tenants"])
    for (const auto& s : t["slos"]) windows += s["windows"].size();
  EXPECT_EQ(table("slo_windows.csv").rows().size(), windows);
}

TEST(ObservabilityOutputs, AreByteIdenticalForOneSeed) {
  TempDir dir;
  run_with(dir, "a", ENFORCE, "trace,metrics,csv");
  run_with(dir, "b", ENFORCE, "trace,metrics,csv");
  size_t compared = 0;
  for (const auto& entry : fs::directory_iterator(dir.file("a"))) {
    const std::string file = entry.path().filename().string();
    if (file == "report.json") continue;  // its provenance differs
    EXPECT_EQ(read_text(entry.path().string()), read_text(dir.file("b/" + file))) << file;
    ++compared;
  }
  EXPECT_GE(compared, 13u);
}

}  // namespace
}  // namespace gtw::test
