#include "table_source.h"

#include <algorithm>

#include "etkit/inspector/block_workers.h"

namespace etkit::cli {

TableSource::TableSource(const inspector::GroupedEvents& grouped, const MethodSummary* method,
                         const etrecord::Etrecord* record, std::string record_method, inspector::EventFilter filter,
                         size_t top)
    : grouped_(grouped),
      context_{method, record, std::move(record_method)},
      filter_(std::move(filter)),
      top_(top),
      unmatched_(grouped.block_count(), 0) {}

void TableSource::kept_rows(const inspector::EventBlock& block, const std::function<void(const Row&)>& visit) const {
  for (const inspector::Event& event : block.events) {
    if (inspector::keeps(filter_, block, event)) visit(Row{&block, &event});
  }
}

void TableSource::for_each_row(const std::function<void(const Row&)>& visit) {
  size_t count = 0;
  inspector::BlockStream blocks(grouped_, context_);
  for (size_t b = 0; b < grouped_.block_count() && (top_ == 0 || count < top_); ++b) {
    const inspector::StreamedBlock next = blocks.next();
    // Assigned, not added: a block is materialized once per pass.
    unmatched_[b] = next.links.unmatched;
    kept_rows(next.block, [&](const Row& row) {
      if (top_ > 0 && count == top_) return;
      visit(row);
      ++count;
    });
  }
}

void TableSource::write_rows(Output& out, const std::function<void(std::string&, const Row&)>& format) {
  if (!widened_.empty()) {
    std::string text;
    for (const inspector::EventBlock& block : widened_) {
      text.clear();
      kept_rows(block, [&](const Row& row) { format(text, row); });
      out.add(text);
    }
    return;
  }
  if (top_ > 0) {
    std::string line;
    for_each_row([&](const Row& row) {
      line.clear();
      format(line, row);
      out.add(line);
    });
    return;
  }
  // Chunks of blocks keep the text held at once small; each block's text
  // has a place of its own, so the workers keep no order among themselves.
  // (Writing a chunk out on a thread of its own while the next is formatted
  // was tried: on two cores it took the workers' time, a quarter slower.)
  constexpr size_t kChunkBlocks = 256;
  std::vector<std::string> texts(kChunkBlocks);
  for (size_t chunk = 0; chunk < grouped_.block_count(); chunk += kChunkBlocks) {
    const size_t end = std::min(grouped_.block_count(), chunk + kChunkBlocks);
    inspector::for_each_block(grouped_, context_, {chunk, end, 0, 0, &storage_}, [&](const inspector::BlockJob& job) {
      unmatched_[job.index] = job.links.unmatched;
      std::string& text = texts[job.index - chunk];
      text.clear();
      kept_rows(job.block, [&](const Row& row) { format(text, row); });
      return true;
    });
    for (size_t b = chunk; b < end; ++b) out.add(texts[b - chunk]);
  }
}

void TableSource::widen(ColumnWidths& widths) {
  if (top_ > 0) {
    for_each_row([&](const Row& row) { widths.add(row); });
    return;
  }
  // A trace of few blocks and rows keeps its blocks: their statistics cost
  // the table's time when a block has thousands of runs (a profiling run's
  // one block materialized twice was a fifth of it), and kept they are
  // little memory. Many blocks stream in both passes, on the workers.
  constexpr size_t kKeptBlocks = 64;
  constexpr size_t kKeptRows = size_t{1} << 16;
  size_t rows = 0;
  for (size_t b = 0; b < grouped_.block_count(); ++b) rows += grouped_.event_count(b);
  if (grouped_.block_count() <= kKeptBlocks && rows <= kKeptRows && rows > 0) {
    std::vector<Row> kept = all_rows(widened_);
    for (const Row& row : kept) widths.add(row);
    return;
  }
  std::vector<ColumnWidths> workers(inspector::default_block_workers(), widths);
  inspector::for_each_block(grouped_, context_, {0, size_t(-1), unsigned(workers.size()), 0, &storage_},
                            [&](const inspector::BlockJob& job) {
                              unmatched_[job.index] = job.links.unmatched;
                              kept_rows(job.block, [&](const Row& row) { workers[job.worker].add(row); });
                              return true;
                            });
  for (const ColumnWidths& worker : workers) widths.merge(worker);
}

std::vector<Row> TableSource::all_rows(std::vector<inspector::EventBlock>& blocks) {
  blocks.assign(grouped_.block_count(), {});  // rows point into it: no reallocation
  inspector::for_each_block(grouped_, context_, {}, [&](const inspector::BlockJob& job) {
    unmatched_[job.index] = job.links.unmatched;
    std::swap(blocks[job.index], job.block);
    return true;
  });
  std::vector<Row> rows;
  for (const inspector::EventBlock& block : blocks) kept_rows(block, [&](const Row& row) { rows.push_back(row); });
  return rows;
}

size_t TableSource::unmatched() const {
  size_t total = 0;
  for (size_t count : unmatched_) total += count;
  return total;
}

}  // namespace etkit::cli
