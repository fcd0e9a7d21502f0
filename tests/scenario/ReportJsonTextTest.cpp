// report.json is written a piece at a time (sim/report/ReportJson.cpp: top-level sections and their elements built
// when their turn comes, a tenant's SLO windows and the leakage section's lists one by one into placeholders), never
// as one document. Its text
// must still be exactly the document's own two-space dump: parsing it and dumping it again gives the same bytes.
// Shipped scenarios with job SLOs (a window per job), request SLO windows, MIG instances, time-slicing, data
// movements, serving, and leakage channels, closed channels, discrete exposures and models (the model-IP lab).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::ordered_json;  // the report keeps its keys in the order written
const std::string SRC = GTW_SOURCE_DIR;

class ReportJsonText : public ::testing::TestWithParam<std::string> {};

TEST_P(ReportJsonText, IsTheDocumentsOwnDump) {
  TempDir dir;
  ProcessOptions options;
  options.env = {{"SOURCE_DATE_EPOCH", "0"}};
  const auto r = run_process(run_argv(GTW_BINARY, SRC + "/scenarios/" + GetParam(), dir.file("out"), "json"), options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(dir.file("out") + "/report.json");
  const json document = json::parse(text);
  ASSERT_TRUE(document.contains("tenants"));
  EXPECT_EQ(text, document.dump(2) + "\n");
}

INSTANTIATE_TEST_SUITE_P(Shipped, ReportJsonText,
                         ::testing::Values("examples/default.yaml", "ci/training.yaml", "ci/mig.yaml",
                                           "compliance/design-us-burst.yaml", "examples/serving/mps.yaml",
                                           "labs/03-model-ip.yaml"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return test_param_name(param.param);
                         });

}  // namespace
}  // namespace gtw::test
