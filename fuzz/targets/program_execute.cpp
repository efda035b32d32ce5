// Runs whole programs the way `etinspect run` and `verify` do, in the
// fuzzers' optimized (-O2) build with AddressSanitizer and UBSan: every op
// set and the XNNPACK backend, a trace with intermediate outputs. A .pte
// runs each method twice on zero inputs (a second execute keeps what the
// first left in mutable buffers); a .bpte verifies every case. Besides
// fuzzing (mutated programs), `scripts/fuzz --replay-samples` runs every
// shipped sample and corpus program once through it, so an overflow that
// only optimized code paths show (or that the Debug test build does not
// reach) is caught in the test command.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/bundled/bundled_program.h"
#include "etkit/bundled/verify.h"
#include "etkit/core/backend.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_gen.h"
#include "fuzz_input.h"
#ifdef ETKIT_HAS_XNNPACK
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#endif

namespace {

// With ETKIT_FUZZ_REPORT set (the replay of samples), one line per method
// on stderr: "executed", or the error that stopped it, so that a sample
// that no longer loads shows instead of passing silently.
void report(const std::string& what, const etkit::Status& status) {
  static const bool enabled = std::getenv("ETKIT_FUZZ_REPORT") != nullptr;
  if (!enabled) return;
  std::fprintf(stderr, "program_execute: %s: %s\n", what.c_str(), status.ok() ? "executed" : status.error().message());
}

etkit::BackendRegistry& backends() {
  static auto* registry = [] {
    auto* r = new etkit::BackendRegistry();
#ifdef ETKIT_HAS_XNNPACK
    static auto* xnnpack = new etkit::xnnpack::XnnpackBackend();  // never destroyed
    r->add("XnnpackBackend", xnnpack);
#endif
    return r;
  }();
  return *registry;
}

etkit::MethodOptions options_with(etkit::EventTracer* tracer) {
  etkit::MethodOptions options = etkit::fuzz::method_options();
  options.backends = &backends();
  options.tracer = tracer;
  return options;
}

// Every tensor input set to zeros (token ids 0, images black), as a caller
// would set them; planned memory is not assumed to hold anything.
etkit::Status zero_inputs(etkit::Method& method) {
  alignas(64) static uint8_t zeros[16u << 20];
  for (size_t i = 0; i < method.input_count(); ++i) {
    const etkit::Value& input = method.input(i);
    if (!input.is_tensor()) continue;
    const etkit::Tensor& planned = input.unchecked_tensor();
    if (planned.nbytes() > sizeof zeros) continue;  // larger inputs keep what the plan holds
    auto tensor = etkit::Tensor::make(planned.scalar_type(), planned.sizes(), {}, zeros, sizeof zeros);
    if (!tensor.ok()) return etkit::Status(tensor.error());
    ETKIT_TRY(method.set_input(i, *tensor));
  }
  return etkit::Ok{};
}

void run_program(const std::shared_ptr<const etkit::FileData>& file) {
  auto program = etkit::Program::load(file, file->bytes(), "fuzz.pte");
  if (!program.ok()) return report("program", etkit::Status(program.error()));
  alignas(64) static uint8_t debug[1u << 20];
  for (const etkit::MethodSummary& summary : etkit::summarize(*program).methods) {
    etkit::etdump::ETDumpGenOptions trace_options;
    trace_options.debug_level = etkit::etdump::DebugLevel::kIntermediateOutputs;
    trace_options.debug_buffer = etkit::Span<uint8_t>(debug, sizeof debug);
    etkit::etdump::ETDumpGen trace(trace_options);
    auto method = etkit::Method::load(*program, summary.name, options_with(&trace));
    if (!method.ok()) {
      report(summary.name, etkit::Status(method.error()));
      continue;
    }
    // Inputs are set before each execute: the plan may reuse their bytes
    // once they are read; state (a KV cache) carries from the first run.
    etkit::Status status = etkit::Ok{};
    for (int run = 0; run < 2 && status.ok(); ++run) {
      status = zero_inputs(**method);
      if (!status.ok()) break;
      trace.create_event_block("Execute");
      status = (*method)->execute();
    }
    report(summary.name, status);
    (void)trace.serialize();
  }
}

void run_bundle(const std::shared_ptr<const etkit::FileData>& file) {
  auto bundle = etkit::bundled::BundledProgram::load(file, "fuzz.bpte");
  if (!bundle.ok()) return report("bundle", etkit::Status(bundle.error()));
  auto program = bundle->load_program();
  if (!program.ok()) return report("bundle program", etkit::Status(program.error()));
  auto verified = etkit::bundled::verify(*bundle, *program, options_with(nullptr), {});
  report("bundle cases", verified.ok() ? etkit::Status(etkit::Ok{}) : etkit::Status(verified.error()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz");
  if (size >= 8 && std::memcmp(data + 4, "BP", 2) == 0) {
    run_bundle(file);
  } else {
    run_program(file);
  }
  return 0;
}
