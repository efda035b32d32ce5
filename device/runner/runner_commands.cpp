#include "runner_commands.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "etkit/bundled/bundled_inputs.h"
#include "etkit/bundled/bundled_program.h"
#include "etkit/bundled/device_report.h"
#include "etkit/bundled/verify.h"
#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/core/flat_tensor.h"
#include "etkit/core/input_snapshot.h"
#include "etkit/generation/token_generation.h"
#include "etkit/etdump/etdump_gen.h"
#include "device_backends.h"
#include "device_kernels.h"
#include "npy_io.h"
#include "platform.h"

namespace etkit::device {
namespace {

void record_totals(const etdump::ETDumpGen& tracer, bundled::DeviceReport& report) {
  const etdump::ETDumpGenStats s = tracer.stats();
  report.traced = true;
  report.trace = bundled::TraceTotals{s.blocks,         s.events,      s.dropped_events,     s.dropped_blocks,
                                      s.dropped_values, s.debug_bytes, s.intermediate_values};
}

// Sizes of the trace's preallocated records: devices have little memory,
// so fewer than the host reserves; what does not fit is counted as dropped.
constexpr size_t kEventsPerCase = 2048;
constexpr size_t kStringPoolBytes = 64 * 1024;

struct Loaded {
  std::optional<bundled::BundledProgram> bundle;
  std::optional<Program> program;
  std::vector<FlatTensor> data_files;
};

Status load(const RunnerOptions& o, Loaded& loaded) {
  ETKIT_ASSIGN_OR_RETURN(std::shared_ptr<const FileData> file, FileData::load(o.file));
  if (detect_file_kind(file->bytes()) == FileKind::kBundledProgram) {
    ETKIT_ASSIGN_OR_RETURN(auto bundle, bundled::BundledProgram::load(file, o.file));
    loaded.bundle.emplace(std::move(bundle));
    ETKIT_ASSIGN_OR_RETURN(auto program, loaded.bundle->load_program());
    loaded.program.emplace(std::move(program));
  } else {
    ETKIT_ASSIGN_OR_RETURN(auto program, Program::load(file, file->bytes(), o.file));
    loaded.program.emplace(std::move(program));
  }
  for (const std::string& path : o.data) {
    ETKIT_ASSIGN_OR_RETURN(FlatTensor data, FlatTensor::load_file(path));
    loaded.data_files.push_back(std::move(data));
  }
  return Ok{};
}

std::unique_ptr<etdump::ETDumpGen> make_tracer(const RunnerOptions& o, size_t events, size_t blocks,
                                                std::FILE* debug_file) {
  if (o.etdump.empty()) return nullptr;
  etdump::ETDumpGenOptions options;
  options.clock = trace_clock();
  options.event_capacity = events;
  options.block_capacity = blocks;
  options.string_pool_bytes = kStringPoolBytes;
  auto level = etdump::parse_debug_level(o.debug_level);
  options.debug_level = level.ok() ? *level : etdump::DebugLevel::kNone;
  options.op_filter = o.debug_filter;
  options.track_allocations = o.trace_allocations;
  options.debug_file = debug_file;
  return std::make_unique<etdump::ETDumpGen>(options);
}

// The runner's kernels and backends, the loaded data files, and `tracer`.
MethodOptions options_for(const Loaded& loaded, EventTracer* tracer) {
  MethodOptions options;
  options.kernels = &device_kernels();
  options.backends = &device_backends();
  options.tracer = tracer;
  for (const FlatTensor& data : loaded.data_files) options.data_files.push_back(&data);
  return options;
}

struct DebugFile {
  std::FILE* file = nullptr;
  ~DebugFile() {
    if (file != nullptr) std::fclose(file);
  }
};

Status verify_bundle(const RunnerOptions& o, bundled::DeviceReport& report) {
  Loaded loaded;
  ETKIT_TRY(load(o, loaded));
  if (!loaded.bundle) return Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)", o.file.c_str());
  size_t cases = 0;
  for (const auto& suite : loaded.bundle->suites()) cases += suite.cases.size();
  DebugFile debug;
  if (!o.debug_buffer.empty()) debug.file = std::fopen(o.debug_buffer.c_str(), "wb");
  auto tracer = make_tracer(o, (cases + 4) * kEventsPerCase, cases + 16, debug.file);
  MethodOptions method_options = options_for(loaded, tracer.get());
  bundled::VerifyOptions options;
  options.rtol = o.rtol;
  options.atol = o.atol;
  options.method = o.method;
  options.case_index = o.case_index;
  ETKIT_ASSIGN_OR_RETURN(report.verify, bundled::verify(*loaded.bundle, *loaded.program, method_options, options));
  if (tracer) {
    ETKIT_TRY(tracer->write(o.etdump));
    record_totals(*tracer, report);
  }
  return Ok{};
}

Status set_npy_inputs(Method& method, const RunnerOptions& o, std::vector<NpyTensor>& owned) {
  if (o.inputs.size() != method.input_count()) {
    return Error::make(ErrorCode::kInvalidArgument, "method '%s' takes %zu inputs, %zu given",
                       method.name().c_str(), method.input_count(), o.inputs.size());
  }
  owned.reserve(o.inputs.size());
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(NpyTensor npy, read_npy(o.inputs[i]));
    owned.push_back(std::move(npy));
    NpyTensor& t = owned.back();
    ETKIT_ASSIGN_OR_RETURN(Tensor view, Tensor::make(t.dtype, Span<const int64_t>(t.shape.data(), t.shape.size()),
                                                     {}, t.data.data(), t.data.size()));
    const Value& input = method.input(i);
    Status status = input.is_tensor() ? method.set_input(i, view) : Status(Ok{});
    if (!input.is_tensor()) {
      // Scalars arrive as 0-d arrays of int64, float64 or bool.
      const Value scalar = t.dtype == ScalarType::kLong  ? Value::from_int(*view.data_as<int64_t>())
                           : t.dtype == ScalarType::kBool ? Value::from_bool(*view.data_as<uint8_t>() != 0)
                                                         : Value::from_double(*view.data_as<double>());
      status = method.set_input(i, scalar);
    }
    if (!status.ok()) return status.error().with_context("%s", o.inputs[i].c_str());
  }
  return Ok{};
}

Status write_outputs(const Method& method, const std::string& dir) {
  for (size_t i = 0; i < method.output_count(); ++i) {
    const std::string path = dir + "/output_" + std::to_string(i) + ".npy";
    const Value& output = method.output(i);
    if (output.is_tensor()) {
      ETKIT_TRY(write_npy(path, output.unchecked_tensor()));
      continue;
    }
    const bool is_int = output.tag() == ValueTag::kInt;
    int64_t iv = is_int ? output.unchecked_int() : 0;
    double dv = output.is_scalar() ? output.scalar_as_double() : 0;
    ETKIT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(is_int ? ScalarType::kLong : ScalarType::kDouble, {}, {},
                                                  is_int ? static_cast<void*>(&iv) : static_cast<void*>(&dv), 8));
    ETKIT_TRY(write_npy(path, t));
  }
  return Ok{};
}

Status run_program(const RunnerOptions& o, bundled::DeviceReport& report) {
  report.kind = bundled::DeviceReport::Kind::kRun;
  Loaded loaded;
  ETKIT_TRY(load(o, loaded));
  const size_t runs = size_t(o.iterations + o.warmup);
  DebugFile debug;
  if (!o.debug_buffer.empty()) debug.file = std::fopen(o.debug_buffer.c_str(), "wb");
  auto tracer = make_tracer(o, 1024, runs + 8, debug.file);
  MethodOptions method_options = options_for(loaded, tracer.get());
  const std::string method_name = o.method.empty() ? "forward" : o.method;
  ETKIT_ASSIGN_OR_RETURN(auto method, Method::load(*loaded.program, method_name, method_options));
  if (tracer) tracer->reserve_events(64 + runs * method->trace_events_per_execute(o.debug_level != "none"));
  std::vector<NpyTensor> owned;
  ETKIT_TRY(set_npy_inputs(*method, o, owned));
  const InputSnapshot snapshot = InputSnapshot::capture(*method);
  for (size_t i = 0; i < runs; ++i) {
    if (i > 0 && o.reset_state) method->reset_state();
    if (i > 0) ETKIT_TRY(snapshot.restore(*method));
    const double start = seconds_now();
    Status status = method->execute();
    const double end = seconds_now();
    if (!status.ok()) return status.error().with_context("%s", o.file.c_str());
    // Warm-ups are a phase of their own (the host's name, etkit/inspector/event_blocks.h).
    if (tracer && i < size_t(o.warmup)) tracer->rename_block("Warmup");
    if (i >= size_t(o.warmup)) report.latencies_ms.push_back((end - start) * 1e3);
  }
  if (!o.output_dir.empty()) ETKIT_TRY(write_outputs(*method, o.output_dir));
  report.outputs = method->output_count();
  if (tracer) {
    ETKIT_TRY(tracer->write(o.etdump));
    record_totals(*tracer, report);
  }
  return Ok{};
}

uint64_t nanoseconds_now() { return uint64_t(seconds_now() * 1e9); }

// Tags the steps' trace blocks as the host does (etkit/inspector/event_blocks.h).
class PhaseTagger : public GenerationObserver {
 public:
  explicit PhaseTagger(etdump::ETDumpGen* gen) : gen_(gen) {}
  void after_step(const GenerationStep& step) override {
    if (gen_ != nullptr) gen_->rename_block(step.phase == GenerationPhase::kPrefill ? "Prefill" : "Decode");
  }

 private:
  etdump::ETDumpGen* gen_;
};

// Token generation (core's token_generation, as etinspect generate on the
// host): the report's latencies are the steps', in order; the tokens go to
// output_0.npy (int64 [n]), as a run's first output.
Status generate(const RunnerOptions& o, bundled::DeviceReport& report) {
  report.kind = bundled::DeviceReport::Kind::kRun;
  Loaded loaded;
  ETKIT_TRY(load(o, loaded));
  const size_t steps = size_t(o.max_new) + o.prompt_tokens.size() + 1;
  DebugFile debug;
  if (!o.debug_buffer.empty()) debug.file = std::fopen(o.debug_buffer.c_str(), "wb");
  auto tracer = make_tracer(o, 1024, steps + 8, debug.file);
  MethodOptions method_options = options_for(loaded, nullptr);  // the tracer joins after the metadata
  const std::string method_name = o.method.empty() ? "forward" : o.method;
  DecoderMetadata metadata;
  {
    ETKIT_ASSIGN_OR_RETURN(auto probe, Method::load(*loaded.program, method_name, method_options));
    ETKIT_ASSIGN_OR_RETURN(metadata, read_decoder_metadata(*loaded.program, method_options, *probe));
  }
  method_options.tracer = tracer.get();
  ETKIT_ASSIGN_OR_RETURN(auto method, Method::load(*loaded.program, method_name, method_options));
  if (tracer) tracer->reserve_events(64 + steps * method->trace_events_per_execute(o.debug_level != "none"));
  PhaseTagger tagger(tracer.get());
  const SamplingOptions sampling{o.temperature, o.top_p, o.seed};
  ETKIT_ASSIGN_OR_RETURN(GenerationResult result,
                         generate_tokens(*method, metadata,
                                         Span<const int64_t>(o.prompt_tokens.data(), o.prompt_tokens.size()),
                                         o.max_new, sampling, nanoseconds_now, &tagger));
  for (const GenerationStep& step : result.steps) report.latencies_ms.push_back(double(step.end_ns - step.start_ns) / 1e6);
  if (!o.output_dir.empty()) {
    const int64_t count = int64_t(result.generated.size());
    ETKIT_ASSIGN_OR_RETURN(Tensor tokens, Tensor::make(ScalarType::kLong, Span<const int64_t>(&count, 1), {},
                                                       result.generated.data(), result.generated.size() * 8));
    ETKIT_TRY(write_npy(o.output_dir + "/output_0.npy", tokens));
  }
  report.outputs = 1;
  if (tracer) {
    ETKIT_TRY(tracer->write(o.etdump));
    record_totals(*tracer, report);
  }
  return Ok{};
}

}  // namespace

int run_command(const RunnerOptions& o) {
  bundled::DeviceReport report;
  Status status = o.command == "verify"     ? verify_bundle(o, report)
                  : o.command == "generate" ? generate(o, report)
                                            : run_program(o, report);
  if (!status.ok()) {
    report.failed = true;
    report.error_code = status.error().code();
    report.error_message = status.error().message();
  }
  const std::string text = bundled::format_device_report(report);
  std::FILE* f = std::fopen(o.report.c_str(), "wb");
  const bool written = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr && std::fclose(f) != 0) return 3;
  if (!written) {
    std::fprintf(stderr, "etkit runner: cannot write the report %s\n", o.report.c_str());
    return 3;
  }
  if (report.failed) return 2;
  return report.kind == bundled::DeviceReport::Kind::kVerify && report.verify.failed > 0 ? 1 : 0;
}

}  // namespace etkit::device
