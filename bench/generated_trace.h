#pragma once
// Large traces for the benchmarks, as the runtime records them: `runs`
// runs of `ops` operators, each an OPERATOR_CALL with its kernel event
// nested inside, under one Method::execute per run; a deterministic clock
// advances 250 ns per reading.

#include <optional>
#include <string>

#include "etkit/etdump/etdump_gen.h"

namespace etkit::bench {

inline uint64_t fake_now(void* context) {
  auto* ticks = static_cast<uint64_t*>(context);
  return *ticks += 250;
}

/// Writes the trace to `path`; with `per_run_blocks` every run has its own
/// bundled input index (one event block per run). Nullopt when it cannot
/// be written.
inline std::optional<etdump::ETDumpGenStats> generate_trace(const std::string& path, int runs, int ops,
                                                            bool per_run_blocks) {
  static const char* const kKernelNames[] = {"native_call_convolution.out", "native_call_relu.out",
                                             "native_call_add.out", "native_call_addmm.out"};
  uint64_t ticks = 0;
  etdump::ETDumpGenOptions options;
  options.event_capacity = size_t(runs) * size_t(2 * ops + 1) + 16;
  options.block_capacity = size_t(runs) + 16;
  options.clock = {fake_now, &ticks, 1.0};
  etdump::ETDumpGen gen(options);
  for (int run = 0; run < runs; ++run) {
    gen.create_event_block("Execute");
    if (per_run_blocks) gen.set_bundled_input_index(run);
    auto execute = gen.start_profiling("Method::execute", -1, -1);
    for (int op = 0; op < ops; ++op) {
      auto call = gen.start_profiling("OPERATOR_CALL", 0, op);
      auto kernel = gen.start_profiling(kKernelNames[op % 4], 0, op);
      gen.end_profiling(kernel);
      gen.end_profiling(call);
    }
    gen.end_profiling(execute);
  }
  if (!gen.write(path).ok()) return std::nullopt;
  return gen.stats();
}

}  // namespace etkit::bench
