#include "etkit/inspector/block_workers.h"

#include <algorithm>
#include <atomic>
#include <cassert>

namespace etkit::inspector {

unsigned default_block_workers() { return std::clamp(std::thread::hardware_concurrency(), 1u, 8u); }

size_t for_each_block(const GroupedEvents& grouped, const BlockContext& context, const BlockWorkOptions& options,
                      const std::function<bool(const BlockJob&)>& work) {
  const size_t end = std::min(options.end, grouped.block_count());
  const size_t begin = std::min(options.begin, end);
  const size_t wanted = options.workers == 0 ? default_block_workers() : options.workers;
  const size_t workers = std::max<size_t>(1, std::min(wanted, end - begin));
  const size_t batch = options.batch > 0 ? options.batch : std::max<size_t>(1, (end - begin) / (workers * 8));
  std::atomic<size_t> next{begin};
  std::atomic<bool> stopped{false};
  std::vector<EventBlock> own;
  std::vector<EventBlock>& blocks = options.storage != nullptr ? *options.storage : own;
  if (blocks.size() < workers) blocks.resize(workers);
  auto run = [&](size_t worker) {
    EventBlock& block = blocks[worker];  // reused: block_into writes over its storage
    while (!stopped.load(std::memory_order_relaxed)) {
      const size_t first = next.fetch_add(batch);
      if (first >= end) return;
      for (size_t index = first; index < std::min(end, first + batch); ++index) {
        if (stopped.load(std::memory_order_relaxed)) return;
        grouped.block_into(index, block);
        const LinkReport links = annotate_block(block, context);
        if (!work(BlockJob{worker, index, block, links})) {
          stopped = true;
          return;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(run, w);
  run(0);
  for (std::thread& thread : threads) thread.join();
  return workers;
}

size_t stream_window(const GroupedEvents& grouped) {
  constexpr size_t kEventsAhead = size_t{1} << 16;
  const size_t blocks = grouped.block_count();
  size_t events = 0;
  for (size_t b = 0; b < blocks; ++b) events += grouped.event_count(b);
  const size_t average = blocks == 0 ? 0 : events / blocks;
  return std::clamp<size_t>(kEventsAhead / std::max<size_t>(average, 1), 8, 64);
}

BlockStream::BlockStream(const GroupedEvents& grouped, BlockContext context, unsigned workers, size_t window)
    : grouped_(grouped),
      context_(std::move(context)),
      slots_(std::max<size_t>(window != 0 ? window : stream_window(grouped), 2)),
      slot_block_(slots_.size(), size_t(-1)),
      slot_links_(slots_.size()),
      refill_(std::max<size_t>(1, slots_.size() / 2)) {
  // The caller's thread is busy with the blocks: one worker fewer by default.
  const unsigned materializing = workers != 0 ? workers : std::max(1u, default_block_workers() - 1);
  producer_ = std::thread([this, materializing] {
    for_each_block(grouped_, context_, {0, size_t(-1), materializing, 1},
                   [this](const BlockJob& job) { return produce(job); });
  });
}

BlockStream::~BlockStream() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  slot_freed_.notify_all();
  block_ready_.notify_all();
  producer_.join();
}

// Block b may overwrite its slot once the caller has moved past block
// b - window, the slot's last occupant: the block it took last stays valid
// until its next call. A worker wakes the caller only when it waits for
// this block.
bool BlockStream::produce(const BlockJob& job) {
  const size_t slot = job.index % slots_.size();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto slot_free = [&] { return stop_ || job.index + 2 <= consumed_ + slots_.size(); };
    if (!slot_free()) {
      ++producers_waiting_;
      slot_freed_.wait(lock, slot_free);
      --producers_waiting_;
    }
    if (stop_) return false;
  }
  std::swap(slots_[slot], job.block);  // the worker gets the old slot's storage to reuse
  slot_links_[slot] = job.links;
  bool awaited;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot_block_[slot] = job.index;
    awaited = awaited_ == job.index;
  }
  if (awaited) block_ready_.notify_one();
  return true;
}

// Waiting workers are woken once per `refill_` blocks taken (half the
// window), not per block: on small blocks a wake-up per block cost more
// than the blocks (futex wake-ups were a fifth of the dataframe's time on a
// 5,000-block trace). Before the caller waits itself it wakes them
// whatever the count, so no wait can outlast the other's.
StreamedBlock BlockStream::next() {
  assert(consumed_ < grouped_.block_count());
  std::unique_lock<std::mutex> lock(mutex_);
  const size_t index = consumed_;
  const size_t slot = index % slots_.size();
  if (slot_block_[slot] != index) {
    awaited_ = index;
    if (producers_waiting_ > 0) slot_freed_.notify_all();
    block_ready_.wait(lock, [&] { return slot_block_[slot] == index; });
    awaited_ = size_t(-1);
  }
  ++consumed_;  // frees the slot of the block taken before this one
  const bool wake = producers_waiting_ > 0 && consumed_ % refill_ == 0;
  lock.unlock();
  if (wake) slot_freed_.notify_all();
  return {index, slots_[slot], slot_links_[slot]};
}

}  // namespace etkit::inspector
