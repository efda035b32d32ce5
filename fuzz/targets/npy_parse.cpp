// The .npy reader (reference outputs for `gap`, inputs for `run`).

#include <cstddef>
#include <cstdint>

#include "etkit/inspector/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto array = etkit::inspector::parse_npy(data, size, "fuzz.npy");
  if (array.ok()) {
    auto tensor = array->view();
    (void)tensor;
  }
  return 0;
}
