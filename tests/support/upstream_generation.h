// Upstream's runtime's greedy generations of the Llama-style samples
// (upstream_generation.json, written by
// samples/export/upstream/make_tiny_llama.py): the truth `etinspect
// generate` is compared with.

#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli.h"

namespace etkit::test {

inline nlohmann::json upstream_generation(const std::string& sample_name) {
  const std::vector<uint8_t> bytes = read_file(sample(sample_name + "/upstream_generation.json"));
  return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
}

/// Generated tokens equal upstream's up to its first near tie: a step whose
/// top two logits upstream found within 0.005 of each other, where a
/// runtime summing in another order may rightly pick the other token (from
/// there on the two generations part). The file says where that is.
inline void expect_upstream_tokens(const nlohmann::json& generated, const nlohmann::json& upstream) {
  const nlohmann::json& expected = upstream["generated_tokens"];
  const size_t decisive = upstream["tokens_before_first_near_tie"].get<size_t>();
  ASSERT_EQ(generated.size(), expected.size());
  for (size_t i = 0; i < decisive; ++i) {
    EXPECT_EQ(generated[i], expected[i]) << "token " << i << " (upstream's first near tie is token " << decisive << ")";
  }
}

}  // namespace etkit::test
