// gputwin pack end to end: exit codes, the files it writes, byte-identical output for a seed, and the
// packing policies in `gputwin explain policies`.
#include <gtest/gtest.h>

#include <filesystem>

#include "Subprocess.hpp"

using namespace gtw::test;
namespace fs = std::filesystem;

namespace {

const std::string TRACE = std::string(GTW_SOURCE_DIR) + "/data/openb";
const std::string FIXTURES = std::string(GTW_SOURCE_DIR) + "/tests/trace/fixtures/";

ProcessResult pack(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GTW_BINARY, "pack"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, 120);
}

}  // namespace

TEST(PackCli, WritesJsonCsvAndMarkdownForOnePolicy) {
  TempDir dir;
  const auto r = pack({"--trace", TRACE, "--policy", "fgd", "-o", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fgd"), std::string::npos) << r.out;
  const std::string json = read_text(dir.file("pack.json"));
  EXPECT_NE(json.find("\"policy\": \"fgd\""), std::string::npos);
  EXPECT_NE(json.find("\"arrivals\": 10866"), std::string::npos);
  EXPECT_NE(json.find("\"gpus\": 6212"), std::string::npos);
  const std::string csv = read_text(dir.file("pack.csv"));
  EXPECT_EQ(csv.rfind("policy,arrived_gpu_pct,", 0), 0u);
  size_t rows = 0;
  for (char c : csv) rows += c == '\n';
  EXPECT_EQ(rows, 1u + 131u);  // header + one row per percent of demand 0..130
  EXPECT_NE(read_text(dir.file("pack.md")).find("| fgd |"), std::string::npos);
  // The arrivals tuned from seed 42 are the published run's, written as its file is.
  EXPECT_EQ(read_text(dir.file("arrivals.csv")), read_text(TRACE + "/arrivals_default_tune1.3_seed42.csv"));
  EXPECT_EQ(read_text(dir.file("analysis_allo_discrete.csv")).rfind("workload,sc_policy,tune,seed,total_gpus,0,1,", 0),
            0u);
  // Nothing but the five outputs (no temporary files left behind).
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 5u);
}

TEST(PackCli, EvaluationWritesThePublishedLayoutAndComparesEveryRun) {
  TempDir dir;
  const auto r = pack({"--trace", TRACE, "--evaluation", "--workloads", "default", "--seeds", "42,43", "--policy",
                       "best-fit", "--published", TRACE + "/published/analysis_allo_discrete.csv", "-o", dir.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = read_text(dir.file("analysis_allo_discrete.csv"));
  EXPECT_NE(csv.find("\nopenb_pod_list_default,05-BestFit,1.3,42,6212,0.25,"), std::string::npos) << csv.substr(0, 900);
  EXPECT_NE(csv.find("\nopenb_pod_list_default,05-BestFit,1.3,43,6212,"), std::string::npos);
  EXPECT_NE(read_text(dir.file("comparison.md")).find("| best-fit | 2 | 2 | 2 | 0.00 |"), std::string::npos)
      << read_text(dir.file("comparison.md"));
  EXPECT_NE(read_text(dir.file("figure.svg")).find("<svg"), std::string::npos);
  EXPECT_NE(read_text(dir.file("figure.csv")).find("openb_pod_list_default,best-fit,43,"), std::string::npos);
  // Bad evaluation input: exit 2, nothing written.
  TempDir bad;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--trace", TRACE, "--evaluation", "--seeds", "x-1"},
        std::vector<std::string>{"--trace", TRACE, "--evaluation", "--workloads", "defualt"},
        std::vector<std::string>{"--evaluation"}}) {
    auto argv = args;
    argv.insert(argv.end(), {"-o", bad.path()});
    const auto b = pack(argv);
    EXPECT_EQ(b.exit_code, 2) << b.err;
  }
  EXPECT_FALSE(fs::exists(bad.file("analysis_allo_discrete.csv")));
}

TEST(PackCli, SameSeedGivesByteIdenticalOutput) {
  TempDir a, b;
  const std::vector<std::string> common = {"--trace", TRACE, "--policy", "all", "--seed", "5"};
  auto args = common;
  args.insert(args.end(), {"-o", a.path()});
  ASSERT_EQ(pack(args).exit_code, 0);
  args = common;
  args.insert(args.end(), {"-o", b.path()});
  ASSERT_EQ(pack(args).exit_code, 0);
  for (const char* file : {"pack.json", "pack.csv", "pack.md"})
    EXPECT_EQ(read_text(a.file(file)), read_text(b.file(file))) << file;
  // All six policies are in the report.
  const std::string json = read_text(a.file("pack.json"));
  for (const char* policy : {"random-fit", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"})
    EXPECT_NE(json.find(std::string("\"policy\": \"") + policy + "\""), std::string::npos) << policy;
}

TEST(PackCli, InvalidInputExitsTwoWithTheLocation) {
  TempDir dir;
  auto r = pack({"--trace", TRACE, "--policy", "bestfit", "-o", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'best-fit'"), std::string::npos) << r.err;

  r = pack({"--nodes", FIXTURES + "nodes-bad-values.csv", "--pods", TRACE + "/openb_pod_list_default.csv", "-o",
            dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nodes-bad-values.csv:3:8: error: cpu_milli:"), std::string::npos) << r.err;

  r = pack({"-o", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--trace DIR"), std::string::npos) << r.err;

  r = pack({"--trace", TRACE, "--policy", "fgd", "--param", "max_cpu_milli=5", "-o", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no selected policy has a parameter 'max_cpu_milli'"), std::string::npos) << r.err;

  r = pack({"--trace", TRACE, "--tie-break", "sometimes", "-o", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir.file("pack.json")));  // nothing written for invalid input
}

TEST(PackCli, PoliciesAreListedByExplain) {
  const auto r = run_process({GTW_BINARY, "explain", "policies"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* policy : {"random-fit", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"})
    EXPECT_NE(r.out.find(std::string("  ") + policy + "\n"), std::string::npos) << policy;
  EXPECT_NE(r.out.find("params.max_cpu_milli"), std::string::npos);
}
