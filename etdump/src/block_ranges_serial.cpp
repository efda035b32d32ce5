// The device build's block ranges: in order, on the calling thread.

#include <algorithm>

#include "block_ranges.h"

namespace etkit::etdump::internal {

void for_each_block_range(size_t count, size_t range, const std::function<bool(size_t, size_t)>& work) {
  for (size_t begin = 0; begin < count; begin += range) {
    if (!work(begin, std::min(count, begin + range))) return;
  }
}

}  // namespace etkit::etdump::internal
