#pragma once
// Model stealing through an inference API, as published (docs/models/leakage.md, "Model IP"): the
// projection-layer extraction of Carlini et al. 2024 ("Stealing Part of a Production Language Model",
// arXiv 2403.06634) and Finlayson et al. 2024 (arXiv 2403.09539). The last layer maps the hidden state
// (h values) to the vocabulary (V logits), so full logit vectors of n > h distinct prompts span a space of
// rank h: the attacker reads the hidden size from the singular values and the matrix up to an h x h
// transform once it holds h + 1 vectors. What the API returns decides how many queries one full vector
// costs; output noise makes it repeat each query to average the noise away. A watermark on a share of the
// answers makes a copy trained on them detectable. No SimGrid.
#include <string>

#include "Scenario.hpp"

namespace gtw::threat {

/// The attacker's tolerance for the noise left on a logprob after averaging (assumed: 1e-3 nats).
inline constexpr double EXTRACTION_TOLERANCE_NATS = 1e-3;
/// Queries of a binary search for one logit through the logit bias when the API returns no logprobs
/// (assumed: a 40-nat bias range halved to 4e-5 nats, log2(1e6) = 20 steps).
inline constexpr double BISECTION_QUERIES_PER_LOGIT = 20;

struct ProjectionExtractionCost {
  bool possible = false;          // false: the API gives no way to read a full logit vector
  double queries_per_vector = 0;  // one full logit vector (V logits)
  double repeats = 1;             // of each query, to average the output noise below the tolerance
  double vectors_needed = 0;      // h + 1
  double queries_needed = 0;      // vectors_needed x queries_per_vector x repeats
  std::string how;                // one line: which API route and what it costs
};

/// What recovering the projection layer of a model of hidden size `hidden` and vocabulary `vocab` costs
/// through an API with this output policy.
ProjectionExtractionCost projection_extraction_cost(int hidden, int vocab, const ApiOutputPolicy& api);

/// P(Binomial(answered, fraction) >= threshold): the chance that a copy trained on `answered` answers, of
/// which each carries the watermark with probability `fraction`, holds enough marked answers to be detected.
double watermark_detection_probability(double answered, double fraction, int threshold);

}  // namespace gtw::threat
