#include "etkit/generation/token_generation.h"

#include <algorithm>
#include <cmath>

#include "etkit/core/program.h"
#include "etkit/core/tensor.h"
#include "etkit/core/value.h"
#include "program_generated.h"

namespace etkit {
namespace {

// Upstream runner's metadata method names (extension/llm/runner).
constexpr const char* kMaxSeqLen = "get_max_seq_len";
constexpr const char* kVocabSize = "get_vocab_size";
constexpr const char* kUseKvCache = "use_kv_cache";
constexpr const char* kDynamicShape = "enable_dynamic_shape";

bool has_method(const Program& program, const char* name) {
  const auto* plans = program.flatbuffer()->execution_plan();
  if (plans == nullptr) return false;
  for (const auto* plan : *plans) {
    if (plan != nullptr && plan->name() != nullptr && plan->name()->str() == name) return true;
  }
  return false;
}

// Runs metadata method `name` (no inputs, one Int or Bool output).
Result<int64_t> metadata_value(const Program& program, const MethodOptions& options, const char* name) {
  MethodOptions plain = options;
  plain.tracer = nullptr;  // metadata is not part of a trace
  ETKIT_ASSIGN_OR_RETURN(auto method, Method::load(program, name, plain));
  ETKIT_TRY(method->execute());
  if (method->output_count() != 1) {
    return Error::make(ErrorCode::kMalformed, "metadata method '%s' returns %zu values, expected 1", name,
                       method->output_count());
  }
  const Value& out = method->output(0);
  if (out.tag() == ValueTag::kInt) return out.unchecked_int();
  if (out.tag() == ValueTag::kBool) return int64_t(out.unchecked_bool());
  return Error::make(ErrorCode::kMalformed, "metadata method '%s' returns a %s, expected an int or bool", name,
                     to_string(out.tag()));
}

Status check_int64_input(const Method& forward, size_t index, const char* what, int rank) {
  const Value& input = forward.input(index);
  if (!input.is_tensor() || input.unchecked_tensor().scalar_type() != ScalarType::kLong ||
      input.unchecked_tensor().dim() != rank) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s': input %zu (%s) must be an int64 tensor of %d dims for token generation",
                       forward.name().c_str(), index, what, rank);
  }
  return Ok{};
}

}  // namespace

const char* to_string(GenerationPhase phase) { return phase == GenerationPhase::kPrefill ? "prefill" : "decode"; }

Result<DecoderMetadata> read_decoder_metadata(const Program& program, const MethodOptions& options,
                                              const Method& forward) {
  DecoderMetadata metadata;
  if (forward.input_count() != 1 && forward.input_count() != 2) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s' takes %zu inputs; a decoder takes tokens, or tokens and input_pos",
                       forward.name().c_str(), forward.input_count());
  }
  ETKIT_TRY(check_int64_input(forward, 0, "tokens", 2));
  if (forward.input_count() == 2) ETKIT_TRY(check_int64_input(forward, 1, "input_pos", 1));
  const Tensor& tokens = forward.input(0).unchecked_tensor();
  metadata.max_seq_len = tokens.size(1);
  metadata.use_kv_cache = forward.input_count() == 2;
  if (forward.output_count() < 1 || !forward.output(0).is_tensor() ||
      forward.output(0).unchecked_tensor().scalar_type() != ScalarType::kFloat) {
    return Error::make(ErrorCode::kUnsupported, "method '%s': output 0 must be float32 logits",
                       forward.name().c_str());
  }
  const Tensor& logits = forward.output(0).unchecked_tensor();
  metadata.vocab_size = logits.dim() > 0 ? logits.size(logits.dim() - 1) : 0;
  struct Field {
    const char* name;
    int64_t* number;
    bool* flag;
  };
  for (const Field& field : {Field{kMaxSeqLen, &metadata.max_seq_len, nullptr},
                             Field{kVocabSize, &metadata.vocab_size, nullptr},
                             Field{kUseKvCache, nullptr, &metadata.use_kv_cache},
                             Field{kDynamicShape, nullptr, &metadata.enable_dynamic_shape}}) {
    if (!has_method(program, field.name)) continue;
    ETKIT_ASSIGN_OR_RETURN(const int64_t value, metadata_value(program, options, field.name));
    if (field.number != nullptr) *field.number = value;
    if (field.flag != nullptr) *field.flag = value != 0;
    metadata.read_from_program.push_back(field.name);
  }
  if (metadata.use_kv_cache != (forward.input_count() == 2)) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s': use_kv_cache says %s but the method takes %zu inputs",
                       forward.name().c_str(), metadata.use_kv_cache ? "true" : "false", forward.input_count());
  }
  if (metadata.max_seq_len <= 0 || metadata.vocab_size <= 0 || metadata.vocab_size != logits.size(logits.dim() - 1)) {
    return Error::make(ErrorCode::kMalformed, "method '%s': max_seq_len %lld and vocab size %lld do not fit its logits",
                       forward.name().c_str(), (long long)metadata.max_seq_len, (long long)metadata.vocab_size);
  }
  return metadata;
}

int64_t sample_token(const float* logits, int64_t count, const SamplingOptions& sampling, std::mt19937_64& rng,
                     std::vector<std::pair<float, int64_t>>& scratch) {
  if (sampling.temperature <= 0.0) {
    return int64_t(std::max_element(logits, logits + count) - logits);  // first of equal maxima
  }
  // Softmax of logits / T, most probable first, cut after top_p of the mass.
  const float top = *std::max_element(logits, logits + count);
  scratch.resize(size_t(count));
  double total = 0;
  for (int64_t i = 0; i < count; ++i) {
    const float p = float(std::exp((double(logits[i]) - top) / sampling.temperature));
    scratch[size_t(i)] = {p, i};
    total += p;
  }
  std::sort(scratch.begin(), scratch.end(),
            [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  size_t kept = 0;
  double mass = 0;
  while (kept < scratch.size() && (kept == 0 || mass < sampling.top_p * total)) mass += scratch[kept++].first;
  const double draw = std::uniform_real_distribution<double>(0.0, mass)(rng);
  double running = 0;
  for (size_t i = 0; i < kept; ++i) {
    running += scratch[i].first;
    if (draw < running) return scratch[i].second;
  }
  return scratch[kept - 1].second;
}

namespace {

// The prompt fits the vocabulary and the program; the program's token input
// is one a generation can drive.
Status check_request(const Method& forward, const DecoderMetadata& metadata, Span<const int64_t> prompt,
                     int64_t window, bool dynamic_window) {
  if (prompt.size() == 0) return Error::make(ErrorCode::kInvalidArgument, "the prompt holds no tokens");
  for (size_t i = 0; i < prompt.size(); ++i) {
    if (prompt[i] < 0 || prompt[i] >= metadata.vocab_size) {
      return Error::make(ErrorCode::kInvalidArgument, "prompt token %zu (%lld) is outside the vocabulary [0, %lld)", i,
                         (long long)prompt[i], (long long)metadata.vocab_size);
    }
  }
  if (metadata.use_kv_cache && window != 1 && !dynamic_window) {
    return Error::make(ErrorCode::kUnsupported,
                       "method '%s' takes exactly %lld tokens per call (a static shape); a KV-cache program must take "
                       "one token per call, or a dynamic number up to a bound",
                       forward.name().c_str(), (long long)window);
  }
  if (int64_t(prompt.size()) >= metadata.max_seq_len && metadata.use_kv_cache) {
    return Error::make(ErrorCode::kInvalidArgument, "the prompt's %zu tokens leave no room in max_seq_len %lld",
                       prompt.size(), (long long)metadata.max_seq_len);
  }
  return Ok{};
}

// One generation's state: the sequence so far, the input buffers the
// method reads (allocated before the first step) and the sampler.
class Generation {
 public:
  Generation(Method& forward, const DecoderMetadata& metadata, Span<const int64_t> prompt, int64_t max_new_tokens,
             const SamplingOptions& sampling, uint64_t (*now_ns)(), GenerationObserver* observer)
      : forward_(forward), metadata_(metadata), sampling_(sampling), now_ns_(now_ns), observer_(observer),
        window_(forward.input(0).unchecked_tensor().size(1)), dynamic_window_(!forward.input_is_static(0)),
        sequence_(prompt.data(), prompt.data() + prompt.size()), tokens_buffer_(size_t(window_), 0),
        rng_(sampling.seed) {
    sequence_.reserve(prompt.size() + size_t(std::max<int64_t>(max_new_tokens, 0)));
  }

  // Tokens one call takes: a static window, or the upper bound of a
  // dynamic one (upstream's LLM export with a dynamic sequence length).
  int64_t window() const { return window_; }
  bool dynamic_window() const { return dynamic_window_; }

  // The prompt in calls of as many tokens as one call takes (a program
  // without a cache: its last `window` tokens in one call).
  Status prefill() {
    const int64_t prompt_len = int64_t(sequence_.size());
    if (!metadata_.use_kv_cache) {
      const int64_t fed = std::min(prompt_len, window_);
      return step({GenerationPhase::kPrefill, prompt_len - fed, fed, 0, 0, -1}, true);
    }
    const int64_t chunk = dynamic_window_ ? window_ : 1;
    for (int64_t start = 0; start < prompt_len; start += chunk) {
      const int64_t fed = std::min(chunk, prompt_len - start);
      ETKIT_TRY(step({GenerationPhase::kPrefill, start, fed, 0, 0, -1}, start + fed == prompt_len));
    }
    return Ok{};
  }

  // One token a step after the prefill's, until `max_new_tokens` or the
  // cache is full.
  Status decode(int64_t max_new_tokens) {
    for (;;) {
      const int64_t token = result_.steps.back().token;
      result_.generated.push_back(token);
      sequence_.push_back(token);
      if (int64_t(result_.generated.size()) >= max_new_tokens) return Ok{};
      const int64_t length = int64_t(sequence_.size());
      if (metadata_.use_kv_cache) {
        if (length > metadata_.max_seq_len) {
          result_.stopped_at_max_seq_len = true;
          return Ok{};
        }
        ETKIT_TRY(step({GenerationPhase::kDecode, length - 1, 1, 0, 0, -1}, true));
      } else {  // as nanoGPT's generate: the last `window` tokens
        const int64_t fed = std::min(length, window_);
        ETKIT_TRY(step({GenerationPhase::kDecode, length - fed, fed, 0, 0, -1}, true));
      }
    }
  }

  GenerationResult take_result() { return std::move(result_); }

 private:
  // Sets the method's inputs to the step's tokens.
  Status feed(const GenerationStep& s) {
    if (!metadata_.use_kv_cache) {  // the whole (cropped) sequence, zeros after it: causal positions ignore them
      std::fill(tokens_buffer_.begin(), tokens_buffer_.end(), 0);
      std::copy(sequence_.end() - s.seq_len, sequence_.end(), tokens_buffer_.begin());
      const int64_t sizes[2] = {1, window_};
      ETKIT_ASSIGN_OR_RETURN(Tensor tokens, Tensor::make(ScalarType::kLong, Span<const int64_t>(sizes, 2), {},
                                                         tokens_buffer_.data(), tokens_buffer_.size() * sizeof(int64_t)));
      return forward_.set_input(0, tokens);
    }
    // The step's tokens at their positions in the cache.
    std::copy(sequence_.begin() + s.start_pos, sequence_.begin() + s.start_pos + s.seq_len, tokens_buffer_.begin());
    position_buffer_ = s.start_pos;
    const int64_t step_sizes[2] = {1, s.seq_len}, position_sizes[1] = {1};
    ETKIT_ASSIGN_OR_RETURN(Tensor tokens, Tensor::make(ScalarType::kLong, Span<const int64_t>(step_sizes, 2), {},
                                                       tokens_buffer_.data(), size_t(s.seq_len) * sizeof(int64_t)));
    ETKIT_ASSIGN_OR_RETURN(Tensor position, Tensor::make(ScalarType::kLong, Span<const int64_t>(position_sizes, 1), {},
                                                         &position_buffer_, sizeof position_buffer_));
    ETKIT_TRY(forward_.set_input(0, tokens));
    return forward_.set_input(1, position);
  }

  // The next token, from the logits of the step's last real token.
  Result<int64_t> sample(const GenerationStep& s) {
    const Tensor& logits = forward_.output(0).unchecked_tensor();
    const int64_t rows = logits.numel() / metadata_.vocab_size;
    const int64_t row = metadata_.use_kv_cache ? rows - 1 : s.seq_len - 1;
    if (row < 0 || row >= rows) {
      return Error::make(ErrorCode::kMalformed, "method '%s': logits hold %lld rows, step needs row %lld",
                         forward_.name().c_str(), (long long)rows, (long long)row);
    }
    return sample_token(logits.data_as<const float>() + row * metadata_.vocab_size, metadata_.vocab_size, sampling_,
                        rng_, scratch_);
  }

  // One execute; samples the next token when asked.
  Status step(GenerationStep s, bool sample_next) {
    ETKIT_TRY(feed(s));
    if (observer_ != nullptr) observer_->before_step(s);
    s.start_ns = now_ns_();
    ETKIT_TRY(forward_.execute());
    s.end_ns = now_ns_();
    if (sample_next) {
      ETKIT_ASSIGN_OR_RETURN(s.token, sample(s));
    }
    result_.steps.push_back(s);
    if (observer_ != nullptr) observer_->after_step(s);
    return Ok{};
  }

  Method& forward_;
  const DecoderMetadata& metadata_;
  const SamplingOptions& sampling_;
  uint64_t (*now_ns_)();
  GenerationObserver* observer_;
  const int64_t window_;
  const bool dynamic_window_;
  std::vector<int64_t> sequence_;
  std::vector<int64_t> tokens_buffer_;
  int64_t position_buffer_ = 0;
  std::mt19937_64 rng_;
  std::vector<std::pair<float, int64_t>> scratch_;
  GenerationResult result_;
};

}  // namespace

Result<GenerationResult> generate_tokens(Method& forward, const DecoderMetadata& metadata,
                                         Span<const int64_t> prompt, int64_t max_new_tokens,
                                         const SamplingOptions& sampling, uint64_t (*now_ns)(),
                                         GenerationObserver* observer) {
  Generation generation(forward, metadata, prompt, max_new_tokens, sampling, now_ns, observer);
  ETKIT_TRY(check_request(forward, metadata, prompt, generation.window(), generation.dynamic_window()));
  if (max_new_tokens <= 0) return generation.take_result();
  ETKIT_TRY(generation.prefill());
  ETKIT_TRY(generation.decode(max_new_tokens));
  return generation.take_result();
}

}  // namespace etkit
