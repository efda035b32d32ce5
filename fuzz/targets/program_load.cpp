// Program load, summary (what `etinspect info` prints), and every method's
// load with memory planning, kernel resolution and argument checks; nothing
// executes.

#include <cstddef>
#include <cstdint>

#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.pte");
  auto program = etkit::Program::load(file, file->bytes(), "fuzz.pte");
  if (!program.ok()) {
    return 0;
  }
  const etkit::ProgramSummary summary = etkit::summarize(*program);
  const etkit::MethodOptions options = etkit::fuzz::method_options();
  for (const etkit::MethodSummary& method : summary.methods) {
    auto loaded = etkit::Method::load(*program, method.name, options);
    if (loaded.ok()) {
      (*loaded)->trace_events_per_execute(true);
    }
  }
  return 0;
}
