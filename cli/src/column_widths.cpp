#include "column_widths.h"

#include <algorithm>
#include <cmath>

namespace etkit::cli {

ColumnWidths::ColumnWidths(std::vector<size_t> header_widths, const CellFormat& format)
    : format_(format), width_(std::move(header_widths)), extremes_(width_.size()) {}

void ColumnWidths::add_stat(size_t column, double value) {
  if (!std::isfinite(value)) {  // nan, inf: measured as written
    width_[column] = std::max(width_[column], StatText(format_.decimals)(value).size());
    return;
  }
  Extremes& extremes = extremes_[column];
  if (std::signbit(value)) extremes.negative = std::max(extremes.negative, -value);
  else extremes.largest = std::max(extremes.largest, value);
}

void ColumnWidths::add(const Row& row) {
  for_each_cell(
      row, format_, [this](size_t column, std::string_view text) { width_[column] = std::max(width_[column], text.size()); },
      [this](size_t column, double value) { add_stat(column, value); });
}

void ColumnWidths::merge(const ColumnWidths& other) {
  for (size_t i = 0; i < width_.size(); ++i) {
    width_[i] = std::max(width_[i], other.width_[i]);
    extremes_[i].largest = std::max(extremes_[i].largest, other.extremes_[i].largest);
    extremes_[i].negative = std::max(extremes_[i].negative, other.extremes_[i].negative);
  }
}

std::vector<size_t> ColumnWidths::widths() const {
  std::vector<size_t> width = width_;
  for (size_t i = 0; i < width.size(); ++i) {
    const Extremes& extremes = extremes_[i];
    if (extremes.largest >= 0) width[i] = std::max(width[i], StatText(format_.decimals)(extremes.largest).size());
    // The magnitude's text and its sign.
    if (extremes.negative >= 0) width[i] = std::max(width[i], 1 + StatText(format_.decimals)(extremes.negative).size());
  }
  return width;
}

}  // namespace etkit::cli
