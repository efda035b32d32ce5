// What `etinspect gap` prints: the rows, the counts, the first divergence
// and the largest error growth, as text or JSON (gap_report.h).

#include <cmath>

#include "etkit/inspector/gap_report.h"

namespace etkit::inspector {
namespace {

using report::Cell;

std::vector<std::vector<Cell>> gap_rows(const GapReport& gap) {
  std::vector<std::vector<Cell>> rows;
  for (const GapRow& row : gap.rows) {
    const bool compared = row.status == GapStatus::kOk || row.status == GapStatus::kDiverged;
    auto metric = [&](double value) { return compared ? Cell::of(value) : Cell::empty(); };
    auto finite = [&](double value) { return std::isfinite(value) ? Cell::of(value) : Cell::empty(); };
    rows.push_back({Cell::of(int64_t(row.instruction_id)),
                    row.delegate_debug_id >= 0 ? Cell::of(row.delegate_debug_id) : Cell::empty(), Cell::of(row.op),
                    Cell::of(row.node), Cell::of(row.sizes), metric(row.metrics.mse), metric(row.metrics.l1),
                    metric(row.metrics.snr_db), metric(row.metrics.cosine), metric(row.metrics.max_abs),
                    finite(row.relative_error), finite(row.error_growth),
                    row.quantum > 0 ? Cell::of(row.quantum) : Cell::empty(), finite(row.error_quanta),
                    Cell::of(to_string(row.status)), Cell::of(row.detail), Cell::of(row.source)});
  }
  return rows;
}

void print_first_divergence(report::Printer& out, const GapReport& gap) {
  if (!gap.first_divergence) {
    out.null_field("first_divergence", "none: every compared output is within atol + rtol * max |reference|");
    return;
  }
  const GapRow& row = gap.rows[*gap.first_divergence];
  out.begin_object("first_divergence");
  out.field("instruction_id", int64_t(row.instruction_id));
  out.field("op", row.op);
  out.field("source", row.source);
  out.end_object();
}

void print_largest_growth(report::Printer& out, const GapReport& gap) {
  if (!gap.largest_growth) {
    out.null_field("largest_error_growth", "none: needs an ETRecord and an op whose error exceeds its inputs'");
    return;
  }
  const GapRow& row = gap.rows[*gap.largest_growth];
  out.begin_object("largest_error_growth");
  out.field("instruction_id", int64_t(row.instruction_id));
  if (row.delegate_debug_id >= 0) out.field("delegate_debug_id", row.delegate_debug_id);
  out.field("op", row.op);
  out.field("node", row.node);
  out.field("relative_error", row.relative_error);
  out.field("growth", row.error_growth);
  out.field("source", row.source);
  out.end_object();
}

}  // namespace

void print(report::Printer& out, const GapReport& gap, const GapOptions& options) {
  out.begin_object("");
  out.field("atol", options.atol);
  out.field("rtol", options.rtol);
  if (options.quanta > 0) out.field("quanta", options.quanta);
  else out.null_field("quanta", "none: every value is judged by atol and rtol");
  out.table("rows",
            {{"instruction_id", 0}, {"delegate_debug_id", 0}, {"op"}, {"node"}, {"sizes"}, {"mse", -1}, {"l1", -1},
             {"snr_db", 2}, {"cosine", 6}, {"max_abs", -1}, {"rel_error", -1}, {"growth", -1}, {"quantum", -1},
             {"error_quanta", 2}, {"status"}, {"detail"}, {"source"}},
            gap_rows(gap));
  out.field("compared", uint64_t(gap.compared));
  out.field("missing_references", uint64_t(gap.missing));
  out.field("shape_mismatches", uint64_t(gap.shape_mismatches));
  print_first_divergence(out, gap);
  print_largest_growth(out, gap);
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
