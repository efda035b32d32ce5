// etinspect generate against independent truth: the samples' greedy
// generations by upstream's runtime (the Llama-style samples) and PyTorch
// eager (nanoGPT), written by the exporters, upstream's runner stats keys, and properties of the sampler that hold whatever the
// weights (a top-p that keeps one token is greedy; a seed repeats).

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "support/cli.h"
#include "support/corpus.h"
#include "support/upstream_generation.h"

namespace etkit {
namespace {

using test::etinspect;

nlohmann::json eager_generation(const std::string& sample) {
  const std::vector<uint8_t> bytes = test::read_file(test::sample(sample + "/eager_generation.json"));
  return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
}

std::string joined(const nlohmann::json& tokens) {
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : ",") + std::to_string(t.get<int64_t>());
  return out;
}

nlohmann::json generate(const std::vector<std::string>& args) {
  std::vector<std::string> all{"generate"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--json");
  const auto result = etinspect(all);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json{};
}

TEST(GenerateCommand, TheLlamaSampleGeneratesUpstreamsGreedyTokens) {
  const nlohmann::json eager = test::upstream_generation("tiny_llama");
  ASSERT_EQ(eager["generated_tokens"].size(), 64u);
  ASSERT_EQ(eager["tokens_before_first_near_tie"], 64);  // no near tie: every token must equal
  const nlohmann::json out = generate({test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens",
                                       joined(eager["prompt_tokens"]), "--max-new", "64"});
  EXPECT_EQ(out["generated_token_ids"], eager["generated_tokens"]);
  EXPECT_EQ(out["prompt_token_ids"], eager["prompt_tokens"]);
  // Upstream's runner JSON keys (extension/llm/runner/stats.h).
  for (const char* key : {"prefill_token_per_sec", "decode_token_per_sec", "prompt_tokens", "generated_tokens",
                          "model_load_start_ms", "model_load_end_ms", "inference_start_ms", "inference_end_ms",
                          "prompt_eval_end_ms", "first_token_ms", "aggregate_sampling_time_ms",
                          "SCALING_FACTOR_UNITS_PER_SECOND"}) {
    EXPECT_TRUE(out.contains(key)) << key;
  }
  EXPECT_EQ(out["generated_tokens"], 64);
  EXPECT_EQ(out["prompt_tokens"], eager["prompt_tokens"].size());
  EXPECT_GT(out["decode_token_per_sec"].get<double>(), 0);
  EXPECT_LE(out["inference_start_ms"].get<double>(), out["prompt_eval_end_ms"].get<double>());
  EXPECT_LE(out["prompt_eval_end_ms"].get<double>(), out["inference_end_ms"].get<double>());
  EXPECT_EQ(out["decode_latencies_ms"].size(), 63u);  // the prefill samples the first token
  EXPECT_EQ(out["program"]["max_seq_len"], 128);
  EXPECT_EQ(out["program"]["use_kv_cache"], true);
}

// Made by upstream's LLM export with a dynamic sequence length: the prompt
// goes in one call, then one token per call; the tokens are upstream's
// runtime's greedy ones (samples/export/upstream/make_tiny_llama.py).
TEST(GenerateCommand, ADynamicLengthLlamaPrefillsInOneCallAndGeneratesUpstreamsTokens) {
  // The portable export, and the 8da4w one whose XNNPACK linears take the
  // prompt's 8 rows where the payload's shapes say 127 (the bound), as
  // upstream's runtime reshapes them.
  for (const std::string name : {"tiny_llama_dynamic", "tiny_llama_dynamic_8da4w"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> bytes = test::read_file(test::sample(name + "/upstream_generation.json"));
    const nlohmann::json upstream = nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
    const int64_t max_new = upstream["max_new"].get<int64_t>();
    const nlohmann::json out = generate({test::sample(name + "/" + name + ".pte"), "--prompt-tokens",
                                         joined(upstream["prompt_tokens"]), "--max-new", std::to_string(max_new)});
    test::expect_upstream_tokens(out["generated_token_ids"], upstream);
    EXPECT_EQ(out["prefill_calls"], 1);
    EXPECT_EQ(out["decode_latencies_ms"].size(), size_t(max_new - 1));
    EXPECT_EQ(out["program"]["enable_dynamic_shape"], true);
  }
  // The static one-token sample still prefills token by token.
  const nlohmann::json eager = test::upstream_generation("tiny_llama");
  const nlohmann::json stepwise = generate({test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens",
                                            joined(eager["prompt_tokens"]), "--max-new", "2"});
  EXPECT_EQ(stepwise["prefill_calls"], eager["prompt_tokens"].size());
}

TEST(GenerateCommand, The8da4wLlamaGeneratesUpstreamsTokens) {
  // 8da4w linears in XNNPACK (qd8 activations x 4-bit weights on etkit's
  // kernels) against upstream's runtime running them on its XNNPACK.
  const nlohmann::json upstream = test::upstream_generation("tiny_llama_8da4w");
  const auto result = etinspect({"generate", test::sample("tiny_llama_8da4w/tiny_llama_8da4w.pte"), "--prompt-tokens",
                                 joined(upstream["prompt_tokens"]), "--max-new", "64", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  test::expect_upstream_tokens(nlohmann::json::parse(result.out)["generated_token_ids"], upstream);
  // Nine delegate calls of three shapes: each description said once, not
  // once per call or per load.
  std::set<std::string> seen;
  size_t lines = 0;
  std::istringstream err(result.err);
  for (std::string line; std::getline(err, line);) {
    if (line.find("XnnpackBackend:") == std::string::npos) continue;
    ++lines;
    EXPECT_TRUE(seen.insert(line).second) << "said twice: " << line;
  }
  EXPECT_GE(lines, 1u) << result.err;
}

TEST(GenerateCommand, AProgramWithoutKvCacheRerunsTheGrowingSequence) {
  // nanoGPT over a 64-token window: past it, the last 64 tokens, as its generate.
  const nlohmann::json eager = eager_generation("nano_gpt");
  const nlohmann::json out = generate({test::sample("nano_gpt/nano_gpt.pte"), "--prompt-tokens",
                                       joined(eager["prompt_tokens"]), "--max-new", "64"});
  EXPECT_EQ(out["generated_token_ids"], eager["generated_tokens"]);
  EXPECT_EQ(out["program"]["use_kv_cache"], false);
}

TEST(GenerateCommand, ATracedGenerationTagsPrefillAndDecodeStepsAndGeneratesTheSameTokens) {
  const nlohmann::json eager = test::upstream_generation("tiny_llama");
  const std::string trace = test::temp("generate_llama.etdp");
  const nlohmann::json out = generate({test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens",
                                       joined(eager["prompt_tokens"]), "--max-new", "64", "--etdump", trace});
  EXPECT_EQ(out["generated_token_ids"], eager["generated_tokens"]);
  auto dump = etdump::ETDump::load_file(trace);
  ASSERT_TRUE(dump.ok()) << dump.error().message();
  auto blocks = inspector::event_blocks(*dump);
  ASSERT_TRUE(blocks.ok());
  size_t prefill = 0, decode = 0;
  for (const auto& block : *blocks) {
    if (block.name == inspector::kPrefillBlockName) prefill = block.runs;
    if (block.name == inspector::kDecodeBlockName) decode = block.runs;
    EXPECT_NE(block.name, "Execute");
  }
  EXPECT_EQ(prefill, eager["prompt_tokens"].size());  // one token per prefill step
  EXPECT_EQ(decode, 63u);
  // --phase picks one of them in table and modules.
  const auto table = etinspect({"table", trace, "--phase", "decode", "--format", "csv"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Decode,"), std::string::npos);
  EXPECT_EQ(table.out.find("Prefill,"), std::string::npos);
  // steps: one row per step in order, contexts 1..71, the two phases summed apart.
  const auto steps = etinspect({"steps", trace, "--json"});
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  const nlohmann::json series = nlohmann::json::parse(steps.out);
  ASSERT_EQ(series["steps"].size(), 71u);
  EXPECT_EQ(series["prefill"]["steps"], 8);
  EXPECT_EQ(series["decode"]["steps"], 63);
  double decode_total = 0;
  for (size_t i = 0; i < 71; ++i) {
    EXPECT_EQ(series["steps"][i]["context"], int64_t(i) + 1);
    EXPECT_EQ(series["steps"][i]["phase"], i < 8 ? "prefill" : "decode");
    EXPECT_GT(series["steps"][i]["latency_ms"].get<double>(), 0);
    if (i >= 8) decode_total += series["steps"][i]["latency_ms"].get<double>();
  }
  EXPECT_NEAR(series["decode"]["total_ms"].get<double>(), decode_total, 1e-9 * 71 + 1e-6);
  const auto not_generation = etinspect({"steps", test::corpus("upstream/etdump/tutorial_cnn.etdp")});
  EXPECT_EQ(not_generation.exit_code, 2);
  EXPECT_NE(not_generation.err.find("no Prefill or Decode runs"), std::string::npos) << not_generation.err;
  const auto modules = etinspect(
      {"modules", trace, "--etrecord", test::sample("tiny_llama/tiny_llama.etrecord"), "--phase", "prefill"});
  EXPECT_EQ(modules.exit_code, 0) << modules.err;
  EXPECT_NE(modules.out.find("layers.1.attention (AttentionMHA)"), std::string::npos) << modules.out;
}

TEST(GenerateCommand, SamplingRepeatsWithItsSeedAndATinyTopPIsGreedy) {
  const nlohmann::json eager = test::upstream_generation("tiny_llama");
  const std::string program = test::sample("tiny_llama/tiny_llama.pte");
  const std::string prompt = joined(eager["prompt_tokens"]);
  const auto sampled = [&](const std::string& seed, const std::string& top_p) {
    return generate({program, "--prompt-tokens", prompt, "--max-new", "16", "--temperature", "1.5", "--top-p", top_p,
                     "--seed", seed})["generated_token_ids"];
  };
  const nlohmann::json a = sampled("1", "0.9"), b = sampled("1", "0.9"), c = sampled("2", "0.9");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);  // 16 draws at temperature 1.5 over 256 tokens: equal only by a vanishing chance
  for (const auto& token : a) EXPECT_LT(token.get<int64_t>(), 256);
  // Top-p so small that only the most probable token is kept: the greedy tokens.
  const nlohmann::json greedy(std::vector<int64_t>(eager["generated_tokens"].begin(), eager["generated_tokens"].begin() + 16));
  EXPECT_EQ(sampled("3", "0.000001"), greedy);
}

TEST(GenerateCommand, BadPromptsAndNonDecodersAreRefusedNamingWhy) {
  const std::string program = test::sample("tiny_llama/tiny_llama.pte");
  auto result = etinspect({"generate", program, "--prompt-tokens", "1,999"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("prompt token 1 (999) is outside the vocabulary [0, 256)"), std::string::npos) << result.err;
  result = etinspect({"generate", program, "--prompt-tokens", "1,x"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("'x' is not a token id"), std::string::npos) << result.err;
  result = etinspect({"generate", test::sample("mobilenet_v2/mobilenet_v2.pte"), "--prompt-tokens", "1"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("must be an int64 tensor"), std::string::npos) << result.err;
  // A prompt longer than the cache: refused before any step.
  std::string long_prompt = "1";
  for (int i = 0; i < 128; ++i) long_prompt += ",1";
  result = etinspect({"generate", program, "--prompt-tokens", long_prompt});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("leave no room in max_seq_len 128"), std::string::npos) << result.err;
}

TEST(GenerateCommand, GenerationStopsAtMaxSeqLenWithAWarning) {
  std::string prompt = "1";
  for (int i = 0; i < 119; ++i) prompt += ",2";  // 120 tokens of 128
  const auto result = etinspect({"generate", test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens", prompt,
                                 "--max-new", "20", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json out = nlohmann::json::parse(result.out);
  EXPECT_EQ(out["generated_token_ids"].size(), 9u);  // positions 120..127 decode 8 more after the first
  EXPECT_EQ(out["stopped_at_max_seq_len"], true);
  EXPECT_NE(result.err.find("reached max_seq_len 128"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace etkit
