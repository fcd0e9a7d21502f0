// Raw recordings: JSON round trip, HDF5, the profile written from a fit, and every recording on
// disk: real ones under calibration/data/ (none is committed until a GPU session makes one) and the
// synthetic fixture under tests/calibration/fixtures/ (clearly labelled synthetic).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ChannelCatalogue.hpp"
#include "Fit.hpp"
#include "HardwareProfile.hpp"
#include "Profile.hpp"
#include "RawSamples.hpp"
#include "Subprocess.hpp"
#include "Synthetic.hpp"

namespace fs = std::filesystem;
using namespace gtw::calib;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string profile_of(const RawRecording& r, const FitResult& f, std::vector<std::string>& notes) {
  const std::string base = std::string(GTW_SOURCE_DIR) + "/calibration/profiles/" + base_profile_for(r) + ".yaml";
  ProfileOptions po;
  po.name = "test-calibrated";
  po.base_file = base;
  po.raw_file = "test.samples.h5";
  std::string yaml, error;
  EXPECT_TRUE(make_profile_yaml(f, r, slurp(base), po, yaml, notes, error)) << error;
  return yaml;
}

// Every recording file the tests should check: real ones first.
std::vector<std::string> recordings() {
  std::vector<std::string> out;
  for (const char* dir : {"/calibration/data", "/tests/calibration/fixtures"}) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(std::string(GTW_SOURCE_DIR) + dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string p = it->path().string();
      if (p.size() > 9 && p.compare(p.size() - 9, 9, ".raw.json") == 0) out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(CalibrationRecording, JsonRoundTrip) {
  const RawRecording r = synthesize(TrueParams{});
  RawRecording back;
  std::string error;
  ASSERT_TRUE(parse_raw(raw_to_json(r), "mem.json", back, error)) << error;
  EXPECT_TRUE(back.synthetic);
  EXPECT_EQ(back.experiments.size(), r.experiments.size());
  EXPECT_EQ(back.meta("device"), r.meta("device"));
  ASSERT_FALSE(back.all("hbm.copy").empty());
  EXPECT_EQ(*back.all("hbm.copy")[0]->get("t"), *r.all("hbm.copy")[0]->get("t"));
  // Deterministic text.
  EXPECT_EQ(raw_to_json(r), raw_to_json(synthesize(TrueParams{})));
}

TEST(CalibrationRecording, RejectsWhatIsNotARecording) {
  RawRecording r;
  std::string error;
  EXPECT_FALSE(parse_raw("{}", "x.json", r, error));
  EXPECT_NE(error.find("gputwin-calibration-raw"), std::string::npos) << error;
  EXPECT_FALSE(parse_raw("not json", "x.json", r, error));
  EXPECT_FALSE(
      parse_raw(R"({"format": "gputwin-calibration-raw", "version": 9, "experiments": []})", "x.json", r, error));
  EXPECT_NE(error.find("version 9"), std::string::npos) << error;
}

TEST(CalibrationRecording, WritesHdf5WithMetadataAndSeries) {
  gtw::test::TempDir tmp;
  const RawRecording r = synthesize(TrueParams{});
  std::string error;
  const std::string path = tmp.file("samples.h5");
  ASSERT_TRUE(write_raw_h5(path, r, error)) << error;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(f, 0);
  const hid_t meta = H5Gopen2(f, "/metadata", H5P_DEFAULT);
  ASSERT_GE(meta, 0);
  EXPECT_GT(H5Aexists(meta, "driver_version"), 0);
  EXPECT_GT(H5Aexists(meta, "synthetic"), 0);
  H5Gclose(meta);
  const hid_t d = H5Dopen2(f, "/experiments/0000_clock.sm/hz", H5P_DEFAULT);
  ASSERT_GE(d, 0);
  const hid_t s = H5Dget_space(d);
  EXPECT_EQ(H5Sget_simple_extent_npoints(s), static_cast<hssize_t>(r.experiments[0].series[0].second.size()));
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
}

TEST(CalibrationRecording, FittedProfileLoadsAndSaysWhereEachNumberComesFrom) {
  const RawRecording r = synthesize(TrueParams{});
  const FitResult f = fit_recording(r);
  std::vector<std::string> notes;
  const std::string yaml = profile_of(r, f, notes);
  gtw::HardwareProfile p;
  gtw::Diagnostics d;
  ASSERT_TRUE(gtw::load_profile_text(yaml, "calibrated.yaml", p, d)) << d.format_all() << yaml;
  EXPECT_NEAR(p.hbm_achievable.value, f.hbm_copy.value, 1e-3 * f.hbm_copy.value);
  EXPECT_NEAR(p.l2_contention, f.l2_contention.value, 1e-3);
  EXPECT_NEAR(p.context_switch.value, f.context_switch.value, 1e-2 * f.context_switch.value);
  // The achievable FP32 rate of the model equals the measured one.
  EXPECT_NEAR(p.achievable_rate(gtw::DType::FP32).value, f.fp32.value, 2e-3 * f.fp32.value);
  EXPECT_EQ(p.sources.at("hbmAchievable").rfind("(synthetic)", 0), 0u) << p.sources.at("hbmAchievable");
  EXPECT_NE(p.sources.at("hbmAchievable").find("SYNTHETIC"), std::string::npos);
  EXPECT_EQ(p.sources.at("mig.reconfiguration").find("(synthetic)"), std::string::npos);  // kept from the base
  ASSERT_TRUE(p.mig.has_value());
  // The L2 prime+probe channel calibrates the leakage catalogue.
  gtw::Diagnostics cd;
  gtw::channel::Catalogue::defaults();
  auto cat = gtw::channel::Catalogue::defaults();
  gtw::channel::load_profile_channels_text(yaml, "calibrated.yaml", p.product, cat, cd);
  EXPECT_FALSE(cd.has_errors()) << cd.format_all();
  EXPECT_EQ(cat.calibrations().size(), 1u);
}

TEST(CalibrationRecording, EveryRecordingOnDiskFitsToALoadableProfile) {
  const auto files = recordings();
  ASSERT_FALSE(files.empty()) << "the synthetic fixture tests/calibration/fixtures/*.raw.json is missing";
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    RawRecording r;
    std::string error;
    ASSERT_TRUE(load_raw(file, r, error)) << error;
    const bool in_fixtures = file.find("/tests/calibration/fixtures/") != std::string::npos;
    // Fixtures are synthetic and say so; calibration/data holds real recordings only.
    EXPECT_EQ(r.synthetic, in_fixtures) << "synthetic recordings belong in tests/calibration/fixtures, measured ones "
                                           "in calibration/data";
    const FitResult f = fit_recording(r);
    ASSERT_TRUE(f.hbm_copy.ok());
    std::vector<std::string> notes;
    const std::string yaml = profile_of(r, f, notes);
    gtw::HardwareProfile p;
    gtw::Diagnostics d;
    EXPECT_TRUE(gtw::load_profile_text(yaml, file, p, d)) << d.format_all();
    if (!r.synthetic) {
      // Issue 8: measured HBM bandwidth within 15% of the published figure of that GPU. The dense
      // tensor peak is not reachable by any GEMM (cuBLAS reached 80% on an H200 here, KINDS.md), so
      // the GEMM rate is held to 30% and its ratio is printed.
      gtw::HardwareProfile base;
      gtw::Diagnostics bd;
      ASSERT_TRUE(gtw::load_profile(base_profile_for(r), {}, "", base, bd));
      const double hbm_ratio = f.hbm_copy.value / base.hbm_bandwidth.value;
      EXPECT_NEAR(hbm_ratio, 1.0, 0.15) << "HBM copy " << f.hbm_copy.value << " B/s vs published "
                                        << base.hbm_bandwidth.value;
      if (f.gemm_bf16.ok()) {
        const double gemm_ratio = f.gemm_bf16.value / base.bf16_tensor.value;
        std::cout << "[ recorded ] " << file << ": HBM " << hbm_ratio * 100 << "% of published, BF16 GEMM "
                  << gemm_ratio * 100 << "% of the dense peak\n";
        EXPECT_NEAR(gemm_ratio, 1.0, 0.30);
      }
    }
  }
}

// A partial recording (`--suites memory`, or suites that failed on the GPU) still gives a loadable
// profile: unmeasured fields keep the base profile's values and sources.
TEST(CalibrationRecording, PartialRecordingKeepsTheBaseValues) {
  RawRecording r = synthesize(TrueParams{});
  RawRecording partial = r;
  partial.experiments.clear();
  for (const auto& e : r.experiments)
    if (e.name.rfind("hbm.", 0) == 0) partial.experiments.push_back(e);
  const FitResult f = fit_recording(partial);
  std::vector<std::string> notes;
  const std::string yaml = profile_of(partial, f, notes);
  gtw::HardwareProfile p;
  gtw::Diagnostics d;
  ASSERT_TRUE(gtw::load_profile_text(yaml, "partial.yaml", p, d)) << d.format_all();
  EXPECT_EQ(p.sources.at("contextSwitch").rfind("(synthetic)", 0), std::string::npos);
  EXPECT_EQ(p.sources.at("hbmAchievable").rfind("(synthetic)", 0), 0u);
  EXPECT_FALSE(notes.empty());
}
