#pragma once
// The rows of `etinspect table`, block by block: each grouped block is
// materialized, named with its backends, linked to the ETRecord and
// filtered on the inspector's block workers (inspector/block_workers.h),
// with the output order kept. Memory stays that of a few blocks per worker,
// so traces of millions of events print in about the memory of the trace
// itself.

#include <functional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_table.h"
#include "etkit/inspector/source_links.h"
#include "column_widths.h"
#include "table_rows.h"

namespace etkit::cli {

class TableSource {
 public:
  /// Borrows everything; `method` and `record` may be null.
  TableSource(const inspector::GroupedEvents& grouped, const MethodSummary* method, const etrecord::Etrecord* record,
              std::string record_method, inspector::EventFilter filter, size_t top);

  /// Every kept row in trace order, at most `top` (0: all), on this thread.
  void for_each_row(const std::function<void(const Row&)>& visit);
  /// Every kept row through `format`, its text appended to `out` in order:
  /// formatted on the workers when every row is wanted, else on this thread.
  void write_rows(Output& out, const std::function<void(std::string&, const Row&)>& format);
  /// Widens `widths` to every kept row's cells. A trace of few rows (most
  /// often one block of many runs) keeps its blocks for write_rows, which
  /// then formats them without materializing them again.
  void widen(ColumnWidths& widths);
  /// Every kept row at once, for sorting; `blocks` holds what they point to.
  std::vector<Row> all_rows(std::vector<inspector::EventBlock>& blocks);
  /// Events with an instruction id that found no graph node, over the
  /// blocks materialized so far.
  size_t unmatched() const;

 private:
  void kept_rows(const inspector::EventBlock& block, const std::function<void(const Row&)>& visit) const;

  const inspector::GroupedEvents& grouped_;
  inspector::BlockContext context_;
  inspector::EventFilter filter_;
  size_t top_;
  std::vector<size_t> unmatched_;  // per block
  std::vector<inspector::EventBlock> storage_;  // the workers' blocks, reused from pass to pass
  std::vector<inspector::EventBlock> widened_;  // every block, when widen kept them
};

}  // namespace etkit::cli
