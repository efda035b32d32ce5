// `etinspect size` on any bytes: the breakdown of a .pte, .bpte or .ptd
// (headers, reflection walk over the verified flatbuffer, segments, delegate
// payloads) never crashes, and when it succeeds every node's parts add up
// to it and the root to the input's size.

#include <cstddef>
#include <cstdint>

#include "etkit/inspector/file_size.h"
#include "fuzz_input.h"

namespace {

uint64_t checked_total(const etkit::inspector::SizePart& part) {
  if (part.parts.empty()) return part.bytes;
  uint64_t sum = 0;
  for (const etkit::inspector::SizePart& sub : part.parts) sum += checked_total(sub);
  if (sum != part.bytes) __builtin_trap();  // the parts of a node must add up to it
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.pte");
  auto root = etkit::inspector::file_size_breakdown(file->bytes(), "fuzz.pte");
  if (!root.ok()) return 0;
  if (root->bytes != size || checked_total(*root) != size) __builtin_trap();  // every byte, once
  return 0;
}
