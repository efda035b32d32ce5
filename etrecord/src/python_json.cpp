#include "python_json.h"

#include <cstring>

namespace etkit::etrecord {

std::string with_quoted_non_finite_numbers(const std::string& text) {
  static const char* const kTokens[] = {"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(text.size() + 64);
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];  // an escaped quote stays inside
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    const char* token = nullptr;
    for (const char* candidate : kTokens) {
      if (text.compare(i, std::strlen(candidate), candidate) == 0) {
        token = candidate;
        break;
      }
    }
    if (token == nullptr) {
      out += c;
      continue;
    }
    out += '"';
    out += token;
    out += '"';
    i += std::strlen(token) - 1;
  }
  return out;
}

}  // namespace etkit::etrecord
