#include "etkit/session/generation_report.h"

namespace etkit::session {

GenerationStats stats_of(const GenerationResult& result, int64_t prompt_tokens, uint64_t origin_ns,
                         uint64_t load_start_ns, uint64_t load_end_ns) {
  const auto ms = [origin_ns](uint64_t ns) { return double(ns - origin_ns) / 1e6; };
  GenerationStats stats;
  stats.prompt_tokens = prompt_tokens;
  stats.generated_tokens = int64_t(result.generated.size());
  stats.model_load_start_ms = ms(load_start_ns);
  stats.model_load_end_ms = ms(load_end_ns);
  if (result.steps.empty()) return stats;
  stats.inference_start_ms = ms(result.steps.front().start_ns);
  stats.inference_end_ms = ms(result.steps.back().end_ns);
  for (const GenerationStep& step : result.steps) {
    stats.execution_ms += double(step.end_ns - step.start_ns) / 1e6;
    if (step.phase == GenerationPhase::kPrefill) stats.prompt_eval_end_ms = ms(step.end_ns);
  }
  stats.first_token_ms = stats.prompt_eval_end_ms;  // the prefill's last step samples it
  return stats;
}

namespace {

void print_upstream_stats(report::Printer& out, const GenerationStats& stats) {
  const double prefill_ms = stats.prompt_eval_end_ms - stats.inference_start_ms;
  const double decode_ms = stats.inference_end_ms - stats.prompt_eval_end_ms;
  if (prefill_ms > 0) out.field("prefill_token_per_sec", double(stats.prompt_tokens) / prefill_ms * 1000);
  if (decode_ms > 0) out.field("decode_token_per_sec", double(stats.generated_tokens) / decode_ms * 1000);
  out.field("prompt_tokens", stats.prompt_tokens);
  out.field("generated_tokens", stats.generated_tokens);
  out.field("model_load_start_ms", stats.model_load_start_ms);
  out.field("model_load_end_ms", stats.model_load_end_ms);
  out.field("inference_start_ms", stats.inference_start_ms);
  out.field("inference_end_ms", stats.inference_end_ms);
  out.field("model_execution_start_ms", stats.inference_start_ms);
  out.field("model_execution_end_ms", stats.inference_end_ms);
  out.field("prompt_eval_end_ms", stats.prompt_eval_end_ms);
  out.field("first_token_ms", stats.first_token_ms);
  out.field("aggregate_sampling_time_ms", (stats.inference_end_ms - stats.inference_start_ms) - stats.execution_ms);
  out.field("aggregate_model_execution_time_ms", stats.execution_ms);
  out.field("SCALING_FACTOR_UNITS_PER_SECOND", int64_t{1000});
}

}  // namespace

void print(report::Printer& out, const GenerationReport& generation) {
  const GenerationStats& stats = generation.stats;
  std::vector<double> decode_latencies;
  int64_t prefill_calls = 0;
  for (const GenerationStep& step : generation.result.steps) {
    if (step.phase == GenerationPhase::kDecode) decode_latencies.push_back(double(step.end_ns - step.start_ns) / 1e6);
    prefill_calls += step.phase == GenerationPhase::kPrefill;
  }
  out.begin_object("");
  print_upstream_stats(out, stats);
  // etkit's additions.
  out.field("time_to_first_token_ms", stats.first_token_ms - stats.inference_start_ms);
  out.field("model_load_time_ms", stats.model_load_end_ms - stats.model_load_start_ms);
  out.int_list("prompt_token_ids", generation.prompt);
  out.int_list("generated_token_ids", generation.result.generated);
  out.field("prefill_calls", prefill_calls);  // one on a dynamic-length program
  out.double_list("decode_latencies_ms", decode_latencies, decode_latencies.size());
  out.field("stopped_at_max_seq_len", generation.result.stopped_at_max_seq_len);
  const DecoderMetadata& metadata = generation.metadata;
  out.begin_object("program");
  out.field("path", generation.program);
  out.field("method", generation.method);
  out.field("max_seq_len", metadata.max_seq_len);
  out.field("vocab_size", metadata.vocab_size);
  out.field("use_kv_cache", metadata.use_kv_cache);
  out.field("enable_dynamic_shape", metadata.enable_dynamic_shape);
  out.string_list("metadata_methods", metadata.read_from_program);
  out.end_object();
  out.end_object();
}

}  // namespace etkit::session
