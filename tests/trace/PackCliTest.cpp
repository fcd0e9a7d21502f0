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

// Hostile inputs found in review: each is refused before any work, with exit 2 and nothing written.
TEST(PackCli, HostileInputsAreRefusedBeforeAnyRun) {
  TempDir dir;
  write_text(dir.file("cpu_pods.csv"),
             "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,0,0\np-1,2000,1024,0,0\n");
  write_text(dir.file("no_gpu_nodes.csv"), "sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,0,\n");
  write_text(dir.file("a_file"), "x");
  std::string crlf_bad = "workload,sc_policy,tune,seed,total_gpus";
  for (int c = 0; c <= 130; ++c) crlf_bad += "," + std::to_string(c);
  crlf_bad += "\r\nopenb_pod_list_default,05-BestFit,1.3,42,6212";
  for (int c = 0; c <= 130; ++c) crlf_bad += c == 7 ? ",x" : ",1.0";
  crlf_bad += "\r\n";
  write_text(dir.file("bad_published.csv"), crlf_bad);
  const std::string out = dir.file("out");
  const std::vector<std::vector<std::string>> cases = {
      // A pod list without GPU pods: the reference's tuning would copy forever.
      {"--trace", TRACE, "--pods", dir.file("cpu_pods.csv"), "-o", out},
      {"--trace", TRACE, "--nodes", dir.file("no_gpu_nodes.csv"), "-o", out},
      {"--trace", TRACE, "--tune-ratio", "nan", "-o", out},
      {"--trace", TRACE, "--tune-ratio", "inf", "-o", out},
      {"--trace", TRACE, "--tune-seed", "9223372036854775808", "-o", out},  // beyond int64: refused, not clamped
      {"--trace", TRACE, "--tune-seed", "42x", "-o", out},
      {"--trace", TRACE, "--tune-seed", "", "-o", out},  // an empty value is refused, not read as the default
      {"--trace", TRACE, "--evaluation", "--published", "", "-o", out},
      {"--trace", TRACE, "--evaluation", "--published", "/dev/zero", "-o", out},
      {"--trace", TRACE, "-o", dir.file("a_file")},
      {"--trace", TRACE, "--evaluation", "--seeds", "1-20000", "-o", out},
      {"--trace", TRACE, "--evaluation", "--param", "max_cpu_milli=5", "-o", out},
      {"--trace", TRACE, "--evaluation", "--mode", "time", "-o", out},
      {"--trace", TRACE, "--evaluation", "--published", dir.file("bad_published.csv"), "-o", out},
  };
  for (const auto& args : cases) {
    const auto r = pack(args);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.err;
    // gputwin's own errors say "error"; the option parser's say what it expected.
    EXPECT_TRUE(r.err.find("error") != std::string::npos || r.err.find("expected") != std::string::npos) << line << "\n"
                                                                                                         << r.err;
  }
  EXPECT_FALSE(fs::exists(out)) << "nothing written";
  // Seeds next to the int64 limit are seeds like any other (no counter overflow).
  TempDir edge;
  const auto top = pack({"--trace", TRACE, "--evaluation", "--workloads", "default", "--policy", "best-fit", "--seeds",
                         "9223372036854775806-9223372036854775807", "-o", edge.path()});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(read_text(edge.file("analysis_allo_discrete.csv")).find(",9223372036854775807,6212,"), std::string::npos);
  // A CRLF published file compares as its LF original does.
  std::string published = read_text(TRACE + "/published/analysis_allo_discrete.csv"), crlf;
  for (char c : published) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_text(dir.file("crlf.csv"), crlf);
  const auto r = pack({"--trace", TRACE, "--evaluation", "--workloads", "default", "--seeds", "44", "--policy",
                       "gpu-packing", "--published", dir.file("crlf.csv"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_text(out + "/comparison.md").find("| gpu-packing | 1 | 1 | 1 | 0.00 |"), std::string::npos)
      << read_text(out + "/comparison.md");
}

TEST(PackCli, PoliciesAreListedByExplain) {
  const auto r = run_process({GTW_BINARY, "explain", "policies"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* policy : {"random-fit", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"})
    EXPECT_NE(r.out.find(std::string("  ") + policy + "\n"), std::string::npos) << policy;
  EXPECT_NE(r.out.find("params.max_cpu_milli"), std::string::npos);
}
