#pragma once
// The rate search of an adaptive covert channel (`bitRate: auto`): the sender and receiver try a ladder of
// symbol rates, fastest first, each with a known training sequence, and keep the one that carried the most
// information. SimGrid-free: the actors (Attack.cpp) run the trials; this decides the next rate and the
// choice. Rules and limits: docs/models/leakage.md, "Adaptive rate".
#include <vector>

namespace gtw {

class RateSearch {
 public:
  struct Trial {
    double rate = 0;         // symbols per second
    double error_rate = 0;   // bit errors / training bits
    double information = 0;  // rate x (1 - H(min(p, 1 - p))): what the attacker estimates the rate carries
  };
  /// Each rung is 1/sqrt(2) of the one before (half an octave).
  static constexpr double STEP = 0.70710678118654752;
  /// The slowest rung, as a share of the fastest: ten octaves down.
  static constexpr double FLOOR = 1.0 / 1024;

  /// `fastest`: the fastest probe loop known on the resource (the first rung).
  explicit RateSearch(double fastest);

  /// The rate of the trial to run next.
  double rate() const { return next_; }
  /// Records the error rate the trial at rate() gave. Returns whether a slower trial could still carry more
  /// than the best so far (its rate is above that information rate and not below the floor).
  bool record(double error_rate);
  /// The trial rate that carried the most information (the fastest of equals); the fastest rung when none
  /// carried any.
  double chosen() const;
  const std::vector<Trial>& trials() const { return trials_; }

 private:
  double fastest_;
  double next_;
  std::vector<Trial> trials_;
};

}  // namespace gtw
