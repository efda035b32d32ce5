#pragma once
// How the reader spreads work over a trace's run_data blocks. The host
// build runs ranges of blocks on threads (block_ranges_threaded.cpp): a
// trace of thousands of bundled cases is verified on every core. The
// device build, which has no threads, runs them in order on the caller
// (block_ranges_serial.cpp). Either way every range is seen exactly once
// unless `work` asks to stop.

#include <cstddef>
#include <functional>

namespace etkit::etdump::internal {

/// Calls work(begin, end) over [0, count) in ranges of at most `range`
/// blocks, handed out in increasing order. Once a call returns false no
/// range starts after it (ranges already started finish). Returns when
/// every call has returned.
void for_each_block_range(size_t count, size_t range, const std::function<bool(size_t begin, size_t end)>& work);

}  // namespace etkit::etdump::internal
