#include "etkit/report/printer.h"
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "etkit/report/json_text.h"

namespace etkit::report {
namespace {

class TextPrinter final : public Printer {
 public:
  explicit TextPrinter(std::ostream& out) : out_(out) {}

  void begin_object(std::string_view key) override {
    flush_list_header();
    // A keyless top-level object is the document itself: no header line.
    const bool indent = !stack_.empty() || !key.empty();
    if (in_list()) {
      // The first line of a list item carries the "- " marker.
      pending_item_ = true;
    } else if (indent) {
      line(std::string(key) + ":");
    }
    stack_.push_back(Frame{false, std::string(key), true, indent});
    depth_ += indent ? 1 : 0;
  }
  void end_object() override {
    depth_ -= stack_.back().indented ? 1 : 0;
    stack_.pop_back();
    pending_item_ = false;
  }
  void begin_list(std::string_view key) override {
    // The header waits for the first item so an empty list reads "(none)".
    flush_list_header();
    stack_.push_back(Frame{true, std::string(key), false, false});
  }
  void end_list() override {
    if (!stack_.back().header_printed) {
      line(stack_.back().key + ": (none)");
    }
    stack_.pop_back();
  }
  void field(std::string_view key, std::string_view value) override {
    scalar(key, std::string(value));
  }
  void field(std::string_view key, int64_t value) override {
    scalar(key, std::to_string(value));
  }
  void field(std::string_view key, uint64_t value) override {
    scalar(key, std::to_string(value));
  }
  void field(std::string_view key, double value) override {
    scalar(key, fmt::format("{:.6g}", value));
  }
  void field(std::string_view key, bool value) override {
    scalar(key, value ? "yes" : "no");
  }
  void null_field(std::string_view key, std::string_view note) override { scalar(key, std::string(note)); }
  void int_list(std::string_view key, const std::vector<int64_t>& values) override {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(values[i]);
    }
    scalar(key, text + "]");
  }
  void double_list(std::string_view key, const std::vector<double>& values, size_t total) override {
    std::string text = "[";
    for (size_t i = 0; i < values.size(); ++i) {
      text += (i ? ", " : "") + fmt::format("{:.6g}", values[i]);
    }
    if (total > values.size()) text += values.empty() ? "…" : ", …";
    scalar(key, text + "]");
  }
  void string_list(std::string_view key, const std::vector<std::string>& values) override {
    if (values.empty()) {
      scalar(key, "(none)");
      return;
    }
    flush_list_header();
    line(std::string(key) + ":");
    ++depth_;
    for (const auto& value : values) {
      line(value);
    }
    --depth_;
  }
  void table(std::string_view key, const std::vector<TableColumn>& all_columns,
             const std::vector<std::vector<Cell>>& all_rows, size_t text_rows) override {
    // The rows text shows: the first `text_rows`, or all (no copy of them).
    const size_t shown_rows = text_rows == 0 ? all_rows.size() : std::min(text_rows, all_rows.size());
    flush_list_header();
    if (!key.empty()) line(std::string(key) + ":");
    if (shown_rows == 0) {
      line("(none)");
      return;
    }
    // The columns a reader sees.
    std::vector<size_t> shown;
    for (size_t c = 0; c < all_columns.size(); ++c) {
      if (!all_columns[c].json_only) shown.push_back(c);
    }
    std::vector<std::vector<std::string>> texts(shown_rows);
    std::vector<size_t> width(shown.size());
    std::vector<bool> right(shown.size(), true);  // numbers right-aligned
    for (size_t i = 0; i < shown.size(); ++i) width[i] = all_columns[shown[i]].key.size();
    for (size_t r = 0; r < shown_rows; ++r) {
      for (size_t i = 0; i < shown.size(); ++i) {
        const size_t c = shown[i];
        const Cell cell = c < all_rows[r].size() ? all_rows[r][c] : Cell::empty();
        texts[r].push_back(cell_text(cell, all_columns[c].decimals));
        width[i] = std::max(width[i], texts[r].back().size());
        if (cell.kind == Cell::Kind::kText || cell.kind == Cell::Kind::kBool) right[i] = false;
      }
    }
    auto render = [&](const std::vector<std::string>& cells) {
      std::string text;
      for (size_t i = 0; i < cells.size(); ++i) {
        const size_t pad = width[i] > cells[i].size() ? width[i] - cells[i].size() : 0;
        if (i) text += "  ";
        if (right[i]) text.append(pad, ' ');
        text += cells[i];
        if (!right[i] && i + 1 < cells.size()) text.append(pad, ' ');
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      return text;
    };
    std::vector<std::string> header;
    for (size_t c : shown) header.push_back(all_columns[c].key);
    line(render(header));
    for (const auto& row : texts) line(render(row));
    if (shown_rows < all_rows.size()) line(fmt::format("... {} more (--json has all)", all_rows.size() - shown_rows));
  }
  void tree(std::string_view key, const std::vector<TableColumn>& columns, const std::vector<TreeRow>& roots,
            std::string_view, size_t text_levels) override {
    std::vector<std::vector<Cell>> rows;
    for (const TreeRow& root : roots) flatten(root, columns, 0, text_levels, rows);
    table(key, columns, rows, 0);
  }
  void finish() override { out_.flush(); }

 private:
  // Pre-order rows, the first text cell indented by its level.
  static void flatten(const TreeRow& row, const std::vector<TableColumn>& columns, size_t level, size_t levels,
                      std::vector<std::vector<Cell>>& rows) {
    if (levels != 0 && level >= levels) return;
    std::vector<Cell> cells = row.cells;
    for (size_t c = 0; c < cells.size() && c < columns.size(); ++c) {
      if (columns[c].json_only || cells[c].kind != Cell::Kind::kText) continue;
      const std::string shown = cells[c].display.empty() ? cells[c].text : cells[c].display;
      cells[c].display = std::string(level * 2, ' ') + shown;
      break;
    }
    rows.push_back(std::move(cells));
    for (const TreeRow& child : row.children) flatten(child, columns, level + 1, levels, rows);
  }
  static std::string cell_text(const Cell& cell, int decimals) {
    if (!cell.display.empty()) return cell.display;
    if (cell.kind == Cell::Kind::kText) return cell.text;
    if (cell.kind == Cell::Kind::kIntegers) {
      std::string text = "[";
      for (size_t i = 0; i < cell.integers.size(); ++i) text += (i ? ", " : "") + std::to_string(cell.integers[i]);
      return text + "]";
    }
    if (cell.kind == Cell::Kind::kTexts) {
      std::string text;
      for (const std::string& t : cell.texts) text += (text.empty() ? "" : " ") + t;
      return text;
    }
    if (cell.kind == Cell::Kind::kEmpty) return std::string();
    if (cell.kind == Cell::Kind::kBool) return cell.integer != 0 ? "yes" : "no";
    if (cell.kind == Cell::Kind::kInteger) return std::to_string(cell.integer);
    if (decimals < 0) return fmt::format("{:.4g}", cell.number);
    return fmt::format("{:.{}f}", cell.number, decimals);
  }
  struct Frame {
    bool list;
    std::string key;
    bool header_printed;
    bool indented;
  };
  void flush_list_header() {
    if (in_list() && !stack_.back().header_printed) {
      stack_.back().header_printed = true;
      line(stack_.back().key + ":");
    }
  }
  bool in_list() const { return !stack_.empty() && stack_.back().list; }
  void scalar(std::string_view key, const std::string& value) {
    flush_list_header();
    if (in_list()) {
      line(value);  // scalar list items have no key
    } else {
      line(std::string(key) + ": " + value);
    }
  }
  void line(const std::string& text) {
    std::string indent(depth_ * 2, ' ');
    if (pending_item_ && depth_ > 0) {
      indent.replace(indent.size() - 2, 2, "- ");
      pending_item_ = false;
    }
    out_ << indent << text << '\n';
  }

  std::ostream& out_;
  std::vector<Frame> stack_;
  size_t depth_ = 0;
  bool pending_item_ = false;
};

class JsonPrinter final : public Printer {
 public:
  explicit JsonPrinter(std::ostream& out) : out_(out) {}

  void begin_object(std::string_view key) override {
    stack_.push_back(&add(key, nlohmann::ordered_json::object()));
  }
  void end_object() override { stack_.pop_back(); }
  void begin_list(std::string_view key) override {
    stack_.push_back(&add(key, nlohmann::ordered_json::array()));
  }
  void end_list() override { stack_.pop_back(); }
  void field(std::string_view key, std::string_view value) override {
    add(key, std::string(value));
  }
  void field(std::string_view key, int64_t value) override { add(key, value); }
  void field(std::string_view key, uint64_t value) override { add(key, value); }
  void field(std::string_view key, double value) override { add(key, value); }
  void field(std::string_view key, bool value) override { add(key, value); }
  void null_field(std::string_view key, std::string_view) override { add(key, nullptr); }
  void int_list(std::string_view key, const std::vector<int64_t>& values) override {
    add(key, values);
  }
  void double_list(std::string_view key, const std::vector<double>& values, size_t) override {
    add(key, values);  // non-finite values become null
  }
  void string_list(std::string_view key, const std::vector<std::string>& values) override {
    add(key, values);
  }
  void table(std::string_view key, const std::vector<TableColumn>& columns,
             const std::vector<std::vector<Cell>>& rows, size_t) override {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
      nlohmann::ordered_json item = nlohmann::ordered_json::object();
      for (size_t c = 0; c < columns.size() && c < row.size(); ++c) {
        item[columns[c].key] = json_value(row[c]);
      }
      items.push_back(std::move(item));
    }
    add(key, std::move(items));
  }
  void tree(std::string_view key, const std::vector<TableColumn>& columns, const std::vector<TreeRow>& roots,
            std::string_view children_key, size_t) override {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (const TreeRow& root : roots) items.push_back(tree_item(root, columns, children_key));
    add(key, std::move(items));
  }
  void finish() override {
    out_ << json_text(root_) << '\n';
    out_.flush();
  }

 private:
  static nlohmann::ordered_json json_value(const Cell& cell) {
    switch (cell.kind) {
      case Cell::Kind::kText: return cell.text;
      case Cell::Kind::kNumber: return cell.number;
      case Cell::Kind::kInteger: return cell.integer;
      case Cell::Kind::kIntegers: return cell.integers;
      case Cell::Kind::kTexts: return cell.texts;
      case Cell::Kind::kBool: return cell.integer != 0;
      case Cell::Kind::kEmpty: break;
    }
    return nullptr;
  }
  static nlohmann::ordered_json tree_item(const TreeRow& row, const std::vector<TableColumn>& columns,
                                          std::string_view children_key) {
    nlohmann::ordered_json item = nlohmann::ordered_json::object();
    for (size_t c = 0; c < columns.size() && c < row.cells.size(); ++c) {
      if (row.cells[c].kind != Cell::Kind::kEmpty) item[columns[c].key] = json_value(row.cells[c]);
    }
    nlohmann::ordered_json children = nlohmann::ordered_json::array();
    for (const TreeRow& child : row.children) children.push_back(tree_item(child, columns, children_key));
    item[std::string(children_key)] = std::move(children);
    return item;
  }
  nlohmann::ordered_json& add(std::string_view key, nlohmann::ordered_json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return root_;
    }
    nlohmann::ordered_json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return parent.back();
    }
    nlohmann::ordered_json& slot = parent[std::string(key)];
    slot = std::move(value);
    return slot;
  }

  std::ostream& out_;
  nlohmann::ordered_json root_;
  std::vector<nlohmann::ordered_json*> stack_;
};

}  // namespace

std::unique_ptr<Printer> make_text_printer(std::ostream& out) {
  return std::make_unique<TextPrinter>(out);
}

std::unique_ptr<Printer> make_json_printer(std::ostream& out) {
  return std::make_unique<JsonPrinter>(out);
}

}  // namespace etkit::report
