// The aligned table's column widths, measured without formatting every
// statistic, against the widest cell printf writes for the same values.

#include "column_widths.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace etkit::cli {
namespace {

// printf's text of a statistic: a second formatter, not the table's own.
size_t printf_width(double value, int decimals) {
  char text[512];
  return size_t(std::snprintf(text, sizeof(text), "%.*f", decimals, value));
}

inspector::Event timed_event(std::string name, double value) {
  inspector::Event event;
  event.name = std::move(name);
  event.perf_data.emplace();
  event.perf_data->p10 = event.perf_data->p50 = event.perf_data->p90 = value;
  event.perf_data->avg = event.perf_data->min = event.perf_data->max = value;
  return event;
}

// Columns without bundled cases: block, event, p10 .. max, op_types,
// is_delegated_op, delegate_backend_name.
constexpr size_t kFirstStat = 2;

TEST(ColumnWidths, WidestStatisticIsPrintfsWidestCell) {
  // Rounding across a power of ten, signs, negative zero, values that round
  // to zero with a sign, the largest doubles, and what is not finite.
  const std::vector<double> values = {0.0,        -0.0,        9.9999994,    9.9999996,  99999.9999996, -0.0000004,
                                      1e20,       -123.4567891, 5e-324,       -5e-324,    1e300,        -DBL_MAX,
                                      DBL_MAX,    0.25,         -9.9999996,   999.9999995, std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(), std::nan("")};
  for (int decimals : {0, 3, 6, 9}) {
    // Each value alone, then growing prefixes of the list: every subset a
    // column's maximum can come from.
    for (size_t count = 1; count <= values.size(); ++count) {
      for (size_t first : {size_t(0), count - 1}) {
        inspector::EventBlock block;
        block.name = "Execute";
        size_t expected = 0;
        for (size_t i = first; i < count; ++i) {
          block.events.push_back(timed_event("op", values[i]));
          expected = std::max(expected, printf_width(values[i], decimals));
        }
        CellFormat format;
        format.decimals = decimals;
        ColumnWidths widths(std::vector<size_t>(11, 0), format);
        for (const inspector::Event& event : block.events) widths.add(Row{&block, &event});
        const std::vector<size_t> measured = widths.widths();
        for (size_t stat = 0; stat < 6; ++stat) {
          EXPECT_EQ(measured[kFirstStat + stat], expected)
              << "decimals " << decimals << ", values " << first << ".." << count;
        }
      }
    }
  }
}

TEST(ColumnWidths, TextColumnsAndMergedWorkersAreTheWidestCell) {
  inspector::EventBlock block;
  block.name = "Method::execute";
  block.events.push_back(timed_event("native_call_convolution.out", 1.5));
  block.events.push_back(timed_event("x", 12345.678));
  block.events.back().op_types = {"aten.convolution.default", "aten.relu.default"};
  block.events.back().delegate_backend_name = "XnnpackBackend";
  block.events.push_back(inspector::Event{});  // no timings: empty statistics
  block.events.back().name = "untimed";
  CellFormat format;
  // Header widths already wider than some cells stay.
  const std::vector<size_t> header = {16, 10, 8, 8, 8, 8, 8, 8, 9, 15, 3};
  ColumnWidths first(header, format), second(header, format);
  first.add(Row{&block, &block.events[0]});
  second.add(Row{&block, &block.events[1]});
  second.add(Row{&block, &block.events[2]});
  first.merge(second);
  const std::vector<size_t> widths = first.widths();
  ASSERT_EQ(widths.size(), header.size());
  EXPECT_EQ(widths[0], 16u);  // the header's, wider than "Method::execute"
  EXPECT_EQ(widths[1], std::string("native_call_convolution.out").size());
  for (size_t stat = 2; stat < 8; ++stat) EXPECT_EQ(widths[stat], std::string("12345.678000").size());
  EXPECT_EQ(widths[8], std::string("[aten.convolution.default, aten.relu.default]").size());
  EXPECT_EQ(widths[9], 15u);  // the header's, wider than "False"
  EXPECT_EQ(widths[10], std::string("XnnpackBackend").size());
}

}  // namespace
}  // namespace etkit::cli
