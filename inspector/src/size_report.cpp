#include "etkit/inspector/size_report.h"

#include <cstdio>

namespace etkit::inspector {
namespace {

using report::Cell;

// A share of the file as the text shows it ("12.5%"); JSON keeps the number.
Cell share_cell(uint64_t bytes, uint64_t total) {
  const double share = total > 0 ? 100.0 * double(bytes) / double(total) : 0.0;
  char shown[32];
  std::snprintf(shown, sizeof shown, "%.1f%%", share);
  return Cell::of(share).shown_as(shown);
}

Cell detail_cell(const std::string& detail) { return detail.empty() ? Cell::empty() : Cell::of(detail); }

report::TreeRow tree_row(const SizePart& part, uint64_t total) {
  report::TreeRow row;
  Cell name = Cell::of(part.name);
  if (!part.detail.empty()) name = std::move(name).shown_as(part.name + " <- " + part.detail);
  row.cells = {Cell::of(int64_t(part.bytes)), share_cell(part.bytes, total), std::move(name),
               detail_cell(part.detail)};
  for (const SizePart& sub : part.parts) row.children.push_back(tree_row(sub, total));
  return row;
}

}  // namespace

SizeReport size_report(std::string file, SizePart root, size_t text_levels, size_t top) {
  SizeReport size{std::move(file), std::move(root), text_levels, {}};
  if (top > 0) size.largest = largest_leaves(size.root, top);
  return size;
}

void print(report::Printer& out, const SizeReport& size) {
  const uint64_t total = size.root.bytes;
  out.begin_object("");
  out.field("file", size.file);
  out.field("file_bytes", total);
  std::vector<report::TreeRow> parts;
  for (const SizePart& sub : size.root.parts) parts.push_back(tree_row(sub, total));
  out.tree("parts",
           {{"bytes", 0}, {"share", 1}, {"name", 0}, {"detail", 0, /*json_only=*/true}},
           parts, "parts", size.text_levels);
  if (!size.largest.empty()) {
    std::vector<std::vector<Cell>> rows;
    for (const SizeLeaf& leaf : size.largest) {
      Cell path = Cell::of(leaf.path);
      if (!leaf.detail.empty()) path = std::move(path).shown_as(leaf.path + " <- " + leaf.detail);
      rows.push_back({Cell::of(int64_t(leaf.bytes)), share_cell(leaf.bytes, total), std::move(path),
                      detail_cell(leaf.detail)});
    }
    out.table("largest", {{"bytes", 0}, {"share", 1}, {"path", 0}, {"detail", 0, true}}, rows);
  }
  out.end_object();
  out.finish();
}

}  // namespace etkit::inspector
