// Projection-layer extraction cost and watermark detection (ApiExtraction.hpp).
#include "ApiExtraction.hpp"

#include <algorithm>
#include <cmath>

#include "Text.hpp"

namespace gtw::threat {

ProjectionExtractionCost projection_extraction_cost(int hidden, int vocab, const ApiOutputPolicy& api) {
  ProjectionExtractionCost c;
  c.vectors_needed = static_cast<double>(hidden) + 1;
  const double v = vocab;
  switch (api.logprobs) {
    case ApiLogprobs::FULL:
      c.possible = true;
      c.queries_per_vector = 1;
      c.how = "full logprobs: one query per logit vector";
      break;
    case ApiLogprobs::TOP:
      // The logit bias lifts K chosen tokens into the top K of one query: V / K queries per vector.
      c.possible = api.logit_bias;
      c.queries_per_vector = std::ceil(v / std::max(1, api.top_logprobs));
      c.how = api.logit_bias
                  ? format_printf("top-%d logprobs and a logit bias: %.0f queries per logit vector", api.top_logprobs,
                                  c.queries_per_vector)
                  : format_printf("top-%d logprobs without a logit bias: no full logit vector", api.top_logprobs);
      break;
    case ApiLogprobs::NONE:
      // Only the sampled token: a binary search on each token's bias finds its logit.
      c.possible = api.logit_bias;
      c.queries_per_vector = v * BISECTION_QUERIES_PER_LOGIT;
      c.how = api.logit_bias ? format_printf("no logprobs, a logit bias: %.0f bisection queries per logit vector",
                                             c.queries_per_vector)
                             : std::string("no logprobs and no logit bias: no full logit vector");
      break;
  }
  if (api.noise_nats > 0) {
    c.repeats = std::ceil(std::pow(api.noise_nats / EXTRACTION_TOLERANCE_NATS, 2));
    c.how += format_printf("; output noise %.3g nats: each query %.0f times", api.noise_nats, c.repeats);
  }
  c.queries_needed = c.possible ? c.vectors_needed * c.queries_per_vector * c.repeats : INFINITY;
  return c;
}

double watermark_detection_probability(double answered, double fraction, int threshold) {
  const double n = std::floor(std::max(0.0, answered));
  if (fraction <= 0 || threshold > n) return 0;
  if (threshold <= 0 || fraction >= 1) return 1;
  // The pmf in log space (n may be large, the terms tiny); the tail past the mean is summed directly (1 - the
  // lower sum would cancel), the one below it as 1 - the lower sum.
  const double log_p = std::log(fraction), log_q = std::log1p(-fraction);
  const auto pmf = [&](double k) {
    return std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) + k * log_p + (n - k) * log_q);
  };
  if (threshold > n * fraction) {
    double upper = 0;
    for (double k = threshold; k <= n; ++k) {
      const double term = pmf(k);
      upper += term;
      if (term < upper * 1e-17 || (term == 0 && k > n * fraction)) break;  // decreasing past the mean
    }
    return std::clamp(upper, 0.0, 1.0);
  }
  double below = 0;
  for (int k = 0; k < threshold; ++k) below += pmf(k);
  return std::clamp(1 - below, 0.0, 1.0);
}

}  // namespace gtw::threat
