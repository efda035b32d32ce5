#pragma once
// One printer interface with a text and a JSON backend: subcommands describe
// their output once, so `--json` never drifts from the text.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace etkit::cli {

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
  virtual void int_list(std::string_view key, const std::vector<int64_t>& values) = 0;
  virtual void string_list(std::string_view key,
                           const std::vector<std::string>& values) = 0;
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

}  // namespace etkit::cli
