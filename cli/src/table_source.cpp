#include "table_source.h"

#include <algorithm>
#include <thread>

#include "etkit/inspector/source_links.h"

namespace etkit::cli {

TableSource::TableSource(const inspector::GroupedEvents& grouped, const MethodSummary* method,
                         const etrecord::Etrecord* record, std::string record_method, inspector::EventFilter filter,
                         size_t top)
    : grouped_(grouped),
      method_(method),
      record_(record),
      record_method_(std::move(record_method)),
      filter_(std::move(filter)),
      top_(top),
      unmatched_(grouped.block_count(), 0),
      workers_(std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 2)) {}

void TableSource::block_rows(Worker& worker, size_t index, const std::function<void(const Row&)>& visit) {
  inspector::EventBlock& block = worker.block;
  grouped_.block_into(index, block);
  // Assigned, not added: a block is materialized once per pass.
  unmatched_[index] = inspector::annotate_block(block, {method_, record_, record_method_}).unmatched;
  for (const inspector::Event& event : block.events) {
    if (inspector::keeps(filter_, block, event)) visit(Row{&block, &event});
  }
}

// Blocks [begin, end) in contiguous ranges over the workers: the caller
// keeps output order by taking the workers' results in order.
void TableSource::in_parallel(size_t begin, size_t end, const std::function<void(Worker&, size_t, size_t)>& work) {
  const size_t per = (end - begin + workers_.size() - 1) / workers_.size();
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers_.size(); ++w) {
    const size_t b0 = std::min(end, begin + w * per), b1 = std::min(end, b0 + per);
    if (b0 < b1) threads.emplace_back([&, w, b0, b1] { work(workers_[w], b0, b1); });
  }
  work(workers_[0], begin, std::min(end, begin + per));
  for (std::thread& thread : threads) thread.join();
}

void TableSource::for_each_row(const std::function<void(const Row&)>& visit) {
  size_t count = 0;
  for (size_t b = 0; b < grouped_.block_count() && (top_ == 0 || count < top_); ++b) {
    block_rows(workers_[0], b, [&](const Row& row) {
      if (top_ > 0 && count == top_) return;
      visit(row);
      ++count;
    });
  }
}

void TableSource::write_rows(Output& out, const std::function<void(std::string&, const Row&)>& format) {
  if (top_ > 0) {
    std::string line;
    for_each_row([&](const Row& row) {
      line.clear();
      format(line, row);
      out.add(line);
    });
    return;
  }
  // Chunks of blocks keep each worker's text small.
  constexpr size_t kChunkBlocks = 256;
  for (size_t chunk = 0; chunk < grouped_.block_count(); chunk += kChunkBlocks) {
    in_parallel(chunk, std::min(grouped_.block_count(), chunk + kChunkBlocks), [&](Worker& worker, size_t b0, size_t b1) {
      worker.text.clear();
      for (size_t b = b0; b < b1; ++b) block_rows(worker, b, [&](const Row& row) { format(worker.text, row); });
    });
    for (Worker& worker : workers_) out.add(worker.text);
  }
}

void TableSource::widen(std::vector<size_t>& width, const CellFormat& format) {
  auto widen_row = [&format](std::vector<size_t>& w, const Row& row) {
    for_each_cell(row, format, [&](size_t i, std::string_view text) { w[i] = std::max(w[i], text.size()); });
  };
  if (top_ > 0) {
    for_each_row([&](const Row& row) { widen_row(width, row); });
    return;
  }
  in_parallel(0, grouped_.block_count(), [&](Worker& worker, size_t b0, size_t b1) {
    worker.width.assign(width.size(), 0);
    for (size_t b = b0; b < b1; ++b) block_rows(worker, b, [&](const Row& row) { widen_row(worker.width, row); });
  });
  for (const Worker& worker : workers_) {
    for (size_t i = 0; i < worker.width.size(); ++i) width[i] = std::max(width[i], worker.width[i]);
  }
}

std::vector<Row> TableSource::all_rows(std::vector<inspector::EventBlock>& blocks) {
  blocks.clear();
  blocks.reserve(grouped_.block_count());  // rows point into it: no reallocation
  for (size_t b = 0; b < grouped_.block_count(); ++b) {
    block_rows(workers_[0], b, [](const Row&) {});
    blocks.push_back(workers_[0].block);
  }
  std::vector<Row> rows;
  for (const inspector::EventBlock& block : blocks) {
    for (const inspector::Event& event : block.events) {
      if (inspector::keeps(filter_, block, event)) rows.push_back({&block, &event});
    }
  }
  return rows;
}

size_t TableSource::unmatched() const {
  size_t total = 0;
  for (size_t count : unmatched_) total += count;
  return total;
}

}  // namespace etkit::cli
