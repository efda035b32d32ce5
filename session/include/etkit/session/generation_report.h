#pragma once
// What `etinspect generate` reports: upstream's LLM runner stats
// (extension/llm/runner/stats.h: its field names and rates), the prompt and
// generated token ids, and etkit's additions (prefill calls, each decode
// step's latency, the decoder's metadata).

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/generation/token_generation.h"
#include "etkit/report/printer.h"

namespace etkit::session {

/// Upstream's stats, in ms from the command's start.
struct GenerationStats {
  int64_t prompt_tokens = 0, generated_tokens = 0;
  double model_load_start_ms = 0, model_load_end_ms = 0, inference_start_ms = 0, inference_end_ms = 0;
  double prompt_eval_end_ms = 0, first_token_ms = 0, execution_ms = 0;
};

/// The stats of `result`'s steps, times taken against `origin_ns` (the
/// clock generate_tokens was given).
GenerationStats stats_of(const GenerationResult& result, int64_t prompt_tokens, uint64_t origin_ns,
                         uint64_t load_start_ns, uint64_t load_end_ns);

struct GenerationReport {
  std::string program;
  std::string method;
  std::vector<int64_t> prompt;
  GenerationResult result;
  GenerationStats stats;
  DecoderMetadata metadata;
};

/// Upstream's rates: prompt tokens over the prefill, generated tokens (the
/// first, which the prefill samples, included) over the decode.
void print(report::Printer& out, const GenerationReport& generation);

}  // namespace etkit::session
