#pragma once
// Token generation over a decoder program, driven the way upstream's LLM
// runner (extension/llm/runner) drives one: the program's metadata methods
// say what it is (get_max_seq_len, get_vocab_size, use_kv_cache,
// enable_dynamic_shape), a KV-cache program takes (tokens [1, S],
// input_pos [1]) and keeps its cache in mutable buffers, the prompt is
// prefilled and each new token decoded from the last logits. Token ids
// only: tokenizers are out of scope.
//
// Used by `etinspect generate` and the device runner alike, so it needs
// only core. It allocates its buffers before the first step; each step is
// one Method::execute.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "etkit/core/method.h"
#include "etkit/core/result.h"
#include "etkit/core/span.h"

namespace etkit {

class Program;

/// What a decoder program says about itself. Metadata methods the program
/// lacks are derived from the forward method's inputs and outputs.
struct DecoderMetadata {
  int64_t max_seq_len = 0;
  int64_t vocab_size = 0;
  bool use_kv_cache = false;
  bool enable_dynamic_shape = false;
  std::vector<std::string> read_from_program;  ///< metadata methods found and run
};

/// Reads the metadata methods `program` has and checks `forward`'s inputs
/// against them: (tokens int64 [1, S], input_pos int64 [1]) with a KV
/// cache, (tokens int64 [1, S]) without.
Result<DecoderMetadata> read_decoder_metadata(const Program& program, const MethodOptions& options,
                                              const Method& forward);

struct SamplingOptions {
  double temperature = 0.0;  ///< 0: greedy (argmax, the first of equal maxima)
  double top_p = 1.0;        ///< nucleus: the smallest set of tokens holding this probability
  uint64_t seed = 0;
};

enum class GenerationPhase { kPrefill, kDecode };
const char* to_string(GenerationPhase phase);

/// One execute() of the forward method.
struct GenerationStep {
  GenerationPhase phase = GenerationPhase::kPrefill;
  int64_t start_pos = 0;  ///< position of the step's first token
  int64_t seq_len = 0;    ///< tokens the step feeds
  uint64_t start_ns = 0, end_ns = 0;
  int64_t token = -1;     ///< the token sampled from its logits (-1: none, mid-prompt)
};

/// Called around every step (to tag a trace's blocks, print progress).
class GenerationObserver {
 public:
  virtual ~GenerationObserver() = default;
  virtual void before_step(const GenerationStep& step) { (void)step; }
  virtual void after_step(const GenerationStep& step) { (void)step; }
};

struct GenerationResult {
  std::vector<int64_t> generated;
  std::vector<GenerationStep> steps;
  bool stopped_at_max_seq_len = false;
};

/// Prefills `prompt` and decodes up to `max_new_tokens` tokens. `now_ns`
/// is the clock the steps are timed with.
Result<GenerationResult> generate_tokens(Method& forward, const DecoderMetadata& metadata,
                                         Span<const int64_t> prompt, int64_t max_new_tokens,
                                         const SamplingOptions& sampling, uint64_t (*now_ns)(),
                                         GenerationObserver* observer = nullptr);

/// The next token from `logits` (float32, `count` of them): argmax when
/// greedy, else a draw from the tempered, top-p truncated distribution.
int64_t sample_token(const float* logits, int64_t count, const SamplingOptions& sampling, std::mt19937_64& rng,
                     std::vector<std::pair<float, int64_t>>& scratch);

}  // namespace etkit
