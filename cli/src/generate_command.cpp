// etinspect generate PROGRAM --prompt-tokens 1,2,3 --max-new N: token
// generation over a decoder program as upstream's LLM runner drives it
// (core's token_generation), with upstream's stats block and, with
// --etdump, a trace whose runs are tagged Prefill and Decode.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>

#include <unistd.h>

#include "commands.h"
#include "device_target.h"
#include "diagnostics.h"
#include "etkit/generation/token_generation.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/npy.h"
#include "option_checks.h"
#include "etkit/report/printer.h"
#include "etkit/session/generation_report.h"
#include "etkit/session/loaded_program.h"
#include "etkit/session/tracing.h"
#include "tracing_options.h"

namespace etkit::cli {
namespace {

struct GenerateOptions {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> data;
  std::string prompt_tokens;
  int64_t max_new = 32;
  double temperature = 0.0;
  double top_p = 1.0;
  uint64_t seed = 0;
  int threads = 0;  ///< the runtime's workers (0: every core)
  bool json = false;
  session::TracingOptions tracing;
  DeviceOptions device;
};

uint64_t steady_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

Result<std::vector<int64_t>> parse_tokens(const std::string& text) {
  std::vector<int64_t> tokens;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    size_t used = 0;
    long long value = -1;
    bool ok = !item.empty();
    try {
      value = std::stoll(item, &used);
    } catch (...) {
      ok = false;
    }
    if (!ok || used != item.size() || value < 0) {
      return Error::make(ErrorCode::kInvalidArgument, "--prompt-tokens: '%s' is not a token id (a whole number >= 0)",
                         item.c_str());
    }
    tokens.push_back(value);
  }
  if (tokens.empty()) return Error::make(ErrorCode::kInvalidArgument, "--prompt-tokens holds no token ids");
  return tokens;
}

// Tags each traced step's block with its phase, so prefill and decode are
// apart in every table (upstream's Inspector shows them as two blocks).
class PhaseTagger : public GenerationObserver {
 public:
  explicit PhaseTagger(etdump::ETDumpGen* gen) : gen_(gen) {}
  void after_step(const GenerationStep& step) override {
    if (gen_ != nullptr) {
      gen_->rename_block(step.phase == GenerationPhase::kPrefill ? inspector::kPrefillBlockName
                                                                 : inspector::kDecodeBlockName);
    }
    // Long generations show progress on a terminal.
    if (isatty(fileno(stderr)) && step.token >= 0) fmt::print(stderr, "\rgenerated {} tokens", ++tokens_);
  }
  ~PhaseTagger() override {
    if (tokens_ > 0 && isatty(fileno(stderr))) fmt::print(stderr, "\n");
  }

 private:
  etdump::ETDumpGen* gen_;
  int64_t tokens_ = 0;
};

// The same generation inside a device: the runner generates and returns the
// tokens (as output_0.npy) and each step's latency; the steps after the
// prompt's are one per further token.
Result<GenerationResult> generate_on_device(const GenerateOptions& options, const std::vector<int64_t>& prompt) {
  WorkDir work;
  ETKIT_TRY(make_work_dir(work, "generate"));
  const std::string scratch = work.str();
  DeviceJob job;
  job.command = "generate";
  job.file = options.program;
  job.data = options.data;
  job.etdump = options.tracing.etdump;
  job.debug_buffer = options.tracing.debug_buffer;
  job.output_dir = scratch;
  std::string tokens;
  for (size_t i = 0; i < prompt.size(); ++i) tokens += (i ? "," : "") + std::to_string(prompt[i]);
  job.arguments = {"--method", options.method, "--prompt-tokens", tokens, "--max-new", std::to_string(options.max_new),
                   "--temperature", fmt::format("{}", options.temperature), "--top-p",
                   fmt::format("{}", options.top_p), "--seed", std::to_string(options.seed)};
  session::append_trace_arguments(options.tracing, job.arguments);
  ETKIT_ASSIGN_OR_RETURN(bundled::DeviceReport report, cli::run_on_device(options.device, options.device.targets.front(), job));
  if (report.failed) return Error::make(report.error_code, "%s", report.error_message.c_str());
  ETKIT_ASSIGN_OR_RETURN(inspector::NpyArray generated, inspector::read_npy(scratch + "/output_0.npy"));
  ETKIT_ASSIGN_OR_RETURN(Tensor view, generated.view());
  GenerationResult result;
  if (view.scalar_type() != ScalarType::kLong || view.dim() != 1) {
    return Error::make(ErrorCode::kMalformed, "device: the generated tokens (output_0.npy) are not a 1-D int64 array");
  }
  result.generated.assign(view.data_as<const int64_t>(), view.data_as<const int64_t>() + view.numel());
  // One latency per step: the prompt's steps (one per token, or fewer on a
  // dynamic-length program), then one per further token.
  const size_t decode_steps = result.generated.empty() ? 0 : result.generated.size() - 1;
  const size_t prefill_steps = report.latencies_ms.size() > decode_steps ? report.latencies_ms.size() - decode_steps : 0;
  uint64_t clock = 0;
  for (size_t i = 0; i < report.latencies_ms.size(); ++i) {
    GenerationStep step;
    step.phase = i < prefill_steps ? GenerationPhase::kPrefill : GenerationPhase::kDecode;
    step.start_ns = clock;
    clock += uint64_t(report.latencies_ms[i] * 1e6);
    step.end_ns = clock;
    result.steps.push_back(step);
  }
  result.stopped_at_max_seq_len = int64_t(result.generated.size()) < options.max_new;
  return result;
}

int generate(const GenerateOptions& options) {
  Diagnostics diagnostics;
  auto prompt = parse_tokens(options.prompt_tokens);
  if (!prompt.ok()) return diagnostics.fail(prompt.error());
  const uint64_t origin = steady_ns();
  auto loaded = session::load_program(options.program, options.data);
  if (!loaded.ok()) return diagnostics.fail(loaded.error());
  const size_t steps = size_t(options.max_new) + prompt->size() + 1;
  session::Tracing tracing;
  Status traced = session::setup_tracing(options.tracing, 1024, steps + 8, tracing);
  if (!traced.ok()) return diagnostics.fail(traced.error());
  MethodOptions method_options = session::method_options_for(**loaded, options.threads);
  auto metadata_probe = Method::load(*(*loaded)->program, options.method, method_options);
  if (!metadata_probe.ok()) return diagnostics.fail(metadata_probe.error());
  auto metadata = read_decoder_metadata(*(*loaded)->program, method_options, **metadata_probe);
  if (!metadata.ok()) return diagnostics.fail(metadata.error());
  metadata_probe->reset();
  GenerationResult result;
  uint64_t load_start = steady_ns(), load_end = load_start;
  if (!options.device.on_host()) {
    auto generated = generate_on_device(options, *prompt);
    if (!generated.ok()) return diagnostics.fail(generated.error());
    result = std::move(*generated);
  } else {
    method_options.tracer = tracing.gen.get();
    load_start = steady_ns();
    auto method = Method::load(*(*loaded)->program, options.method, method_options);
    load_end = steady_ns();
    if (!method.ok()) return diagnostics.fail(method.error());
    if (tracing.gen) {
      const bool values = options.tracing.debug_level != "none";
      tracing.gen->reserve_events(64 + steps * ((*method)->trace_events_per_execute(values) + 2));
    }
    PhaseTagger tagger(tracing.gen.get());
    SamplingOptions sampling{options.temperature, options.top_p, options.seed};
    auto generated = generate_tokens(**method, *metadata, Span<const int64_t>(prompt->data(), prompt->size()),
                                     options.max_new, sampling, steady_ns, &tagger);
    if (!generated.ok()) return diagnostics.fail(generated.error());
    result = std::move(*generated);
    if (tracing.gen) {
      Status finished = tracing.finish(options.tracing.etdump);
      if (!finished.ok()) return diagnostics.fail(finished.error());
      for (const std::string& warning : session::trace_warnings(options.tracing, tracing.gen->stats())) {
        diagnostics.warning(warning);
      }
    }
  }
  if (result.stopped_at_max_seq_len) {
    diagnostics.warning(fmt::format("{}: stopped after {} tokens: the sequence reached max_seq_len {}",
                                    options.program, result.generated.size(), metadata->max_seq_len));
  }
  session::GenerationReport generation{options.program, options.method, *prompt, std::move(result), {}, *metadata};
  generation.stats = session::stats_of(generation.result, int64_t(prompt->size()), origin, load_start, load_end);
  std::unique_ptr<report::Printer> out =
      options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  print(*out, generation);
  out->finish();
  return kExitOk;
}

}  // namespace

void register_generate(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* command = app.add_subcommand(
      "generate", "Generate tokens with a decoder program (prefill, then decode), as upstream's LLM runner");
  command->add_option("program", options->program, ".pte file (or .bpte)")->required();
  command->add_option("--prompt-tokens", options->prompt_tokens, "Prompt token ids, comma-separated (no tokenizer)")
      ->required();
  command->add_option("--max-new", options->max_new, "Tokens to generate (default 32)")
      ->check(whole_number(1, 1'000'000));
  command->add_option("--method", options->method, "Decoder method (default forward)");
  command->add_option("--data", options->data, "External constant files (.ptd), searched in order");
  command->add_option("--temperature", options->temperature, "Sampling temperature; 0 (default) is greedy")
      ->check(number_in(0, 100));
  command->add_option("--top-p", options->top_p, "Nucleus sampling: keep the most probable tokens up to this mass")
      ->check(number_in(0, 1));
  command->add_option("--seed", options->seed, "Seed of the sampler")
      ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  add_threads_option(*command, options->threads);
  command->add_flag("--json", options->json,
                    "Upstream's runner stats as JSON, plus the prompt and generated token ids");
  add_tracing_options(*command, options->tracing);
  add_device_options(*command, options->device);
  command->callback([options, &context] { context.exit_code = generate(*options); });
}

}  // namespace etkit::cli
