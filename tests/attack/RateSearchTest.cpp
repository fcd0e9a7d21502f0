// The rate search of an adaptive covert channel (models/attack/RateSearch): the ladder, when it stops and
// what it chooses, on given trial outcomes (no simulation).
#include <gtest/gtest.h>

#include <cmath>

#include "ChannelCatalogue.hpp"
#include "RateSearch.hpp"

namespace gtw {
namespace {

double information(double rate, double p) {
  return rate * (1 - channel::binary_entropy(std::min(p, 1 - p)));
}

TEST(RateSearch, StepsDownHalfAnOctaveWhileASlowerRungCouldCarryMore) {
  RateSearch s(64000);
  EXPECT_DOUBLE_EQ(s.rate(), 64000);
  EXPECT_TRUE(s.record(0.5));  // nothing carried: go on
  EXPECT_NEAR(s.rate(), 64000 / std::sqrt(2.0), 1e-6);
  EXPECT_TRUE(s.record(0.25));  // 45.3 k x (1 - H(0.25)) = 8.5 kbit/s < the next rung's 32 k
  EXPECT_NEAR(s.rate(), 32000, 1e-6);
  // 32 k at 1%: 29.4 kbit/s, above the next rung (22.6 k): no slower rung can beat it.
  EXPECT_FALSE(s.record(0.01));
  ASSERT_EQ(s.trials().size(), 3U);
  EXPECT_NEAR(s.trials()[2].information, information(32000, 0.01), 1e-6);
  EXPECT_NEAR(s.chosen(), 32000, 1e-6);
}

TEST(RateSearch, ChoosesTheTrialThatCarriedTheMostNotTheLast) {
  RateSearch s(10000);
  EXPECT_TRUE(s.record(0.30));   // 1.19 kbit/s < 7.07 k: go on
  EXPECT_TRUE(s.record(0.10));   // 7.07 k x (1 - H(0.1)) = 3.75 kbit/s < 5 k: go on
  EXPECT_FALSE(s.record(0.30));  // 0.59 kbit/s; the next rung (3.54 k) cannot beat 3.75
  EXPECT_NEAR(s.chosen(), 10000 / std::sqrt(2.0), 1e-6);
}

TEST(RateSearch, ErrorsAboveOneHalfAreTheSameChannelInverted) {
  RateSearch a(1000), b(1000);
  a.record(0.9);
  b.record(0.1);
  EXPECT_DOUBLE_EQ(a.trials()[0].information, b.trials()[0].information);
}

TEST(RateSearch, ADeadChannelStopsTenOctavesDownAndKeepsTheFastestRate) {
  RateSearch s(1e6);
  int trials = 1;
  while (s.record(0.5)) ++trials;
  EXPECT_EQ(trials, 21) << "1/sqrt(2) steps from 1 down to 1/1024";
  EXPECT_NEAR(s.trials().back().rate, 1e6 / 1024, 1e-6);
  EXPECT_DOUBLE_EQ(s.chosen(), 1e6);
}

}  // namespace
}  // namespace gtw
