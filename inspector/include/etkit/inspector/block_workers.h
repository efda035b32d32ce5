#pragma once
// The one way the front ends spread event blocks over cores. A block is
// materialized from the grouping and annotated (backends, ETRecord links)
// independently of every other block, which is most of the work of showing
// a trace of a million events; `etinspect table`, the GUI's workspace and
// Python's dataframe all go through here.
//
// Blocks are handed out in increasing index order, a few consecutive ones
// at a time (neighbours in the trace are neighbours in memory), to
// whichever worker is free (blocks differ in size by orders of magnitude),
// so a caller that needs trace order keeps results by block index.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/source_links.h"

namespace etkit::inspector {

/// Workers when a caller does not say: the machine's cores, at most 8
/// (past that the trace's memory bandwidth, not the cores, limits).
unsigned default_block_workers();

struct BlockWorkOptions {
  size_t begin = 0;
  size_t end = size_t(-1);  ///< clamped to the block count
  unsigned workers = 0;     ///< 0: default_block_workers()
  size_t batch = 0;         ///< consecutive blocks a worker takes at once; 0: about 1/8 of each worker's share
  /// Blocks to materialize into, one per worker, kept by the caller across
  /// calls so their storage is reused (a million-event block's is large);
  /// null: each call's own.
  std::vector<EventBlock>* storage = nullptr;
};

/// One materialized block, as a worker sees it.
struct BlockJob {
  size_t worker;      ///< 0 .. workers - 1; 0 is the calling thread
  size_t index;       ///< the block's index in the grouping
  EventBlock& block;  ///< the worker's block: valid until its next job
  const LinkReport& links;
};

/// Materializes and annotates blocks [begin, end) on the calling thread and
/// `workers - 1` more, calling `work` on the thread that materialized each.
/// `work` returns false to stop: no worker starts another block after that
/// (one already started still finishes). Returns the number of workers used.
size_t for_each_block(const GroupedEvents& grouped, const BlockContext& context, const BlockWorkOptions& options,
                      const std::function<bool(const BlockJob&)>& work);

/// BlockStream's default window: about 64K events materialized ahead, in 8
/// to 64 blocks. Many small blocks need a deep window (each wait and
/// wake-up costs more than a small block); large ones must not be held 64
/// at a time.
size_t stream_window(const GroupedEvents& grouped);

/// A block handed to BlockStream's caller.
struct StreamedBlock {
  size_t index;
  const EventBlock& block;
  const LinkReport& links;
};

/// Blocks in trace order on the calling thread, materialized ahead of it by
/// for_each_block on other threads (at most `window` blocks ahead): for a
/// caller whose own work on a block must stay on its thread (Python objects
/// need the interpreter) while the materializing happens meanwhile.
class BlockStream {
 public:
  /// `window` 0: stream_window(grouped).
  BlockStream(const GroupedEvents& grouped, BlockContext context, unsigned workers = 0, size_t window = 0);
  /// Stops the workers (blocks not taken are never materialized).
  ~BlockStream();
  BlockStream(const BlockStream&) = delete;
  BlockStream& operator=(const BlockStream&) = delete;

  /// The next block in order; valid until the following call. Must not be
  /// called more than block_count() times.
  StreamedBlock next();

 private:
  bool produce(const BlockJob& job);

  const GroupedEvents& grouped_;
  BlockContext context_;
  std::vector<EventBlock> slots_;  // block b lives in slots_[b % window]
  std::vector<size_t> slot_block_;  // which block each slot holds (guarded by mutex_)
  std::vector<LinkReport> slot_links_;
  const size_t refill_;  // blocks taken between wake-ups of waiting workers
  std::mutex mutex_;      // guards what follows
  std::condition_variable slot_freed_;   // workers wait for a slot
  std::condition_variable block_ready_;  // the caller waits for its block
  size_t producers_waiting_ = 0;
  size_t awaited_ = size_t(-1);  // the block the caller waits for
  size_t consumed_ = 0;          // blocks handed to the caller
  bool stop_ = false;
  std::thread producer_;
};

}  // namespace etkit::inspector
