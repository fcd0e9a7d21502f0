// MIG geometry against the reference tables (validation target V1: exact).
#include <gtest/gtest.h>

#include <algorithm>

#include "HardwareProfile.hpp"
#include "Subprocess.hpp"

namespace gtw {
namespace {

HardwareProfile profile(const std::string& name) {
  HardwareProfile p;
  Diagnostics d;
  EXPECT_TRUE(load_profile(name, SourceLoc{}, "", p, d)) << d.format_all();
  EXPECT_TRUE(p.mig.has_value()) << name;
  return p;
}

std::vector<std::string> repeat(const std::string& name, int n) {
  return std::vector<std::string>(static_cast<size_t>(n), name);
}

std::vector<std::string> concat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

struct Row {
  const char* name;
  int sms;
  double gib;
  int max;
  std::vector<int> placements;
  int size;
};

void expect_table(const std::string& product, const std::vector<Row>& rows) {
  const auto p = profile(product);
  ASSERT_EQ(p.mig->profiles.size(), rows.size()) << product;
  for (const auto& r : rows) {
    const auto* m = p.mig->find(r.name);
    ASSERT_NE(m, nullptr) << product << " " << r.name;
    EXPECT_EQ(m->sms, r.sms) << r.name;
    EXPECT_DOUBLE_EQ(m->memory, r.gib * 1073741824.0) << r.name;
    EXPECT_EQ(m->max_instances, r.max) << r.name;
    EXPECT_EQ(m->placements, r.placements) << r.name;
    EXPECT_EQ(m->memory_slices, r.size) << r.name;
    // Every profile alone, up to its maximum count, is accepted; one more is refused.
    EXPECT_TRUE(check_mig_layout(*p.mig, repeat(r.name, r.max)).feasible) << r.name << " x" << r.max;
    EXPECT_FALSE(check_mig_layout(*p.mig, repeat(r.name, r.max + 1)).feasible) << r.name << " x" << r.max + 1;
  }
}

const std::vector<int> ALL7{0, 1, 2, 3, 4, 5, 6};

TEST(MigGeometry, H100TableIsExact) {
  expect_table("H100-80GB-SXM", {{"1g.10gb", 16, 9.75, 7, ALL7, 1},
                                 {"1g.10gb+me", 16, 9.75, 1, ALL7, 1},
                                 {"1g.20gb", 26, 19.62, 4, {0, 2, 4, 6}, 2},
                                 {"2g.20gb", 32, 19.62, 3, {0, 2, 4}, 2},
                                 {"3g.40gb", 60, 39.50, 2, {0, 4}, 4},
                                 {"4g.40gb", 64, 39.50, 1, {0}, 4},
                                 {"7g.80gb", 132, 79.25, 1, {0}, 8}});
}

TEST(MigGeometry, H200TableIsExact) {
  expect_table("H200-141GB", {{"1g.18gb", 16, 16.00, 7, ALL7, 1},
                              {"1g.18gb+me", 16, 16.00, 1, ALL7, 1},
                              {"1g.35gb", 26, 32.25, 4, {0, 2, 4, 6}, 2},
                              {"2g.35gb", 32, 32.25, 3, {0, 2, 4}, 2},
                              {"3g.71gb", 60, 69.50, 2, {0, 4}, 4},
                              {"4g.71gb", 64, 69.50, 1, {0}, 4},
                              {"7g.141gb", 132, 140.00, 1, {0}, 8}});
}

TEST(MigGeometry, A100TablesAreExact) {
  expect_table("A100-40GB", {{"1g.5gb", 14, 4.75, 7, ALL7, 1},
                             {"1g.5gb+me", 14, 4.75, 1, ALL7, 1},
                             {"1g.10gb", 14, 9.75, 4, {0, 2, 4, 6}, 2},
                             {"2g.10gb", 28, 9.75, 3, {0, 2, 4}, 2},
                             {"3g.20gb", 42, 19.62, 2, {0, 4}, 4},
                             {"4g.20gb", 56, 19.62, 1, {0}, 4},
                             {"7g.40gb", 98, 39.50, 1, {0}, 8}});
  expect_table("A100-80GB", {{"1g.10gb", 14, 9.75, 7, ALL7, 1},
                             {"1g.10gb+me", 14, 9.75, 1, ALL7, 1},
                             {"1g.20gb", 14, 19.50, 4, {0, 2, 4, 6}, 2},
                             {"2g.20gb", 28, 19.50, 3, {0, 2, 4}, 2},
                             {"3g.40gb", 42, 39.25, 2, {0, 4}, 4},
                             {"4g.40gb", 56, 39.25, 1, {0}, 4},
                             {"7g.80gb", 98, 79.12, 1, {0}, 8}});
}

// The A30 has 4 compute and 4 memory slices (MIG User Guide, A30 table): its geometry is its own, so a 1g
// instance is a quarter of the GPU, not a seventh.
TEST(MigGeometry, A30HasItsOwnFourSliceGeometry) {
  expect_table("A30-24GB", {{"1g.6gb", 14, 5.81, 4, {0, 1, 2, 3}, 1},
                            {"1g.6gb+me", 14, 5.81, 1, {0, 1, 2, 3}, 1},
                            {"2g.12gb", 28, 11.69, 2, {0, 2}, 2},
                            {"2g.12gb+me", 28, 11.69, 1, {0, 2}, 2},
                            {"4g.24gb", 56, 23.50, 1, {0}, 4}});
  const auto g = *profile("A30-24GB").mig;
  EXPECT_EQ(g.compute_slices, 4);
  EXPECT_EQ(g.memory_slices, 4);
  EXPECT_TRUE(check_mig_layout(g, {"2g.12gb", "1g.6gb", "1g.6gb"}).feasible);
  EXPECT_TRUE(check_mig_layout(g, {"2g.12gb", "2g.12gb"}).feasible);
  const auto over = check_mig_layout(g, {"4g.24gb", "1g.6gb"});
  EXPECT_FALSE(over.feasible);
  EXPECT_NE(over.reason.find("compute slices; the GPU has 4"), std::string::npos) << over.reason;
}

TEST(MigGeometry, SliceTotalsOutOfRangeAreRefusedAtTheirLine) {
  std::string text = test::read_text(std::string(GTW_SOURCE_DIR) + "/calibration/profiles/H100-80GB-SXM.yaml");
  const auto mig = text.find("\n  mig:\n");
  ASSERT_NE(mig, std::string::npos);
  text.insert(mig + 8, "    computeSlices: 0\n");
  const auto line = std::count(text.begin(), text.begin() + static_cast<long>(mig) + 8, '\n') + 1;
  HardwareProfile p;
  Diagnostics d;
  EXPECT_FALSE(load_profile_text(text, "x.yaml", p, d));
  EXPECT_NE(d.format_all().find("x.yaml:" + std::to_string(line) + ":"), std::string::npos) << d.format_all();
  EXPECT_NE(d.format_all().find("spec.mig.computeSlices"), std::string::npos) << d.format_all();
}

TEST(MigGeometry, MixedLayoutsTheHardwareAccepts) {
  const auto g = *profile("H100-80GB-SXM").mig;
  for (const auto& layout : std::vector<std::vector<std::string>>{
           {"4g.40gb", "3g.40gb"},
           {"3g.40gb", "3g.40gb"},
           {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"},
           concat({repeat("2g.20gb", 3), {"1g.10gb"}}),
           concat({repeat("1g.20gb", 3), {"1g.10gb"}}),
           {"4g.40gb", "2g.20gb", "1g.10gb"},
           {"4g.40gb", "1g.20gb", "1g.10gb"},
           {"4g.40gb", "2g.20gb", "1g.20gb"},
           concat({{"3g.40gb"}, repeat("1g.10gb", 4)}),
           {"1g.10gb+me", "1g.10gb", "1g.10gb", "2g.20gb", "2g.20gb"},
       }) {
    const auto r = check_mig_layout(g, layout);
    EXPECT_TRUE(r.feasible) << r.reason;
    // Placements never overlap and respect each profile's list.
    std::vector<int> used(8, 0);
    for (const auto& p : r.placements) {
      const auto* m = g.find(p.profile);
      EXPECT_NE(std::find(m->placements.begin(), m->placements.end(), p.start), m->placements.end());
      for (int s = p.start; s < p.start + p.size; ++s) EXPECT_EQ(used[static_cast<size_t>(s)]++, 0) << p.profile;
    }
  }
}

TEST(MigGeometry, MixedLayoutsTheHardwareRefusesWithTheReason) {
  const auto g = *profile("H100-80GB-SXM").mig;
  struct Case {
    std::vector<std::string> layout;
    const char* reason;
  };
  for (const auto& c : std::vector<Case>{
           {{"4g.40gb", "4g.40gb"}, "at most 1 instance(s) of 4g.40gb"},
           {{"3g.40gb", "3g.40gb", "1g.10gb"}, "no placement"},
           {{"7g.80gb", "1g.10gb"}, "compute slices"},
           {concat({repeat("2g.20gb", 3), repeat("1g.10gb", 2)}), "compute slices"},
           {concat({repeat("1g.20gb", 4), {"1g.10gb"}}), "no placement"},
           {{"4g.40gb", "1g.20gb", "1g.20gb", "1g.20gb"}, "no placement"},
           {{"4g.40gb", "2g.20gb", "2g.20gb"}, "compute slices"},
           {{"1g.10gb+me", "1g.10gb+me"}, "at most 1"},
           {{"3g.40gb", "1g.20gb", "1g.20gb", "1g.20gb"}, "no placement"},
           {{"5g.50gb"}, "unknown MIG profile '5g.50gb'"},
           {{}, "at least one instance"},
       }) {
    const auto r = check_mig_layout(g, c.layout);
    EXPECT_FALSE(r.feasible);
    EXPECT_NE(r.reason.find(c.reason), std::string::npos) << r.reason;
  }
}

}  // namespace
}  // namespace gtw
