#pragma once
// Case-insensitive search in the view models: both sides lower-cased (ASCII).

#include <cctype>
#include <string>

namespace etkit::gui::detail {

inline std::string lowercase(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace etkit::gui::detail
