#include "table_writers.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "etkit/report/json_text.h"

namespace etkit::cli {
namespace {

bool aligned(const TableLayout& layout) { return layout.format == "text" || layout.format == "markdown"; }
char separator(const TableLayout& layout) { return layout.format == "csv" ? ',' : '\t'; }

// The header, and markdown's rule under it, padded to `width`.
void write_header(const TableLayout& layout, const std::vector<size_t>& width, Output& out) {
  const bool markdown = layout.format == "markdown";
  out.add(aligned_line(layout.header, width, markdown, layout.cells));
  if (markdown) {
    std::vector<std::string> rule;
    for (size_t w : width) rule.push_back(std::string(w, '-'));
    out.add(aligned_line(rule, width, markdown, layout.cells));
  }
}

std::vector<size_t> header_widths(const TableLayout& layout) {
  std::vector<size_t> width(layout.header.size(), layout.format == "markdown" ? 3 : 0);
  for (size_t i = 0; i < layout.header.size(); ++i) width[i] = std::max(width[i], layout.header[i].size());
  return width;
}

// Writes rows as aligned_line would, straight into the block's text: a
// million rows of small appends were a third of the table's time.
class AlignedRowWriter {
 public:
  AlignedRowWriter(const TableLayout& layout, std::vector<size_t> width)
      : markdown_(layout.format == "markdown"), cells_(layout.cells), width_(std::move(width)) {
    for (size_t i = 0; i < width_.size(); ++i) {
      numeric_.push_back(numeric_column(i, cells_));
      row_bytes_ += width_[i] + 3;
    }
  }

  void append(std::string& text, const Row& row) const {
    const size_t start = text.size();
    const size_t last = width_.size() - 1;
    size_t at = start;
    // Room for a cell, its padding and a separator, grown when a cell is
    // wider than its column was measured.
    auto room = [&](size_t bytes) {
      if (at + bytes > text.size()) text.resize(at + std::max(bytes, row_bytes_));
      return text.data() + at;
    };
    auto put = [&](std::string_view piece) {
      std::memcpy(room(piece.size()), piece.data(), piece.size());
      at += piece.size();
    };
    auto pad = [&](size_t count) {
      std::memset(room(count), ' ', count);
      at += count;
    };
    if (markdown_) put("| ");
    for_each_cell(row, cells_, [&](size_t i, std::string_view cell) {
      const size_t padding = width_[i] > cell.size() ? width_[i] - cell.size() : 0;
      if (numeric_[i]) pad(padding);
      put(cell);
      if (!numeric_[i] && (i != last || markdown_)) pad(padding);
      if (i != last) put(markdown_ ? " | " : "  ");
    });
    if (markdown_) {
      put(" |");
    } else {
      while (at > start && text[at - 1] == ' ') --at;
    }
    put("\n");
    text.resize(at);
  }

 private:
  bool markdown_;
  const CellFormat& cells_;
  std::vector<size_t> width_;
  std::vector<bool> numeric_;
  size_t row_bytes_ = 8;  ///< a row's length when no cell is wider than measured
};

void write_aligned_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  std::vector<size_t> width = header_widths(layout);
  source.widen(width, layout.cells);
  write_header(layout, width, out);
  const AlignedRowWriter writer(layout, std::move(width));
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
    std::vector<size_t> width = header_widths(layout);
    for (const Row& row : rows) {
      const auto c = cells(row, layout.cells);
      for (size_t i = 0; i < c.size(); ++i) width[i] = std::max(width[i], c[i].size());
    }
    write_header(layout, width, out);
    for (const Row& row : rows) out.add(aligned_line(cells(row, layout.cells), width, layout.format == "markdown", layout.cells));
  } else {
    out.add(separated_line(layout.header, separator(layout)));
    for (const Row& row : rows) out.add(separated_line(cells(row, layout.cells), separator(layout)));
  }
}

}  // namespace etkit::cli
