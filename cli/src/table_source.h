#pragma once
// The rows of `etinspect table`, block by block: each grouped block is
// materialized, named with its backends, linked to the ETRecord and
// filtered, on this thread and (on a multi-core machine) one more, with the
// output order kept. Memory stays that of one block per worker, so traces
// of millions of events print in about the memory of the trace itself.

#include <functional>
#include <string>
#include <vector>

#include "etkit/core/program_summary.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/event_table.h"
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
  /// on the workers when every row is wanted, else on this thread.
  void write_rows(Output& out, const std::function<void(std::string&, const Row&)>& format);
  /// Widens `width` to every kept row's cells.
  void widen(std::vector<size_t>& width, const CellFormat& format);
  /// Every kept row at once, for sorting; `blocks` holds what they point to.
  std::vector<Row> all_rows(std::vector<inspector::EventBlock>& blocks);
  /// Events with an instruction id that found no graph node, over the
  /// blocks materialized so far.
  size_t unmatched() const;

 private:
  struct Worker {
    inspector::EventBlock block;  // materialized into, one block at a time
    std::vector<size_t> width;
    std::string text;
  };
  void block_rows(Worker& worker, size_t index, const std::function<void(const Row&)>& visit);
  void in_parallel(size_t begin, size_t end, const std::function<void(Worker&, size_t, size_t)>& work);

  const inspector::GroupedEvents& grouped_;
  const MethodSummary* method_;
  const etrecord::Etrecord* record_;
  std::string record_method_;
  inspector::EventFilter filter_;
  size_t top_;
  std::vector<size_t> unmatched_;  // per block
  std::vector<Worker> workers_;
};

}  // namespace etkit::cli
