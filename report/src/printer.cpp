#include "printer.h"
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "json_text.h"

namespace etkit::cli {
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
             const std::vector<std::vector<Cell>>& all_rows) override {
    flush_list_header();
    if (!key.empty()) line(std::string(key) + ":");
    if (all_rows.empty()) {
      line("(none)");
      return;
    }
    // The columns a reader sees.
    std::vector<size_t> shown;
    for (size_t c = 0; c < all_columns.size(); ++c) {
      if (!all_columns[c].json_only) shown.push_back(c);
    }
    std::vector<std::vector<std::string>> texts(all_rows.size());
    std::vector<size_t> width(shown.size());
    std::vector<bool> right(shown.size(), true);  // numbers right-aligned
    for (size_t i = 0; i < shown.size(); ++i) width[i] = all_columns[shown[i]].key.size();
    for (size_t r = 0; r < all_rows.size(); ++r) {
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
  }
  void finish() override { out_.flush(); }

 private:
  static std::string cell_text(const Cell& cell, int decimals) {
    if (!cell.display.empty()) return cell.display;
    if (cell.kind == Cell::Kind::kText) return cell.text;
    if (cell.kind == Cell::Kind::kIntegers) {
      std::string text = "[";
      for (size_t i = 0; i < cell.integers.size(); ++i) text += (i ? ", " : "") + std::to_string(cell.integers[i]);
      return text + "]";
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
             const std::vector<std::vector<Cell>>& rows) override {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
      nlohmann::ordered_json item = nlohmann::ordered_json::object();
      for (size_t c = 0; c < columns.size() && c < row.size(); ++c) {
        const Cell& cell = row[c];
        if (cell.kind == Cell::Kind::kText) item[columns[c].key] = cell.text;
        else if (cell.kind == Cell::Kind::kNumber) item[columns[c].key] = cell.number;
        else if (cell.kind == Cell::Kind::kInteger) item[columns[c].key] = cell.integer;
        else if (cell.kind == Cell::Kind::kIntegers) item[columns[c].key] = cell.integers;
        else if (cell.kind == Cell::Kind::kBool) item[columns[c].key] = cell.integer != 0;
        else item[columns[c].key] = nullptr;
      }
      items.push_back(std::move(item));
    }
    add(key, std::move(items));
  }
  void finish() override {
    out_ << json_text(root_) << '\n';
    out_.flush();
  }

 private:
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

}  // namespace etkit::cli
