// The model catalogue (models/hardware/ModelCatalogue, calibration/models/llm.yaml): the parameter
// count derived from each model's shapes against the published total of its model card (a check of the
// data the serving model will run on, not of a fitted value), KV-cache bytes per token, and bad entries.
#include <gtest/gtest.h>

#include <cmath>

#include "ModelCatalogue.hpp"

namespace gtw {
namespace {

ModelCatalogue shipped() {
  Diagnostics diags;
  auto c = load_model_catalogue(std::string(GTW_SOURCE_DIR) + "/calibration/models/llm.yaml", diags);
  EXPECT_TRUE(c.has_value()) << (diags.all().empty() ? "" : diags.all().front().format());
  return c.value_or(ModelCatalogue{});
}

TEST(ModelCatalogue, DerivedParameterCountsMatchThePublishedTotals) {
  const auto c = shipped();
  ASSERT_GE(c.models.size(), 8u);
  for (const auto& m : c.models) {
    const double error = std::abs(m.parameters() - m.published_parameters) / m.published_parameters;
    EXPECT_LT(error, 0.01) << m.id << ": derived " << m.parameters() << ", published " << m.published_parameters;
    if (m.published_active_parameters > 0) {
      const double active =
          std::abs(m.active_parameters() - m.published_active_parameters) / m.published_active_parameters;
      EXPECT_LT(active, 0.01) << m.id << ": derived active " << m.active_parameters();
    } else {
      EXPECT_EQ(m.active_parameters(), m.parameters()) << m.id << " is dense";
    }
  }
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b",
                         "qwen2.5-7b", "qwen2.5-72b"})
    EXPECT_NE(c.find(id), nullptr) << id;
}

TEST(ModelCatalogue, KvCacheBytesPerTokenFollowTheKvHeads) {
  const auto c = shipped();
  // 2 (K, V) x layers x KV heads x head_dim x bytes: grouped-query attention shrinks it, not the heads.
  EXPECT_EQ(c.find("llama-2-7b")->kv_bytes_per_token(2), 524288.0);     // 0.5 MiB, 32 KV heads
  EXPECT_EQ(c.find("llama-3.1-8b")->kv_bytes_per_token(2), 131072.0);   // 8 KV heads: a quarter of it
  EXPECT_EQ(c.find("llama-3.1-70b")->kv_bytes_per_token(2), 327680.0);  // 80 layers x 8 KV heads
  EXPECT_EQ(c.find("qwen2.5-7b")->kv_bytes_per_token(1), 28672.0);      // FP8 KV, 4 KV heads
}

TEST(ModelCatalogue, FlopsPerTokenAreTwicePerActiveWeight) {
  const auto catalogue = shipped();
  const auto* m = catalogue.find("mixtral-8x7b");
  ASSERT_NE(m, nullptr);
  // Routed to 2 of 8 experts: a token computes with about 13B of the 47B weights.
  EXPECT_NEAR(m->matrix_flops_per_token() / 2, m->active_parameters() - 32000.0 * 4096, 1);
  EXPECT_DOUBLE_EQ(m->attention_flops_per_token(1000), 4.0 * 32 * 32 * 128 * 1000);
}

std::string first_error(const std::string& yaml) {
  Diagnostics diags;
  EXPECT_FALSE(load_model_catalogue_text(yaml, "bad.yaml", diags).has_value()) << yaml;
  return diags.all().empty() ? "" : diags.all().front().format();
}

const char* ENTRY =
    "kind: ModelCatalogue\nmodels:\n  - id: m\n    layers: 32\n    hiddenSize: 4096\n    attentionHeads: 32\n"
    "    headDim: 128\n    intermediateSize: 11008\n    vocabSize: 32000\n    parameters: 6.7e9\n    source: card\n";

TEST(ModelCatalogue, BadEntriesAreLocatedErrors) {
  const std::string good = std::string(ENTRY) + "    kvHeads: 32\n";
  Diagnostics diags;
  ASSERT_TRUE(load_model_catalogue_text(good, "ok.yaml", diags).has_value());

  const std::string indivisible = first_error(std::string(ENTRY) + "    kvHeads: 5\n");
  EXPECT_NE(indivisible.find("bad.yaml:12:"), std::string::npos) << indivisible;
  EXPECT_NE(indivisible.find("models[0].kvHeads"), std::string::npos) << indivisible;
  EXPECT_NE(indivisible.find("must divide attentionHeads (32), got 5"), std::string::npos) << indivisible;

  EXPECT_NE(first_error(std::string(ENTRY) + "    kvHeads: 32\n    kvHead: 8\n").find("did you mean 'kvHeads'"),
            std::string::npos);
  EXPECT_NE(first_error(ENTRY).find("models[0].kvHeads: required field is missing"), std::string::npos);
  EXPECT_NE(first_error(std::string(ENTRY) + "    kvHeads: 1e400\n").find("expected a number"), std::string::npos);
  const std::string twice = std::string(ENTRY) + "    kvHeads: 32\n" +
                            std::string(ENTRY).substr(std::string(ENTRY).find("  - id")) + "    kvHeads: 32\n";
  EXPECT_NE(first_error(twice).find("listed twice"), std::string::npos);
  EXPECT_NE(first_error("kind: Scenario\n").find("expected 'kind: ModelCatalogue'"), std::string::npos);
}

}  // namespace
}  // namespace gtw
