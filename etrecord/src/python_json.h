#pragma once
// Python's json module writes non-finite floats as the bare tokens NaN,
// Infinity and -Infinity, which JSON (and nlohmann's parser) does not
// accept. Upstream's serialized graphs contain them.

#include <string>

namespace etkit::etrecord {

/// `text` with each NaN, Infinity and -Infinity outside string literals
/// turned into a string literal ("NaN", ...); everything else unchanged.
std::string with_quoted_non_finite_numbers(const std::string& text);

}  // namespace etkit::etrecord
