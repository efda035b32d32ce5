#pragma once
// A double as fixed-point text with a given number of decimals, as
// std::to_chars(..., std::chars_format::fixed, decimals) writes it, with a
// fast path for the table's statistics: std::to_chars' exact algorithm
// costs about 380 instructions a number, a third of a table row's
// formatting on a trace of a million one-run blocks.

#include <cstddef>

namespace etkit::cli {

/// Writes `value` with `decimals` digits after the point into
/// [out, out + room) and returns its length; 0 when it does not fit.
/// The text is exactly std::to_chars' (correctly rounded, ties to even).
size_t fixed_text(double value, int decimals, char* out, size_t room);

}  // namespace etkit::cli
