// End to end: `gputwin run` on the isolation examples writes the leakage section and findings.sarif,
// and the direction of the result follows the design (time-slicing exposes the L2 between the
// co-located tenants, MIG does not; CC closes the plaintext weights but not PCIe timing).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "Subprocess.hpp"

namespace gtw::test {
namespace {

using json = nlohmann::json;

std::string run_example(const TempDir& dir, const std::string& mode, const std::string& formats = "json,sarif") {
  const std::string out = dir.file(mode);
  const auto r =
      run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/" + mode + ".yaml",
                   "-o", out, "--progress", "none", "--format", formats, "--set", "spec.duration=2m"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

json leakage_of(const std::string& out) {
  return json::parse(read_text(out + "/report.json"))["leakage"];
}

const json* channel(const json& l, const std::string& observer, const std::string& source, const std::string& resource,
                    const std::string& mode) {
  for (const auto& c : l["channels"])
    if (c["observer"] == observer && c["source"] == source && c["resource"] == resource && c["mode"] == mode) return &c;
  return nullptr;
}

bool any_open(const json& l, const std::string& resource) {
  for (const auto& c : l["channels"])
    if (c["resource"] == resource && c["exposure_s"].get<double>() > 0) return true;
  return false;
}

int line_of(const std::string& file, const std::string& needle) {
  std::istringstream in(read_text(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(needle) != std::string::npos) return n;
  return 0;
}

TEST(LeakageCli, TimeSlicingExposesTheL2BetweenCoLocatedTenants) {
  TempDir dir;
  const auto out = run_example(dir, "time-slicing", "json,sarif,h5");
  const json l = leakage_of(out);
  for (const auto& [observer, source] : {std::pair{"chat", "analytics"}, std::pair{"analytics", "chat"}}) {
    const json* l2 = channel(l, observer, source, "l2", "timeSlicing");
    ASSERT_NE(l2, nullptr) << observer << " <- " << source;
    EXPECT_GT((*l2)["exposure_s"].get<double>(), 1.0);
    EXPECT_LE((*l2)["exposure_s"].get<double>(), 120.0);
    EXPECT_DOUBLE_EQ((*l2)["bound_bits"].get<double>(),
                     (*l2)["capacity_bps"].get<double>() * (*l2)["exposure_s"].get<double>());
  }
  // The fine-tune runs alone on its own node: nothing on its GPUs reaches the others.
  for (const auto& c : l["channels"]) {
    EXPECT_NE(c["source"], "research") << c.dump();
    EXPECT_NE(c["observer"], "research") << c.dump();
  }
  EXPECT_GT(l["totals"]["bits"].get<double>(), 0);

  // findings.sarif: valid SARIF 2.1.0, located at the pool's `sharing: {mode: timeSlicing ...}` line.
  const json sarif = json::parse(read_text(out + "/findings.sarif"));
  EXPECT_EQ(sarif["version"], "2.1.0");
  const auto& results = sarif["runs"][0]["results"];
  ASSERT_FALSE(results.empty());
  const int sharing_line =
      line_of(std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/time-slicing.yaml", "mode: timeSlicing");
  ASSERT_GT(sharing_line, 0);
  bool at_sharing_line = false;
  for (const auto& r : results) {
    const auto& loc = r["locations"][0]["physicalLocation"];
    at_sharing_line |= loc["region"]["startLine"] == sharing_line &&
                       loc["artifactLocation"]["uri"].get<std::string>().find("time-slicing.yaml") != std::string::npos;
    EXPECT_FALSE(r["properties"]["tags"].empty());
  }
  EXPECT_TRUE(at_sharing_line);

  // results.h5 carries the same table.
  const hid_t file = H5Fopen((out + "/results.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  EXPECT_GT(H5Lexists(file, "/leakage", H5P_DEFAULT), 0);
  const hid_t dset = H5Dopen2(file, "/leakage/channels", H5P_DEFAULT);
  ASSERT_GE(dset, 0);
  const hid_t space = H5Dget_space(dset);
  EXPECT_EQ(static_cast<size_t>(H5Sget_simple_extent_npoints(space)), l["channels"].size());
  H5Sclose(space);
  H5Dclose(dset);
  H5Fclose(file);
}

TEST(LeakageCli, MigClosesL2AndHbmButNotPcie) {
  TempDir dir;
  const json l = leakage_of(run_example(dir, "mig"));
  for (const char* r : {"sm", "l1", "l2", "hbm", "nvlink"}) EXPECT_FALSE(any_open(l, r)) << r;
  bool l2_closed = false;
  for (const auto& c : l["closed"]) l2_closed |= c["resource"] == "l2" && c["mode"] == "mig";
  EXPECT_TRUE(l2_closed);
  const json* pcie = channel(l, "chat", "analytics", "pcie", "mig");
  ASSERT_NE(pcie, nullptr);
  EXPECT_GT((*pcie)["bound_bits"].get<double>(), 0);
}

TEST(LeakageCli, ConfidentialClosesPlaintextWeightsButNotPcieTiming) {
  TempDir dir;
  const json l = leakage_of(run_example(dir, "confidential"));
  bool weights_seen = false;
  for (const auto& d : l["discrete"])
    if (d["kind"] == "plaintextPcie" && d["source"] == "chat") {
      weights_seen = true;
      EXPECT_TRUE(d["closed"].get<bool>()) << d.dump();
    }
  EXPECT_TRUE(weights_seen);
  EXPECT_FALSE(any_open(l, "nvlink"));
  EXPECT_FALSE(any_open(l, "l2"));
  EXPECT_NE(channel(l, "analytics", "chat", "pcie", "separateGpus"), nullptr);
  // The same tenants on the time-sliced design leak the weights in plaintext.
  const json ts = leakage_of(run_example(dir, "time-slicing"));
  EXPECT_GT(ts["totals"]["bytes"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(l["totals"]["bytes"].get<double>(), 0);
  EXPECT_LT(l["totals"]["bits"].get<double>(), ts["totals"]["bits"].get<double>());
}

// A hardware profile's `spec.channels` calibrates the channel for that product, end to end; a bad
// entry stops the run with exit 2 and its file:line.
TEST(LeakageCli, ProfileChannelsCalibrateTheRun) {
  TempDir dir;
  const std::string profile = read_text(std::string(GTW_SOURCE_DIR) + "/calibration/profiles/H100-80GB-SXM.yaml");
  write_text(dir.file("H100-80GB-SXM.yaml"),
             profile +
                 "  channels:\n"
                 "    - {resource: pcie, mode: mig, probeRate: 2000/s, errorRate: 0.11, source: \"bench X\"}\n");
  ProcessOptions options;
  options.env = {{"GPUTWIN_PROFILE_PATH", dir.path()}};
  const std::string out = dir.file("out");
  auto r = run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/mig.yaml", "-o",
                        out, "--progress", "none", "--format", "json", "--set", "spec.duration=2m"},
                       options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json l = leakage_of(out);
  const json* pcie = channel(l, "chat", "analytics", "pcie", "mig");
  ASSERT_NE(pcie, nullptr);
  EXPECT_NEAR((*pcie)["capacity_bps"].get<double>(), 2000 * (1 - 0.49991596), 1e-3);  // 1 - H(0.11)
  EXPECT_NE((*pcie)["capacity_source"].get<std::string>().find("calibrated: bench X"), std::string::npos);
  // Between GPUs the published default still applies.
  const json* other = channel(l, "chat", "analytics", "pcie", "separateGpus");
  ASSERT_NE(other, nullptr);
  EXPECT_DOUBLE_EQ((*other)["capacity_bps"].get<double>(), 13020);

  write_text(dir.file("H100-80GB-SXM.yaml"),
             profile + "  channels:\n    - {resource: pcie, mode: mig, probeRate: fast, errorRate: 0.1, source: x}\n");
  r = run_process({GTW_BINARY, "run", std::string(GTW_SOURCE_DIR) + "/scenarios/examples/isolation/mig.yaml", "-o",
                   dir.file("bad"), "--progress", "none"},
                  options);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("H100-80GB-SXM.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("spec.channels[0].probeRate"), std::string::npos) << r.err;
}

// A measurement seen through several resources counts once per pair and relation (docs/models/leakage.md):
// under MPS the SM, L1, L2 and HBM channels all rest on A1; report.json keeps each channel's own bound and
// says which one carries the bits; the totals add the carriers only.
TEST(LeakageCli, OneMeasurementCountsOncePerPairAndRelation) {
  TempDir dir;
  const std::string out = run_example(dir, "mps", "json,md");
  const json l = leakage_of(out);
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> carriers;
  double counted = 0;
  int not_counted = 0;
  for (const auto& c : l["channels"]) {
    if (c["state"] != "open") continue;
    const auto key = std::make_tuple(c["observer"].get<std::string>(), c["source"].get<std::string>(),
                                     c["mode"].get<std::string>(), c["capacity_source"].get<std::string>());
    if (c["counted"].get<bool>()) {
      ++carriers[key];
      counted += c["bound_bits"].get<double>();
      EXPECT_TRUE(c["same_measurement_as"].is_null());
    } else {
      ++not_counted;
      EXPECT_TRUE(c["same_measurement_as"].is_string()) << c.dump();
    }
  }
  for (const auto& [key, n] : carriers) EXPECT_EQ(n, 1) << std::get<3>(key);
  EXPECT_GT(not_counted, 0) << "the MPS channels of A1 share one measurement";
  EXPECT_NEAR(l["totals"]["bits"].get<double>(), counted, 1e-9 * counted);
  EXPECT_NE(read_text(out + "/report.md").find("counted once)"), std::string::npos);
}

TEST(LeakageCli, SameSeedSameLeakageSection) {
  TempDir dir;
  const auto a = leakage_of(run_example(dir, "time-slicing"));
  TempDir dir2;
  const auto b = leakage_of(run_example(dir2, "time-slicing"));
  EXPECT_EQ(a.dump(), b.dump());
}

}  // namespace
}  // namespace gtw::test
