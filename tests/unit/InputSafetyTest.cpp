// Unit tests of the input layer (sim/core/InputFile), the schema's ranges (FieldDocs), output names
// (sim/core/OutputName), strict JSON (sim/core/StrictJson) and the run budget (sim/engine/RunBudget).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "Errors.hpp"
#include "FieldDocs.hpp"
#include "InputFile.hpp"
#include "OutputName.hpp"
#include "RunBudget.hpp"
#include "StrictJson.hpp"
#include "YamlDocuments.hpp"

namespace gtw {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gtw-input-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

std::string first_message(const Diagnostics& d) {
  return d.all().empty() ? "" : d.all().front().format();
}

TEST(InputFile, ReadsARegularTextFile) {
  TempDir dir;
  Diagnostics d;
  const auto text = read_input_file(dir.write("a.yaml", "a: 1\n"), InputKind::SCENARIO, d);
  ASSERT_TRUE(text) << first_message(d);
  EXPECT_EQ(*text, "a: 1\n");
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  TempDir dir;
  ::mkfifo((dir.path / "fifo").c_str(), 0600);
  const std::vector<std::pair<std::string, std::string>> cases{
      {dir.path.string(), "it is a directory"},
      {(dir.path / "fifo").string(), "FIFO"},
      {"/dev/zero", "character device"},
      {"/proc/self/status", "pseudo-file"},
      {(dir.path / "missing").string(), "no such file"},
  };
  for (const auto& [path, expected] : cases) {
    for (auto kind : {InputKind::SCENARIO, InputKind::TRACE_CSV, InputKind::NVIDIA_SMI, InputKind::AUDIT_LOG,
                      InputKind::REPORT_JSON, InputKind::BINARY}) {
      Diagnostics d;
      EXPECT_FALSE(read_input_file(path, kind, d)) << path;
      EXPECT_NE(first_message(d).find(expected), std::string::npos) << path << ": " << first_message(d);
    }
  }
}

TEST(InputFile, RefusesFilesOverTheKindsCap) {
  TempDir dir;
  const std::string big = dir.write("big.txt", std::string(input_limits(InputKind::NVIDIA_SMI).max_bytes + 1, 'x'));
  Diagnostics d;
  EXPECT_FALSE(read_input_file(big, InputKind::NVIDIA_SMI, d));
  EXPECT_NE(first_message(d).find("are limited to 1.0 MiB"), std::string::npos) << first_message(d);
  Diagnostics ok;
  EXPECT_TRUE(read_input_file(big, InputKind::TRACE_CSV, ok)) << first_message(ok);
}

TEST(InputFile, RefusesBinaryAndInvalidUtf8WithTheirPosition) {
  TempDir dir;
  Diagnostics nul;
  EXPECT_FALSE(read_input_file(dir.write("nul.csv", std::string("a,b\n1,\0\n", 8)), InputKind::TRACE_CSV, nul));
  EXPECT_NE(first_message(nul).find("nul.csv:2:3: error: file is not text (control byte 0x00"), std::string::npos)
      << first_message(nul);
  Diagnostics latin1;
  EXPECT_FALSE(read_input_file(dir.write("l1.yaml", "name: caf\xe9\n"), InputKind::SCENARIO, latin1));
  EXPECT_NE(first_message(latin1).find("l1.yaml:1:10: error: file is not valid UTF-8"), std::string::npos)
      << first_message(latin1);
  Diagnostics ok;
  EXPECT_TRUE(read_input_file(dir.write("utf8.yaml", "name: caf\xc3\xa9\t\r\n"), InputKind::SCENARIO, ok));
}

TEST(InputFile, ThrowingFormIsAnInputError) {
  EXPECT_THROW(read_input_file_or_throw("/dev/zero", InputKind::TRACE_CSV), InputError);
}

TEST(InputFile, NulInTheFileNameIsRefused) {
  Diagnostics d;
  EXPECT_FALSE(read_input_file(std::string("a\0b", 3), InputKind::SCENARIO, d));
  EXPECT_NE(first_message(d).find("NUL"), std::string::npos);
}

TEST(FieldRanges, EveryNumericFieldHasARangeAndEveryRangeAField) {
  std::set<std::string> documented;
  for (const auto& d : field_docs()) {
    if (!numeric_field_type(d.type)) continue;
    documented.insert(std::string(d.path));
    const FieldRange* r = field_range(d.path);
    ASSERT_NE(r, nullptr) << d.path << " <" << d.type << "> has no documented range";
    EXPECT_LE(r->min, r->max) << d.path;
    EXPECT_TRUE(std::isfinite(r->min) && std::isfinite(r->max)) << d.path;
  }
  for (const auto& r : field_ranges())
    EXPECT_TRUE(documented.count(std::string(r.path))) << r.path << " has a range but no numeric field";
  EXPECT_GT(documented.size(), 100u);
}

TEST(FieldRanges, ReadInTheFieldsUnit) {
  EXPECT_EQ(format_field_range(*field_range("spec.duration"), field_type("spec.duration")), "1.00 ms..366d");
  EXPECT_EQ(format_field_range(*field_range("spec.cluster.nodePools[].gpusPerNode"), "int"), "1..16");
  EXPECT_EQ(format_field_value(1e6, "rate"), "1000000/s");
}

TEST(OutputName, NeverLeavesTheOutputFolder) {
  EXPECT_EQ(output_name("default"), "default");
  EXPECT_EQ(output_name("../../x"), "x");
  EXPECT_EQ(output_name(".."), "run");
  EXPECT_EQ(output_name("."), "run");
  EXPECT_EQ(output_name(""), "run");
  EXPECT_EQ(output_name("/etc/passwd"), "etc-passwd");
  EXPECT_EQ(output_name("a/../b"), "a-..-b");
  EXPECT_EQ(output_name(std::string("a\0b\x01\n c", 8)), "a-b-c");
  EXPECT_EQ(output_name(".hidden"), "hidden");
  EXPECT_EQ(output_name(std::string(300, 'n')).size(), MAX_OUTPUT_NAME);
  for (const auto& hostile : {"..", "../", "/..", "a/..", "...", "-..-", "\xc3\xa9\xc3\xa9"}) {
    const std::string n = output_name(hostile);
    EXPECT_EQ(n.find('/'), std::string::npos) << hostile;
    EXPECT_NE(n, "..") << hostile;
    EXPECT_NE(n.front(), '.') << hostile;
  }
}

TEST(StrictJson, RefusesRepeatedKeysAndHugeNumbers) {
  EXPECT_NO_THROW(parse_json_strict(R"({"a": {"b": 1}, "c": [{"b": 2}, {"b": 3}]})"));
  EXPECT_THROW(parse_json_strict(R"({"a": 1, "a": 2})"), std::runtime_error);
  EXPECT_THROW(parse_json_strict(R"({"x": {"a": 1, "a": 2}})"), std::runtime_error);
  EXPECT_THROW(parse_json_strict(R"({"a": 1e400})"), std::runtime_error);
  EXPECT_THROW(parse_json_strict("{"), std::runtime_error);
}

TEST(YamlDocuments, AStrayCommaIsAnErrorNotAHang) {
  // yaml-cpp's LoadAll loops forever on these (an empty document that consumes nothing, again and again).
  for (const char* text : {",", ",,", "# c\n,\n"}) EXPECT_THROW(load_all_documents(text), YAML::Exception) << text;
  EXPECT_EQ(load_all_documents("a: 1\n---\nb: 2\n").size(), 2u);
  EXPECT_EQ(load_all_documents("---\n---\na: 1\n").size(), 2u);
  EXPECT_EQ(load_all_documents("").size(), 0u);
  std::string many;
  for (int i = 0; i < 100; ++i) many += "--- " + std::to_string(i) + "\n";
  EXPECT_THROW(load_all_documents(many), YAML::Exception);
}

ScenarioSpec one_service(double rate, double duration_s) {
  ScenarioSpec spec;
  spec.duration = Seconds(duration_s);
  NodePoolSpec pool;
  pool.name = "p";
  spec.node_pools.push_back(pool);
  WorkloadSpec w;
  w.name = "svc";
  w.kind = WorkloadKind::INFERENCE;
  w.replicas = 2;
  w.arrival.rate = PerSecond(rate);
  spec.workloads.push_back(w);
  return spec;
}

TEST(RunBudget, EstimateGrowsWithLoadAndNamesTheLargestPart) {
  const auto small = estimate_run(one_service(10, 60));
  const auto big = estimate_run(one_service(1e6, 30 * 86400));
  EXPECT_GT(big.events, 1e12);
  EXPECT_LT(small.events, 1e4);
  ASSERT_FALSE(big.largest.empty());
  EXPECT_NE(big.largest.front().find("svc"), std::string::npos);
  Diagnostics ok, refused;
  EXPECT_TRUE(check_run_budget(one_service(10, 60), small, RunLimits{}, ok));
  EXPECT_FALSE(check_run_budget(one_service(1e6, 30 * 86400), big, RunLimits{}, refused));
  EXPECT_NE(first_message(refused).find("--max-events"), std::string::npos) << first_message(refused);
  RunLimits raised;
  raised.max_events = 1e15;
  raised.max_memory_bytes = 1e18;
  Diagnostics still;
  EXPECT_TRUE(check_run_budget(one_service(1e6, 30 * 86400), big, raised, still) ||
              first_message(still).find("--max") == std::string::npos)
      << "raising the limits lets a big run through (bar the machine's own limits)";
}

// Time slices happen only while tenants contend for a GPU: they are bounded by one per quantum of every sliced
// device and by the GPU time of the work that may run there, and, being an upper bound, they only warn when
// they alone would pass a limit (the run's own check stops it there). Arrivals beyond a limit are refused.
TEST(RunBudget, TimeSlicesAreBoundedByTheWorkAndOnlyWarn) {
  auto light = one_service(0.1, 86400);  // 8,640 requests in a day on 64 time-sliced H100s
  light.node_pools[0].gpu_product = "H100-80GB-SXM";
  light.node_pools[0].count = 8;
  light.node_pools[0].gpus_per_node = 8;
  light.node_pools[0].sharing.mode = SharingMode::TIME_SLICING;
  light.node_pools[0].sharing.replicas = 2;
  light.node_pools[0].sharing.time_slice = Seconds(0.002);
  light.workloads[0].model.parameters = 8e9;
  const auto e = estimate_run(light);
  const double every_quantum = 64 * 86400 / 0.002;
  EXPECT_GT(e.slice_events, 0);
  EXPECT_LT(e.slice_events, every_quantum / 100) << "bounded by the work, not by every quantum";
  // The detailed log (--trace detailed) logs the switch apart from its slice: twice the events.
  EXPECT_DOUBLE_EQ(estimate_run(light, true).slice_events, 2 * e.slice_events);
  Diagnostics d;
  RunLimits tight;
  tight.max_events = e.events - e.slice_events + 1;  // the arrivals fit, the slices would not
  EXPECT_TRUE(check_run_budget(light, e, tight, d)) << d.format_all();
  EXPECT_NE(d.format_all().find("warning: spec: the run may simulate up to"), std::string::npos) << d.format_all();
  Diagnostics refused;
  tight.max_events = (e.events - e.slice_events) / 2;
  EXPECT_FALSE(check_run_budget(light, e, tight, refused));
  // An attacker's probes cannot be bounded by work: then every quantum counts.
  auto attacked = light;
  WorkloadSpec spy;
  spy.name = "spy";
  spy.kind = WorkloadKind::ATTACK;
  attacked.workloads.push_back(spy);
  EXPECT_DOUBLE_EQ(estimate_run(attacked).slice_events, every_quantum);
  EXPECT_DOUBLE_EQ(estimate_run(attacked, true).slice_events, 2 * every_quantum);
}

TEST(RunBudget, TooManyActorsAreRefused) {
  auto spec = one_service(1, 60);
  spec.workloads[0].replicas = 100000;
  for (int i = 0; i < 10; ++i) spec.workloads.push_back(spec.workloads[0]);
  const auto e = estimate_run(spec);
  EXPECT_GT(e.actors, 1e6);
  Diagnostics d;
  EXPECT_FALSE(check_run_budget(spec, e, RunLimits{}, d));
  EXPECT_NE(d.format_all().find("simulated processes"), std::string::npos) << d.format_all();
}

}  // namespace
}  // namespace gtw
