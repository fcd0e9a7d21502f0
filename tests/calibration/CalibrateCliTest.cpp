// `gputwin calibrate` through the binary: no GPU or no kernels give exit 4 with a clear message;
// --raw fits a recording without a GPU; --validate simulates the recorded co-run pairs with the
// fitted profile (child `gputwin run`s) and reports the error per pair.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "CorunValidation.hpp"
#include "Fit.hpp"
#include "Subprocess.hpp"

namespace fs = std::filesystem;
using gtw::test::run_process;

namespace {
const std::string FIXTURE = std::string(GTW_SOURCE_DIR) + "/tests/calibration/fixtures/synthetic-h200.raw.json";
}

TEST(CalibrateCli, WithoutKernelsExitsFourAndSaysWhy) {
  gtw::test::TempDir tmp;
  const auto r =
      run_process({GTW_BINARY, "calibrate", "--kernels", tmp.file("no-such-kernels"), "-o", tmp.file("p.yaml")});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("no calibration kernels"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.file("p.yaml")));
}

#ifdef GTW_CALIBRATE_KERNELS_PATH
// The kernels are built here (nvcc is present) but this machine has no GPU: exit 4, nothing written.
TEST(CalibrateCli, WithoutAGpuExitsFour) {
  const auto probe = run_process({GTW_CALIBRATE_KERNELS_PATH, "--probe"});
  if (probe.exit_code == 0) GTEST_SKIP() << "a GPU is present: " << probe.out;
  gtw::test::TempDir tmp;
  const auto r = run_process({GTW_BINARY, "calibrate", "-o", tmp.file("p.yaml")});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("no usable CUDA GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.file("p.yaml")));
}
#endif

TEST(CalibrateCli, RejectsBadArguments) {
  gtw::test::TempDir tmp;
  EXPECT_EQ(run_process({GTW_BINARY, "calibrate", "--raw", FIXTURE, "-o", tmp.file("p.json")}).exit_code, 2);
  gtw::test::write_text(tmp.file("bad.raw.json"), "{\"format\": \"something else\"}");
  const auto r = run_process({GTW_BINARY, "calibrate", "--raw", tmp.file("bad.raw.json"), "-o", tmp.file("p.yaml")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("gputwin-calibration-raw"), std::string::npos) << r.err;
}

TEST(CalibrateCli, FitsARecordingWithoutAGpu) {
  gtw::test::TempDir tmp;
  const std::string out = tmp.file("h200-synthetic.yaml");
  const auto r = run_process({GTW_BINARY, "calibrate", "--raw", FIXTURE, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("SYNTHETIC"), std::string::npos);
  EXPECT_TRUE(fs::exists(out));
  EXPECT_TRUE(fs::exists(tmp.file("h200-synthetic.samples.h5")));
  EXPECT_TRUE(fs::exists(tmp.file("h200-synthetic.fit.md")));
  const std::string text = gtw::test::read_text(out);
  EXPECT_NE(text.find("(synthetic)"), std::string::npos);
  // The new profile is usable by name from its folder.
  gtw::test::ProcessOptions po;
  po.env = {{"GPUTWIN_PROFILE_PATH", tmp.path()}};
  const auto list = run_process({GTW_BINARY, "profiles"}, po);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("h200-synthetic"), std::string::npos) << list.out;
}

// The validation loop end to end on the synthetic fixture: its co-run pairs were generated with the
// MPS roofline-pair model the simulator implements, so the simulation must reproduce them (within the
// fixture's 1% noise plus the simulator's start-up and PCIe terms).
TEST(CalibrateCli, ValidateSimulatesTheRecordedPairs) {
  gtw::test::TempDir tmp;
  const std::string out = tmp.file("v.yaml");
  const auto r = run_process({GTW_BINARY, "calibrate", "--raw", FIXTURE, "-o", out, "--validate"}, 300);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(gtw::test::read_text(tmp.file("v.validation.json")));
  ASSERT_EQ(j["cases"].size(), 6u) << j.dump(1);
  for (const auto& c : j["cases"]) {
    SCOPED_TRACE(c["id"].get<std::string>());
    ASSERT_FALSE(c.contains("error")) << c.dump();
    EXPECT_LT(c["error_a"].get<double>(), 0.05);
    EXPECT_LT(c["error_b"].get<double>(), 0.05);
  }
  EXPECT_TRUE(j["synthetic"].get<bool>());
  EXPECT_TRUE(j["pass"].get<bool>());
  EXPECT_NE(r.out.find("Median pair error"), std::string::npos);
}

TEST(CalibrationValidate, ComparisonAndReport) {
  using namespace gtw::calib;
  FitResult fit;
  fit.fp32.value = 60e12;
  fit.hbm_copy.value = 4e12;
  CorunPair p;
  p.mode = "stream";
  p.a = {"compute", 120e9, 0, {}, {}, NaN};
  p.b = {"memory", 0, 8e9, {}, {}, NaN};
  p.a.alone = summarize({2e-3, 2e-3, 2e-3});
  p.b.alone = summarize({2e-3, 2e-3, 2e-3});
  p.a.pair = summarize({2.2e-3});
  p.b.pair = summarize({2.1e-3});
  fit.stream_pairs.push_back(p);
  SimRates sim{700e12, 4e12, 0};
  auto cases = validation_cases(fit, sim);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_NEAR(cases[0].alone_model_error_a, 0, 1e-9);
  compare(cases, {{{2.0e-3}, {2.2e-3}}});
  ASSERT_TRUE(cases[0].ok());
  EXPECT_NEAR(cases[0].error_a(), 0.2 / 2.2, 1e-9);
  EXPECT_NEAR(cases[0].error_b(), 0.1 / 2.1, 1e-9);
  ValidationReport rep;
  rep.cases = cases;
  summarize_report(rep);
  EXPECT_NEAR(rep.median_error, 0.2 / 2.2, 1e-9);
  EXPECT_TRUE(rep.pass());
  EXPECT_NE(validation_markdown(rep).find("compute + memory"), std::string::npos);
  // A pair the simulation gave nothing for is reported, not counted.
  auto bad = validation_cases(fit, sim);
  compare(bad, {{}});
  EXPECT_FALSE(bad[0].ok());
  // The generated scenario keeps the kernels' intensity and puts the FP32 work in FP16 units.
  bool usable = false;
  const std::string yaml = pair_scenario_yaml(p, "H200-141GB", fit, sim, &usable);
  EXPECT_TRUE(usable);
  EXPECT_NE(yaml.find("mode: mps"), std::string::npos);
  EXPECT_NE(yaml.find("flops: 1.4e+12"), std::string::npos) << yaml;  // 120 GFLOP x 700 / 60
  EXPECT_NE(yaml.find("bytes: 8000000000B"), std::string::npos) << yaml;
}
