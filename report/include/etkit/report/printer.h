#pragma once
// One printer interface with a text and a JSON backend: subcommands describe
// their output once, so `--json` never drifts from the text.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace etkit::report {

/// A table cell: empty (JSON null), text, a number, a list of integers, a
/// list of texts or a yes/no (a JSON boolean).
struct Cell {
  enum class Kind { kEmpty, kText, kNumber, kInteger, kIntegers, kTexts, kBool };
  Kind kind = Kind::kEmpty;
  std::string text;
  double number = 0;
  int64_t integer = 0;
  std::vector<int64_t> integers;
  std::string display;  ///< how text output shows the value, when not as is
  std::vector<std::string> texts;
  static Cell empty() { return {}; }
  static Cell of(std::string value) { return {Kind::kText, std::move(value), 0, 0, {}, {}}; }
  static Cell of(const char* value) { return of(std::string(value)); }
  static Cell of(double number) { return {Kind::kNumber, {}, number, 0, {}, {}}; }
  static Cell of(int64_t integer) { return {Kind::kInteger, {}, 0, integer, {}, {}}; }
  static Cell of(std::vector<int64_t> integers) { return {Kind::kIntegers, {}, 0, 0, std::move(integers), {}}; }
  /// Texts: a JSON list, shown separated by spaces.
  static Cell of(std::vector<std::string> texts) {
    Cell cell{Kind::kTexts, {}, 0, 0, {}, {}};
    cell.texts = std::move(texts);
    return cell;
  }
  static Cell yes_no(bool value) { return {Kind::kBool, {}, 0, value ? 1 : 0, {}, {}}; }
  /// The same value, shown as `text` by the text backend (an indented tree
  /// label); JSON keeps the value.
  Cell shown_as(std::string shown) && {
    display = std::move(shown);
    return std::move(*this);
  }
  /// A number when set, else empty.
  template <typename Optional>
  static Cell maybe(const Optional& value) { return value ? of(double(*value)) : empty(); }
};

/// A column: its key (text header and JSON key) and, for numbers, the
/// fixed decimals the text shows, or -1 for 4 significant digits (JSON
/// keeps full precision).
struct TableColumn {
  std::string key;
  int decimals = 6;
  bool json_only = false;  ///< a column scripts want and a reader does not (ids, lists)
};

/// A row of a tree (`Printer::tree`): its cells by column and its children.
struct TreeRow {
  std::vector<Cell> cells;
  std::vector<TreeRow> children;
};

class Printer {
 public:
  virtual ~Printer() = default;
  /// Opens a nested object; `key` is ignored for items of a list.
  virtual void begin_object(std::string_view key) = 0;
  virtual void end_object() = 0;
  virtual void begin_list(std::string_view key) = 0;
  virtual void end_list() = 0;
  virtual void field(std::string_view key, std::string_view value) = 0;
  virtual void field(std::string_view key, int64_t value) = 0;
  virtual void field(std::string_view key, uint64_t value) = 0;
  virtual void field(std::string_view key, double value) = 0;
  virtual void field(std::string_view key, bool value) = 0;
  /// A value that is absent: JSON null; text shows `note` (why it is).
  virtual void null_field(std::string_view key, std::string_view note) = 0;
  virtual void int_list(std::string_view key, const std::vector<int64_t>& values) = 0;
  /// Numbers; `total` > values.size() says the list is the first values of
  /// `total` (text ends it with "…"). JSON writes non-finite values as null.
  virtual void double_list(std::string_view key, const std::vector<double>& values, size_t total) = 0;
  virtual void string_list(std::string_view key,
                           const std::vector<std::string>& values) = 0;
  /// Rows of cells: an aligned table in text (numbers right-aligned), a
  /// list of objects keyed by column in JSON. Text shows the first
  /// `text_rows` rows and says how many more JSON has (all when 0).
  virtual void table(std::string_view key, const std::vector<TableColumn>& columns,
                     const std::vector<std::vector<Cell>>& rows, size_t text_rows) = 0;
  void table(std::string_view key, const std::vector<TableColumn>& columns,
             const std::vector<std::vector<Cell>>& rows) {
    table(key, columns, rows, 0);
  }
  /// A tree of rows. Text: one aligned table in pre-order, the first text
  /// column indented two spaces a level, down to `text_levels` levels (the
  /// whole tree when 0). JSON: a list of objects keyed by column, empty
  /// cells left out, each object's children listed under `children_key`.
  virtual void tree(std::string_view key, const std::vector<TableColumn>& columns, const std::vector<TreeRow>& roots,
                    std::string_view children_key, size_t text_levels) = 0;
  /// Writes what is buffered (the JSON document) to the stream.
  virtual void finish() = 0;

  // Convenience overloads so call sites need no casts.
  void field(std::string_view key, const char* value) { field(key, std::string_view(value)); }
  void field(std::string_view key, const std::string& value) { field(key, std::string_view(value)); }
  void field(std::string_view key, int32_t value) { field(key, int64_t{value}); }
  void field(std::string_view key, uint32_t value) { field(key, uint64_t{value}); }
};

/// Indented "key: value" lines; list items start with "- ".
std::unique_ptr<Printer> make_text_printer(std::ostream& out);
/// A JSON document, pretty-printed, numbers as numbers. The outermost
/// container is a list when the first call is begin_list.
std::unique_ptr<Printer> make_json_printer(std::ostream& out);

}  // namespace etkit::report
