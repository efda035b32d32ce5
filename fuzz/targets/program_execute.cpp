// Runs whole programs the way `etinspect run` and `verify` do, in the
// fuzzers' optimized (-O2) build with AddressSanitizer and UBSan: every op
// set and the XNNPACK backend, a trace with intermediate outputs. A .pte
// runs each method twice on its planned inputs (zeros; a second execute
// keeps what the first left, as mutable buffers do); a .bpte verifies every
// case. Besides fuzzing (mutated programs), `scripts/fuzz --replay
// program_execute` runs every shipped sample and corpus program once
// through it, so an overflow that only optimized code paths show (or that
// the Debug test build does not reach) is caught in the test command.

#include <cstddef>
#include <cstdint>
#include <cstring>
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

void run_program(const std::shared_ptr<const etkit::FileData>& file) {
  auto program = etkit::Program::load(file, file->bytes(), "fuzz.pte");
  if (!program.ok()) return;
  alignas(64) static uint8_t debug[1u << 20];
  for (const etkit::MethodSummary& summary : etkit::summarize(*program).methods) {
    etkit::etdump::ETDumpGenOptions trace_options;
    trace_options.debug_level = etkit::etdump::DebugLevel::kIntermediateOutputs;
    trace_options.debug_buffer = etkit::Span<uint8_t>(debug, sizeof debug);
    etkit::etdump::ETDumpGen trace(trace_options);
    auto method = etkit::Method::load(*program, summary.name, options_with(&trace));
    if (!method.ok()) continue;
    for (int run = 0; run < 2; ++run) {
      trace.create_event_block("Execute");
      (void)(*method)->execute();
    }
    (void)trace.serialize();
  }
}

void run_bundle(const std::shared_ptr<const etkit::FileData>& file) {
  auto bundle = etkit::bundled::BundledProgram::load(file, "fuzz.bpte");
  if (!bundle.ok()) return;
  auto program = bundle->load_program();
  if (!program.ok()) return;
  (void)etkit::bundled::verify(*bundle, *program, options_with(nullptr), {});
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
