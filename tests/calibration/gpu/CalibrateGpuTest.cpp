// Needs a GPU (label gpu): the quick suite and the validation loop on the real device. Skipped,
// with the reason, where the kernels were not built or no GPU answers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "Subprocess.hpp"

using gtw::test::run_process;

TEST(CalibrateGpu, QuickSuiteAndValidationOnTheDevice) {
#ifndef GTW_CALIBRATE_KERNELS_PATH
  GTEST_SKIP() << "the calibration kernels were not built (no nvcc at configure time)";
#else
  const auto probe = run_process({GTW_CALIBRATE_KERNELS_PATH, "--probe"});
  if (probe.exit_code == 4) GTEST_SKIP() << "no GPU: " << probe.out;
  ASSERT_EQ(probe.exit_code, 0) << probe.out << probe.err;
  gtw::test::TempDir tmp;
  const auto r = run_process({GTW_BINARY, "calibrate", "--quick", "--validate", "-o", tmp.file("gpu.yaml")}, 900);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;  // 1: validation goal missed
  const auto j = nlohmann::json::parse(gtw::test::read_text(tmp.file("gpu.validation.json")));
  EXPECT_FALSE(j["synthetic"].get<bool>());
  EXPECT_GE(j["cases"].size(), 6u);
  std::cout << r.out;
#endif
}
