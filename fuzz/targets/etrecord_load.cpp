// ETRecord reader: the zip archive, every entry, the serialized graphs'
// JSON and the debug-handle and delegate maps.

#include <cstddef>
#include <cstdint>

#include "etkit/etrecord/etrecord.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.etrecord");
  auto record = etkit::etrecord::Etrecord::load(file, "fuzz.etrecord");
  if (!record.ok()) {
    return 0;
  }
  for (const auto& entry : record->archive().entries()) {
    auto bytes = record->archive().read(entry.name);
    (void)bytes;
  }
  for (const auto& [name, method] : record->methods()) {
    for (const auto& [instruction, handles] : method.handles_by_instruction) {
      record->instruction_handles(name, instruction);
      record->delegate_handles(name, instruction, "0");
    }
  }
  return 0;
}
