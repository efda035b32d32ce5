// etinspect run PROGRAM: run a method with inputs from .npy files, a
// bundled test case or generated values, and report outputs and latency.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <random>

#include "commands.h"
#include "diagnostics.h"
#include "option_checks.h"
#include "etkit/bundled/bundled_inputs.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/npy.h"
#include "etkit/inspector/tracing_overhead.h"
#include "intermediates_dir.h"
#include "etkit/core/program_summary.h"
#include "etkit/core/input_snapshot.h"
#include "device_target.h"
#include "etkit/report/printer.h"
#include "etkit/session/loaded_program.h"
#include "etkit/session/run_report.h"
#include "etkit/core/tensor_access.h"
#include "etkit/session/tracing.h"
#include "tracing_options.h"

namespace etkit::cli {
namespace {

// Executions a run may ask for (timed plus warm-up each): a bound that
// keeps the trace's reserved events within memory.
constexpr int64_t kMaxRuns = 1'000'000;

struct RunOptions {
  std::string program;
  int threads = 0;  ///< the runtime's workers (0: every core)
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::vector<std::string> data;
  int bundled_input = -1;
  std::string fill = "ones";
  uint64_t seed = 0;
  int iterations = 1;
  bool reset_state = false;
  int warmup = 0;
  std::string output_dir;
  std::string save_intermediates;  ///< folder for the first run's intermediate outputs (.npy)
  bool print_outputs = false;
  bool json = false;
  session::TracingOptions tracing;
  DeviceOptions device;
};

// Owns input bytes for the whole run (borrowed inputs point into them).
struct InputBuffers {
  std::vector<std::vector<uint8_t>> buffers;
};

template <typename T>
void fill_buffer(std::vector<uint8_t>& bytes, int64_t count, const std::string& mode,
                 std::mt19937_64& rng) {
  T* p = reinterpret_cast<T*>(bytes.data());
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> small(0, 9);
  for (int64_t i = 0; i < count; ++i) {
    if (mode == "zeros") p[i] = T(0);
    else if (mode == "ones") p[i] = T(1);
    else if constexpr (std::is_floating_point_v<T>) p[i] = T(normal(rng));
    else p[i] = T(small(rng));
  }
}

Status fill_inputs(Method& method, const RunOptions& options, InputBuffers& owned) {
  std::mt19937_64 rng(options.seed);
  for (size_t i = 0; i < method.input_count(); ++i) {
    const Value& input = method.input(i);
    if (!input.is_tensor()) continue;  // scalars keep the program's value
    const Tensor& spec = input.unchecked_tensor();
    owned.buffers.emplace_back(spec.nbytes() + 1);
    std::vector<uint8_t>& bytes = owned.buffers.back();
    bool known = true;
    switch (spec.scalar_type()) {
      case ScalarType::kFloat: fill_buffer<float>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kDouble: fill_buffer<double>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kInt: fill_buffer<int32_t>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kLong: fill_buffer<int64_t>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kChar: fill_buffer<int8_t>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kByte: fill_buffer<uint8_t>(bytes, spec.numel(), options.fill, rng); break;
      case ScalarType::kBool: fill_buffer<uint8_t>(bytes, spec.numel(), options.fill == "zeros" ? "zeros" : "ones", rng); break;
      default: known = false;
    }
    if (!known) {
      return Error::make(ErrorCode::kUnsupported, "input %zu: cannot generate %s values (pass --input)",
                         i, to_string(spec.scalar_type()));
    }
    ETKIT_ASSIGN_OR_RETURN(Tensor view, Tensor::make(spec.scalar_type(), spec.sizes(), spec.dim_order(),
                                                     bytes.data(), spec.nbytes()));
    ETKIT_TRY(method.set_input(i, view));
  }
  return Ok{};
}

Status npy_inputs(Method& method, const RunOptions& options, InputBuffers& owned) {
  if (options.inputs.size() != method.input_count()) {
    return Error::make(ErrorCode::kInvalidArgument, "method '%s' takes %zu inputs, %zu given with --input",
                       method.name().c_str(), method.input_count(), options.inputs.size());
  }
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(inspector::NpyArray array, inspector::read_npy(options.inputs[i]));
    const Value& input = method.input(i);
    if (!input.is_tensor()) {
      if (array.numel() != 1) {
        return Error::make(ErrorCode::kInvalidArgument, "%s: input %zu is a %s scalar, the file holds %lld values",
                           options.inputs[i].c_str(), i, to_string(input.tag()), (long long)array.numel());
      }
      ETKIT_ASSIGN_OR_RETURN(Tensor one, array.view());
      const double v = element_as_double(one, 0);
      const Value scalar = input.tag() == ValueTag::kInt    ? Value::from_int(int64_t(v))
                           : input.tag() == ValueTag::kBool ? Value::from_bool(v != 0)
                                                            : Value::from_double(v);
      Status status = method.set_input(i, scalar);
      if (!status.ok()) return status.error().with_context("%s", options.inputs[i].c_str());
      continue;
    }
    ETKIT_ASSIGN_OR_RETURN(Tensor view, array.view());
    if (view.scalar_type() == ScalarType::kUInt16 && input.unchecked_tensor().scalar_type() == ScalarType::kBFloat16) {
      // NumPy has no bfloat16: a uint16 file holds its bits, as etkit
      // writes bfloat16 outputs.
      ETKIT_ASSIGN_OR_RETURN(view, Tensor::make(ScalarType::kBFloat16, view.sizes(), view.dim_order(), view.data(),
                                                view.nbytes()));
    }
    owned.buffers.push_back(std::move(array.data));  // the view's bytes move with it
    Status status = method.set_input(i, view);
    if (!status.ok()) return status.error().with_context("%s", options.inputs[i].c_str());
  }
  return Ok{};
}

Status bundled_inputs(Method& method, const session::LoadedProgram& loaded, const RunOptions& options) {
  if (!loaded.bundle) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: --bundled-input needs a bundled program (.bpte)",
                       options.program.c_str());
  }
  for (const auto& suite : loaded.bundle->suites()) {
    if (suite.method_name != options.method) continue;
    if (size_t(options.bundled_input) >= suite.cases.size()) {
      return index_out_of_range("--bundled-input", options.bundled_input,
                                "test case of method '" + options.method + "' in " + options.program,
                                suite.cases.size());
    }
    return bundled::set_inputs(method, suite.cases[size_t(options.bundled_input)]);
  }
  return Error::make(ErrorCode::kNotFound, "%s: no test suite for method '%s'", options.program.c_str(),
                     options.method.c_str());
}


// Made before any work, so a long run never fails at its end.
Status make_output_dir(const std::string& dir) {
  if (dir.empty()) return Ok{};
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    return Error::make(ErrorCode::kIo, "--output-dir %s: cannot create the folder: %s", dir.c_str(),
                       error ? error.message().c_str() : "a file is in the way");
  }
  return Ok{};
}

// What a caller marks around each execute of time_runs (trace blocks and
// events); `i` counts warm-ups first.
struct RunMarks {
  std::function<void(int i)> before = [](int) {};
  std::function<void(int i)> after = [](int) {};
  const char* what = "";  // error context and progress label ("" for the traced runs)
};

// Executes warm-up and timed runs on the same inputs; returns the timed
// runs' latencies in ms.
Result<std::vector<double>> time_runs(Method& method, const RunOptions& options, const RunMarks& marks) {
  // Later instructions may reuse an input's planned bytes, so the inputs
  // are put back before each run (outside the timed region).
  const InputSnapshot snapshot = InputSnapshot::capture(method);
  std::vector<double> latencies;
  const bool progress = use_colour(2) && options.iterations >= 20;
  for (int i = 0; i < options.warmup + options.iterations; ++i) {
    // State (a KV cache) carries from run to run unless --reset-state.
    if (i > 0 && options.reset_state) method.reset_state();
    if (i > 0) ETKIT_TRY(snapshot.restore(method));
    marks.before(i);
    const auto start = std::chrono::steady_clock::now();
    Status status = method.execute();
    const auto end = std::chrono::steady_clock::now();
    marks.after(i);
    if (!status.ok()) return status.error().with_context("%s%s", options.program.c_str(), marks.what);
    if (i >= options.warmup) latencies.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    if (progress) fmt::print(stderr, "\r{}{}/{}", marks.what, i + 1, options.warmup + options.iterations);
  }
  if (progress) fmt::print(stderr, "\r\033[K");
  return latencies;
}

// The marks of the traced runs: a bundled input's index on each block, as
// upstream's runners do, and warm-ups as a phase of their own, left out of
// statistics.
RunMarks traced_marks(const RunOptions& options, session::Tracing& tracing) {
  RunMarks marks;
  if (!tracing.gen) return marks;
  marks.after = [&options, &tracing](int i) {
    if (options.bundled_input >= 0) tracing.gen->set_bundled_input_index(options.bundled_input);
    if (i < options.warmup) tracing.gen->rename_block(inspector::kWarmupBlockName);
  };
  return marks;
}

// Traced, a method's delegate calls run node by node (one XNNPACK runtime
// per node). To say what that costs, a second, untraced copy of the method
// runs as many times on the same inputs, each timed execute written to the
// trace as the "Method::execute" event of an "Untraced" block
// (tracing_overhead.h). Returns the untraced latencies in ms; none when
// nothing is delegated.
template <typename SetInputs>
Result<std::vector<double>> time_untraced(const Program& program, const RunOptions& options,
                                          const MethodOptions& traced_options, session::Tracing& tracing,
                                          SetInputs set_inputs) {
  bool delegated = false;
  for (const MethodSummary& m : summarize(program).methods) {
    if (m.name == options.method) delegated = m.delegate_call_count > 0;
  }
  if (!delegated) return std::vector<double>{};
  MethodOptions untraced_options = traced_options;
  untraced_options.tracer = nullptr;
  ETKIT_ASSIGN_OR_RETURN(auto method, Method::load(program, options.method, untraced_options));
  InputBuffers owned;
  ETKIT_TRY(set_inputs(*method, owned));
  EventTracerEntry entry;
  RunMarks marks;
  marks.what = " (untraced, for the tracing overhead) ";
  marks.before = [&](int i) {
    if (i < options.warmup) return;
    tracing.gen->create_event_block(inspector::kUntracedBlockName);  // one block per run, as traced
    entry = tracing.gen->start_profiling("Method::execute", -1, 0);
  };
  marks.after = [&](int i) {
    if (i >= options.warmup) tracing.gen->end_profiling(entry);
  };
  return time_runs(*method, options, marks);
}

// One value as .npy: tensors as they are, scalars as 0-d arrays.
Status write_value_npy(const std::string& path, const Value& output) {
  if (output.is_tensor()) return inspector::write_npy(path, output.unchecked_tensor());
  if (!output.is_scalar()) return Ok{};
  double v = output.scalar_as_double();
  int64_t iv = output.tag() == ValueTag::kInt ? output.unchecked_int() : 0;
  const bool is_int = output.tag() == ValueTag::kInt;
  ETKIT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(is_int ? ScalarType::kLong : ScalarType::kDouble, {}, {},
                                                is_int ? static_cast<void*>(&iv) : static_cast<void*>(&v), 8));
  return inspector::write_npy(path, t);
}

// output_<i>.npy for every output.
Status write_outputs(const Method& method, const std::string& dir) {
  for (size_t i = 0; i < method.output_count() && !dir.empty(); ++i) {
    ETKIT_TRY(write_value_npy(dir + "/output_" + std::to_string(i) + ".npy", method.output(i)));
  }
  return Ok{};
}

void print_report(const RunOptions& options, std::vector<Value> outputs, std::vector<double> latencies,
                  const etdump::ETDumpGenStats* trace, std::vector<double> untraced = {}) {
  session::RunReport run{options.program, options.method, options.iterations, std::move(latencies), std::nullopt,
                         std::move(untraced), std::move(outputs), options.print_outputs ? 8u : 0u};
  if (trace != nullptr) run.trace = session::RunReport::Trace{options.tracing.etdump, *trace};
  std::unique_ptr<report::Printer> out =
      options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
  print(*out, run);
  out->finish();
}

// Outputs read back from a device, as values like the method's own.
struct DeviceOutputs {
  std::vector<inspector::NpyArray> arrays;
  std::vector<Tensor> tensors;
  std::vector<Value> values;
};

Status read_device_outputs(const Method& method, const std::string& dir, DeviceOutputs& out) {
  out.arrays.reserve(method.output_count());
  out.tensors.reserve(method.output_count());
  for (size_t i = 0; i < method.output_count(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(inspector::NpyArray array, inspector::read_npy(dir + "/output_" + std::to_string(i) + ".npy"));
    out.arrays.push_back(std::move(array));
    ETKIT_ASSIGN_OR_RETURN(Tensor view, out.arrays.back().view());
    out.tensors.push_back(view);
    const ValueTag tag = method.output(i).tag();
    out.values.push_back(tag == ValueTag::kTensor ? Value::from_tensor(&out.tensors.back())
                         : tag == ValueTag::kInt  ? Value::from_int(int64_t(element_as_double(view, 0)))
                         : tag == ValueTag::kBool ? Value::from_bool(element_as_double(view, 0) != 0)
                                                  : Value::from_double(element_as_double(view, 0)));
  }
  return Ok{};
}

// The same run inside a device: the inputs were set up on the host exactly
// as for a host run, and go to the device as .npy files.
int run_on_device(const RunOptions& options, Method& method, Diagnostics& diagnostics) {
  WorkDir work;
  Status made = make_work_dir(work, "run");
  if (!made.ok()) return diagnostics.fail(made.error());
  const std::string scratch = work.str();
  DeviceJob job;
  job.command = "run";
  job.file = options.program;
  job.data = options.data;
  job.etdump = options.tracing.etdump;
  job.debug_buffer = options.tracing.debug_buffer;
  job.output_dir = scratch;
  job.arguments = {"--method", options.method, "--iterations", std::to_string(options.iterations), "--warmup",
                   std::to_string(options.warmup)};
  if (options.reset_state) job.arguments.push_back("--reset-state");
  session::append_trace_arguments(options.tracing, job.arguments);
  for (size_t i = 0; i < method.input_count(); ++i) {
    job.inputs.push_back(scratch + "/input_" + std::to_string(i) + ".npy");
    Status written = write_value_npy(job.inputs.back(), method.input(i));
    if (!written.ok()) return diagnostics.fail(written.error());
  }
  auto report = cli::run_on_device(options.device, options.device.targets.front(), job);
  if (!report.ok()) return diagnostics.fail(report.error());
  if (report->failed) return diagnostics.fail(Error::make(report->error_code, "%s", report->error_message.c_str()));
  DeviceOutputs outputs;
  Status read = read_device_outputs(method, scratch, outputs);
  if (read.ok() && !options.output_dir.empty()) {
    for (size_t i = 0; i < method.output_count() && read.ok(); ++i) {
      const std::string name = "/output_" + std::to_string(i) + ".npy";
      read = copy_back(scratch + name, options.output_dir + name);
    }
  }
  if (!read.ok()) return diagnostics.fail(read.error());
  const etdump::ETDumpGenStats stats = trace_stats(report->trace);
  if (report->traced) {
    for (const std::string& warning : session::trace_warnings(options.tracing, stats)) diagnostics.warning(warning);
  }
  print_report(options, outputs.values, report->latencies_ms, report->traced ? &stats : nullptr);
  return kExitOk;
}

// --save-intermediates needs what the trace logs, on the host.
Status check_save_intermediates(const RunOptions& options) {
  if (options.save_intermediates.empty()) return Ok{};
  if (options.tracing.debug_level != "intermediates" || options.tracing.debug_buffer.empty()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--save-intermediates writes the values the trace logs: it needs --etdump, "
                       "--debug-level intermediates and --debug-buffer");
  }
  if (!options.device.on_host()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--save-intermediates is for host runs: with --device, run gap or table on "
                       "the trace and debug buffer the device brings back");
  }
  return Ok{};
}

// Writes the trace, warns what it lost, saves the first run's intermediate
// outputs when asked.
Status finish_trace(const RunOptions& options, session::Tracing& tracing, Diagnostics& diagnostics) {
  ETKIT_TRY(tracing.finish(options.tracing.etdump));
  for (const std::string& warning : session::trace_warnings(options.tracing, tracing.gen->stats())) {
    diagnostics.warning(warning);
  }
  if (options.save_intermediates.empty()) return Ok{};
  ETKIT_ASSIGN_OR_RETURN(const size_t saved, save_intermediates(options.tracing.etdump, options.tracing.debug_buffer,
                                                                options.save_intermediates));
  std::fprintf(stderr, "%s: %zu intermediate outputs of the first run\n", options.save_intermediates.c_str(), saved);
  return Ok{};
}

int run(const RunOptions& options) {
  Diagnostics diagnostics;
  Status usable = check_save_intermediates(options);
  if (!usable.ok()) return diagnostics.fail(usable.error());
  Status dir = make_output_dir(options.output_dir);
  if (!dir.ok()) return diagnostics.fail(dir.error());
  auto loaded = session::load_program(options.program, options.data);
  if (!loaded.ok()) return diagnostics.fail(loaded.error());
  const size_t runs = size_t(options.iterations + options.warmup);
  session::Tracing tracing;
  // Room for the load's events; the runs' are reserved once the method's
  // instructions are known.
  // Blocks: one per traced execute, one per untraced one (time_untraced).
  Status traced = session::setup_tracing(options.tracing, 1024, 2 * runs + 8, tracing);
  if (!traced.ok()) return diagnostics.fail(traced.error());
  MethodOptions method_opts = session::method_options_for(**loaded, options.threads);
  method_opts.tracer = tracing.gen.get();
  auto method = Method::load(*(*loaded)->program, options.method, method_opts);
  if (!method.ok()) return diagnostics.fail(method.error());
  if (tracing.gen) {
    const bool values = options.tracing.debug_level != "none";
    // The runs' events, and an untraced run's block and event (time_untraced).
    tracing.gen->reserve_events(64 + runs * ((*method)->trace_events_per_execute(values) + 2));
  }
  const auto set_inputs = [&](Method& target, InputBuffers& owned) {
    return !options.inputs.empty()     ? npy_inputs(target, options, owned)
           : options.bundled_input >= 0 ? bundled_inputs(target, **loaded, options)
                                        : fill_inputs(target, options, owned);
  };
  InputBuffers owned;
  Status inputs = set_inputs(**method, owned);
  if (!inputs.ok()) return diagnostics.fail(inputs.error());
  if (!options.device.on_host()) return run_on_device(options, **method, diagnostics);
  auto latencies = time_runs(**method, options, traced_marks(options, tracing));
  if (!latencies.ok()) return diagnostics.fail(latencies.error());
  std::vector<double> untraced;
  if (tracing.gen) {
    auto measured = time_untraced(*(*loaded)->program, options, method_opts, tracing, set_inputs);
    if (!measured.ok()) return diagnostics.fail(measured.error());
    untraced = std::move(*measured);
  }
  Status written = write_outputs(**method, options.output_dir);
  if (!written.ok()) return diagnostics.fail(written.error());
  if (tracing.gen) {
    Status finished = finish_trace(options, tracing, diagnostics);
    if (!finished.ok()) return diagnostics.fail(finished.error());
  }
  std::vector<Value> outputs;
  for (size_t i = 0; i < (*method)->output_count(); ++i) outputs.push_back((*method)->output(i));
  const etdump::ETDumpGenStats stats = tracing.gen ? tracing.gen->stats() : etdump::ETDumpGenStats{};
  print_report(options, outputs, *latencies, tracing.gen ? &stats : nullptr, untraced);
  return kExitOk;
}

}  // namespace

void register_run(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand("run", "Run a method of a program (or bundled program)");
  command->add_option("program", options->program, ".pte or .bpte file")->required();
  command->add_option("--method", options->method, "Method to run (default forward)");
  auto* input = command->add_option("--input", options->inputs, "Input .npy files, one per method input, in order");
  command->add_option("--data", options->data, "External constant files (.ptd), searched in order");
  add_threads_option(*command, options->threads);
  auto* bundled = command->add_option("--bundled-input", options->bundled_input,
                                      "Use the inputs of test case N of a bundled program")
                      ->check(whole_number(0));
  auto* fill = command->add_option("--fill", options->fill, "Generated inputs when none are given (default ones)")
                   ->check(CLI::IsMember({"ones", "zeros", "random"}));
  command->add_option("--seed", options->seed, "Seed for --fill random")
      ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
  command->add_option("--iterations", options->iterations, "Timed executions (default 1)")
      ->check(whole_number(1, kMaxRuns));
  command->add_option("--warmup", options->warmup, "Untimed executions first (default 0)")
      ->check(whole_number(0, kMaxRuns));
  command->add_option("--output-dir", options->output_dir, "Write each output as output_<i>.npy");
  command->add_option("--save-intermediates", options->save_intermediates,
                      "Write the first run's intermediate outputs as <instruction>.npy into DIR (a gap --reference)");
  command->add_flag("--print-outputs", options->print_outputs, "Show the first values of each output");
  command->add_flag("--reset-state", options->reset_state,
                    "Before each run, put planned memory back as loaded (mutable buffers such as a KV cache "
                    "to their initial state); by default state carries from run to run");
  command->add_flag("--json", options->json, "Machine-readable report on stdout");
  // Inputs come from exactly one place.
  input->excludes(bundled)->excludes(fill);
  bundled->excludes(fill);
  add_tracing_options(*command, options->tracing);
  add_device_options(*command, options->device);
  command->callback([options, &context] { context.exit_code = run(*options); });
}

}  // namespace etkit::cli
