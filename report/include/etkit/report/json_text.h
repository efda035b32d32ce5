#pragma once
// The text of a JSON document the CLI prints. Its strings come from files
// (op names, constant FQNs, named-data keys) and may hold invalid UTF-8 in a
// damaged file: such bytes become U+FFFD. nlohmann's default would throw,
// turning a report on a damaged file into an internal error.

#include <nlohmann/json.hpp>

#include <string>

namespace etkit::report {

template <class Json>
std::string json_text(const Json& value, int indent = 2) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace etkit::report
