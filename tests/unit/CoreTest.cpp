// Unit tests of sim/core: units, diagnostics, RNG streams, registry.
#include <gtest/gtest.h>

#include <cmath>

#include "Diagnostics.hpp"
#include "Registry.hpp"
#include "Rng.hpp"
#include "Sha256.hpp"
#include "Units.hpp"

namespace gtw {
namespace {

TEST(Units, ParsesSizesInBinaryAndDecimalUnits) {
  EXPECT_DOUBLE_EQ(parse_bytes("80GiB").quantity->value, 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bytes("80GB").quantity->value, 80e9);
  EXPECT_DOUBLE_EQ(parse_bytes("1.5 TB").quantity->value, 1.5e12);
  EXPECT_DOUBLE_EQ(parse_bytes("512B").quantity->value, 512);
}

TEST(Units, ParsesDurationsBandwidthsAndRates) {
  EXPECT_DOUBLE_EQ(parse_duration("2ms").quantity->value, 0.002);
  EXPECT_DOUBLE_EQ(parse_duration("250ns").quantity->value, 250e-9);
  EXPECT_DOUBLE_EQ(parse_duration("10m").quantity->value, 600);
  EXPECT_DOUBLE_EQ(parse_duration("2h").quantity->value, 7200);
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gb/s").quantity->value, 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("3.35TB/s").quantity->value, 3.35e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("64GiB/s").quantity->value, 64.0 * 1073741824);
  EXPECT_DOUBLE_EQ(parse_flop_rate("989.4TFLOP/s").quantity->value, 989.4e12);
  EXPECT_DOUBLE_EQ(parse_flops("400TFLOP").quantity->value, 400e12);
  EXPECT_DOUBLE_EQ(parse_flops("1e12").quantity->value, 1e12);
  EXPECT_DOUBLE_EQ(parse_rate("30/min").quantity->value, 0.5);
  EXPECT_DOUBLE_EQ(*parse_count("8B").quantity, 8e9);
  EXPECT_DOUBLE_EQ(*parse_count("128k").quantity, 128e3);
}

TEST(Units, RefusesUnitlessNegativeAndUnknownQuantities) {
  auto r = parse_bytes("80");
  EXPECT_FALSE(r);
  EXPECT_NE(r.error.find("needs a unit"), std::string::npos) << r.error;
  r = parse_bytes("-5GiB");
  EXPECT_FALSE(r);
  EXPECT_NE(r.error.find("negative"), std::string::npos) << r.error;
  auto d = parse_duration("5parsecs");
  EXPECT_FALSE(d);
  EXPECT_NE(d.error.find("valid units"), std::string::npos) << d.error;
  EXPECT_FALSE(parse_duration("fast"));
  EXPECT_FALSE(parse_duration(""));
  EXPECT_FALSE(parse_bandwidth("nanGB/s"));
  EXPECT_FALSE(parse_duration("infs"));
}

TEST(Units, FormatsForHumans) {
  EXPECT_EQ(format_duration(Seconds(0.0025)), "2.50 ms");
  EXPECT_EQ(format_bytes(Bytes(80.0 * 1073741824)), "80.0 GiB");
  EXPECT_EQ(format_bandwidth(BytesPerSecond(3.35e12)), "3.35 TB/s");
}

TEST(Diagnostics, FormatsFileLineColumnPathAndMessage) {
  Diagnostics d;
  d.error(SourceLoc{"s.yaml", 14, 7}, "spec.tenants[2].name", "must not be empty");
  d.warning(SourceLoc{"s.yaml", 3, 1}, "", "a warning");
  EXPECT_TRUE(d.has_errors());
  EXPECT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.all()[0].format(), "s.yaml:14:7: error: spec.tenants[2].name: must not be empty");
  EXPECT_EQ(d.all()[1].format(), "s.yaml:3:1: warning: a warning");
}

TEST(Diagnostics, SuggestsTheClosestNameOnlyWhenPlausible) {
  const std::vector<std::string> valid{"exclusive", "timeSlicing", "mps", "mig"};
  EXPECT_NE(suggest("timeslicing", valid).find("did you mean 'timeSlicing'"), std::string::npos);
  EXPECT_NE(suggest("exclusiv", valid).find("did you mean 'exclusive'"), std::string::npos);
  EXPECT_EQ(suggest("quantum-entanglement", valid).find("did you mean"), std::string::npos);
  EXPECT_NE(suggest("x", valid).find("valid values: exclusive, timeSlicing, mps, mig"), std::string::npos);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Diagnostics, StopsCollectingAfterTheLimit) {
  Diagnostics d;
  for (int i = 0; i < 1000; ++i) d.error(SourceLoc{"f", i + 1, 1}, "", "bad");
  EXPECT_EQ(d.error_count(), 1000u) << "counted";
  EXPECT_LE(d.all().size(), Diagnostics::MAX_ERRORS + 1) << "not kept";
}

TEST(Rng, NamedStreamsAreReproducibleAndIndependent) {
  auto a1 = make_stream(42, "arrivals/chat");
  auto a2 = make_stream(42, "arrivals/chat");
  auto b = make_stream(42, "arrivals/batch");
  auto c = make_stream(43, "arrivals/chat");
  for (int i = 0; i < 100; ++i) {
    const auto x = a1.next_u64();
    EXPECT_EQ(x, a2.next_u64());
    EXPECT_NE(x, b.next_u64());
    EXPECT_NE(x, c.next_u64());
  }
}

TEST(Rng, ExponentialHasTheRequestedMean) {
  auto s = make_stream(1, "exp");
  double sum = 0;
  const int n = 1'000'000;
  for (int i = 0; i < n; ++i) sum += s.exponential(4.0);
  EXPECT_NEAR(sum / n, 0.25, 0.25 * 0.005);  // standard error 0.1%: 5 sigma
  for (int i = 0; i < 1000; ++i) {
    const double u = s.uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(Sha256, MatchesKnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

struct Widget {
  virtual ~Widget() = default;
  virtual double size() const = 0;
};
struct Box : Widget {
  explicit Box(double s) : s_(s) {}
  double size() const override { return s_; }
  double s_;
};

TEST(Registry, CreatesByNameWithDefaultsAndListsInOrder) {
  Registry<Widget> r;
  r.add({"box", "a box", {{"side", ParamType::NUMBER, 2.0, "side length", 0, 100, {}}}},
        [](const Params& p) { return std::make_unique<Box>(param_number(p, "side")); });
  r.add({"another", "", {}}, [](const Params&) { return std::make_unique<Box>(0); });
  EXPECT_EQ(r.create("box", {})->size(), 2.0);
  EXPECT_EQ(r.create("box", {{"side", 3.0}})->size(), 3.0);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"another", "box"}));
  EXPECT_EQ(r.find("nope"), nullptr);
  EXPECT_THROW(r.add({"box", "", {}}, nullptr), std::logic_error);
}

}  // namespace
}  // namespace gtw
