#include "table_writers.h"

#include <algorithm>
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

void write_aligned_streamed(TableSource& source, const TableLayout& layout, Output& out) {
  const bool markdown = layout.format == "markdown";
  std::vector<size_t> width = header_widths(layout);
  source.widen(width, layout.cells);
  write_header(layout, width, out);
  const size_t last = layout.header.size() - 1;
  source.write_rows(out, [&](std::string& text, const Row& row) {
    if (markdown) text += "| ";
    for_each_cell(row, layout.cells, [&](size_t i, std::string_view cell) {
      append_aligned_cell(text, i, cell, width[i], i == last, markdown, layout.cells);
    });
    if (markdown) text += " |";
    else while (!text.empty() && text.back() == ' ') text.pop_back();
    text += '\n';
  });
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
