// .ptd (FlatTensor) load and lookup of every named entry.

#include <cstddef>
#include <cstdint>

#include "etkit/core/flat_tensor.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.ptd");
  auto tensors = etkit::FlatTensor::load(file, "fuzz.ptd");
  if (!tensors.ok()) {
    return 0;
  }
  for (const etkit::NamedTensorData& entry : tensors->entries()) {
    const etkit::NamedTensorData* found = tensors->find(entry.key);
    if (found == nullptr) {
      __builtin_trap();  // an entry the reader listed must be found by its key
    }
    etkit::fuzz::touch(entry.data);
  }
  return 0;
}
