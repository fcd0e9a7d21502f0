#include "RateSearch.hpp"

#include <algorithm>

#include "ChannelCatalogue.hpp"

namespace gtw {

RateSearch::RateSearch(double fastest) : fastest_(fastest), next_(fastest) {}

bool RateSearch::record(double error_rate) {
  const double p = std::clamp(error_rate, 0.0, 1.0);
  trials_.push_back({next_, p, next_ * (1 - channel::binary_entropy(std::min(p, 1 - p)))});
  double best = 0;
  for (const auto& t : trials_) best = std::max(best, t.information);
  // A trial at rate R carries at most R: once the next rung is no faster than the best information rate, no
  // slower rung can beat it.
  next_ *= STEP;
  return next_ > best && next_ >= fastest_ * FLOOR * (1 - 1e-12);
}

double RateSearch::chosen() const {
  const Trial* best = nullptr;
  for (const auto& t : trials_)
    if (!best || t.information > best->information) best = &t;
  return best && best->information > 0 ? best->rate : fastest_;
}

}  // namespace gtw
