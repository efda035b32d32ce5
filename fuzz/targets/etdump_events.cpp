// ETDump reader and the Inspector's event blocks. The input is also used as
// the debug buffer, so logged tensors' offsets and shapes are checked
// against bytes they may not fit.

#include <cstddef>
#include <cstdint>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.etdp");
  auto trace = etkit::etdump::ETDump::load(file, "fuzz.etdp");
  if (!trace.ok()) {
    return 0;
  }
  trace->first_start();
  for (size_t b = 0; b < trace->block_count(); ++b) {
    const etkit::etdump::RunBlock block = trace->block(b);
    block.stats();
    for (size_t a = 0; a < block.allocator_count(); ++a) block.allocator_name(a);
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etkit::etdump::EventView event = block.event(e);
      etkit::fuzz::touch(event.profile.delegate_debug_metadata);
      for (const auto& tensor : event.debug.tensors) {
        auto view = etkit::etdump::debug_tensor(tensor, file->bytes());
        (void)view;
      }
    }
  }
  etkit::inspector::EventBlockOptions options;
  options.locate_events = true;
  auto blocks = etkit::inspector::event_blocks(*trace, options);
  (void)blocks;
  return 0;
}
