#include "table_writers.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "column_widths.h"
#include "etkit/report/json_text.h"

namespace etkit::cli {
namespace {

bool aligned(const TableLayout& layout) { return layout.format == "text" || layout.format == "markdown"; }
char separator(const TableLayout& layout) { return layout.format == "csv" ? ',' : '\t'; }

std::vector<size_t> header_widths(const TableLayout& layout) {
  std::vector<size_t> width(layout.header.size(), layout.format == "markdown" ? 3 : 0);
  for (size_t i = 0; i < layout.header.size(); ++i) width[i] = std::max(width[i], layout.header[i].size());
  return width;
}

// The aligned formats' one rule: cells padded to their column's width,
// numbers right-aligned, text left-aligned with the last column unpadded
// (but in markdown), between cells two spaces or markdown's " | ". A row is
// built in its thread's scratch buffer, checked for room once per cell,
// padded and separated by fixed-size stores into slack kept at its end,
// then appended to the block's text in one piece: growing the text for
// every piece of a cell cost about 700 instructions a row (callgrind),
// most of `table`'s time on a trace of a million one-run blocks.
class AlignedRowWriter {
 public:
  AlignedRowWriter(const TableLayout& layout, std::vector<size_t> width)
      : markdown_(layout.format == "markdown"),
        separator_length_(markdown_ ? 3 : 2),
        cells_(layout.cells),
        width_(std::move(width)) {
    for (size_t i = 0; i < width_.size(); ++i) numeric_.push_back(numeric_column(i, cells_) ? 1 : 0);
    std::memcpy(separator_, markdown_ ? " | " : "  ", separator_length_);
  }

  const std::vector<size_t>& widths() const { return width_; }

  void append(std::string& text, const Row& row) const {
    append_cells(text, [&](const auto& emit) { for_each_cell(row, cells_, emit); });
  }
  /// A row of given cells: the header and markdown's rule.
  void append(std::string& text, const std::vector<std::string>& cells) const {
    append_cells(text, [&](const auto& emit) {
      for (size_t i = 0; i < cells.size(); ++i) emit(i, std::string_view(cells[i]));
    });
  }

 private:
  // Padding is stored in blocks of this many spaces, the separator as this
  // many bytes, whatever their lengths: the slack a row keeps at its end.
  static constexpr size_t kPadBlock = 16;
  static constexpr size_t kSeparatorBytes = 4;

  static char* spaces(char* out, size_t count) {
    for (size_t done = 0; done < count; done += kPadBlock) std::memcpy(out + done, kSpaces, kPadBlock);
    return out + count;
  }

  // visit(emit) calls emit(column, text) for each cell in column order.
  template <typename Visit>
  void append_cells(std::string& text, const Visit& visit) const {
    thread_local std::string row;
    size_t at = 0;
    const size_t last = width_.size() - 1;
    // Room for `bytes` more and the slack at `at`.
    auto room = [&](size_t bytes) {
      const size_t needed = at + bytes + kPadBlock + kSeparatorBytes;
      if (needed > row.size()) row.resize(2 * needed);
      return row.data() + at;
    };
    auto put = [&](std::string_view piece) {
      std::memcpy(room(piece.size()), piece.data(), piece.size());
      at += piece.size();
    };
    if (markdown_) put("| ");
    visit([&](size_t i, std::string_view cell) {
      const bool right = numeric_[i] != 0;
      const size_t padding = width_[i] > cell.size() ? width_[i] - cell.size() : 0;
      char* out = room(padding + cell.size());
      if (right) out = spaces(out, padding);
      std::memcpy(out, cell.data(), cell.size());
      out += cell.size();
      if (!right && (i != last || markdown_)) out = spaces(out, padding);
      if (i != last) {
        std::memcpy(out, separator_, kSeparatorBytes);
        out += separator_length_;
      }
      at = size_t(out - row.data());
    });
    if (markdown_) {
      put(" |");
    } else {
      while (at > 0 && row[at - 1] == ' ') --at;
    }
    put("\n");
    text.append(row.data(), at);
  }

  static constexpr char kSpaces[kPadBlock + 1] = "                ";
  bool markdown_;
  size_t separator_length_;
  char separator_[kSeparatorBytes] = {};
  const CellFormat& cells_;
  std::vector<size_t> width_;
  std::vector<uint8_t> numeric_;  ///< by column: right-aligned
};

// The header, and markdown's rule under it.
void write_header(const TableLayout& layout, const AlignedRowWriter& writer, Output& out) {
  std::string text;
  writer.append(text, layout.header);
  if (layout.format == "markdown") {
    std::vector<std::string> rule;
    for (size_t w : writer.widths()) rule.push_back(std::string(w, '-'));
    writer.append(text, rule);
  }
  out.add(text);
}

void write_aligned_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  ColumnWidths widths(header_widths(layout), layout.cells);
  source.widen(widths);
  const AlignedRowWriter writer(layout, widths.widths());
  write_header(layout, writer, out);
  source.write_rows(out, [&writer](std::string& text, const Row& row) { writer.append(text, row); });
}

}  // namespace

void write_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  if (layout.format == "json") {
    out.add("[");
    bool first = true;
    source.for_each_row([&](const Row& row) {
      out.add(first ? "\n" : ",\n");
      first = false;
      out.add(report::json_text(json_item(row, *layout.debug)));
    });
    out.add(first ? "]\n" : "\n]\n");
  } else if (aligned(layout)) {
    write_aligned_streamed(source, layout, out);
  } else {
    const char sep = separator(layout);
    out.add(separated_line(layout.header, sep));
    source.write_rows(out, [&](std::string& text, const Row& row) {
      for_each_cell(row, layout.cells, [&](size_t i, std::string_view cell) {
        if (i) text += sep;
        append_separated_cell(text, cell, sep);
      });
      text += '\n';
    });
  }
}

void write_rows(const std::vector<Row>& rows, const TableLayout& layout, Output& out) {
  if (layout.format == "json") {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (const Row& row : rows) items.push_back(json_item(row, *layout.debug));
    out.add(report::json_text(items) + "\n");
  } else if (aligned(layout)) {
    ColumnWidths widths(header_widths(layout), layout.cells);
    for (const Row& row : rows) widths.add(row);
    const AlignedRowWriter writer(layout, widths.widths());
    write_header(layout, writer, out);
    std::string text;
    for (const Row& row : rows) {
      text.clear();
      writer.append(text, row);
      out.add(text);
    }
  } else {
    out.add(separated_line(layout.header, separator(layout)));
    for (const Row& row : rows) out.add(separated_line(cells(row, layout.cells), separator(layout)));
  }
}

}  // namespace etkit::cli
