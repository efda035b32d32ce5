#pragma once
// The widths of the aligned table's columns, measured over every row
// without formatting every statistic: a fixed-point number's text is at
// least as long as that of any number of smaller magnitude and the same
// sign, so a column's widest statistic is its largest one (or its most
// negative), formatted once at the end. A million rows of six numbers
// were the widths pass's main cost.

#include <cstddef>
#include <vector>

#include "table_rows.h"

namespace etkit::cli {

class ColumnWidths {
 public:
  /// Starts from the header's widths.
  ColumnWidths(std::vector<size_t> header_widths, const CellFormat& format);

  /// Widens the columns to a row's cells.
  void add(const Row& row);
  /// Widens the columns to what `other` measured.
  void merge(const ColumnWidths& other);
  /// Each column's width.
  std::vector<size_t> widths() const;

 private:
  // The statistics of a column seen so far, by sign.
  struct Extremes {
    double largest = -1;   ///< of the values without a sign bit; -1: none
    double negative = -1;  ///< the largest magnitude of those with one; -1: none
  };
  void add_stat(size_t column, double value);

  const CellFormat& format_;
  std::vector<size_t> width_;     ///< texts, and numbers that are not finite
  std::vector<Extremes> extremes_;  ///< by column (unused for text columns)
};

}  // namespace etkit::cli
