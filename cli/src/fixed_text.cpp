#include "fixed_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace etkit::cli {
namespace {

constexpr int kMaxFastDecimals = 9;
constexpr double kPowersOfTen[kMaxFastDecimals + 1] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
// 2^52: below it every half k + 1/2 is a double.
constexpr double kMaxFastScaled = 4503599627370496.0;

// The scaled magnitude rounded to an integer, when that is certainly the
// rounding of the exact value. 10^decimals is exact, so the product is the
// exact scaled value rounded once, and rounding is monotonic: an exact
// value above (below) a half k + 1/2, itself a double here, gives a product
// at or above (below) it. So a product whose fraction is not exactly one
// half rounds as the exact value does; one that is may be a tie or a value
// on either side of it, and is left to std::to_chars (false), as are
// decimals and magnitudes out of range.
bool scaled_integer(double magnitude, int decimals, uint64_t& scaled) {
  if (decimals < 0 || decimals > kMaxFastDecimals || !(magnitude < kMaxFastScaled)) return false;
  const double product = magnitude * kPowersOfTen[decimals];
  if (!(product < kMaxFastScaled)) return false;
  const double whole = std::floor(product);
  const double fraction = product - whole;  // exact: a multiple of the product's ulp, below 1
  if (fraction == 0.5) return false;
  scaled = uint64_t(whole) + (fraction > 0.5 ? 1 : 0);
  return true;
}

}  // namespace

size_t fixed_text(double value, int decimals, char* out, size_t room) {
  uint64_t scaled = 0;
  if (!scaled_integer(std::fabs(value), decimals, scaled)) {
    const auto result = std::to_chars(out, out + room, value, std::chars_format::fixed, decimals);
    return result.ec == std::errc() ? size_t(result.ptr - out) : 0;
  }
  // The scaled integer's digits, zero-padded to one more than the
  // decimals so that at least one comes before the point.
  const size_t places = size_t(decimals);
  char digits[32];
  std::memset(digits, '0', places + 1);
  char number[24];
  const auto written = std::to_chars(number, number + sizeof(number), scaled);
  const size_t count = size_t(written.ptr - number);
  const size_t total = count > places ? count : places + 1;
  std::memcpy(digits + total - count, number, count);
  const bool negative = std::signbit(value);
  const size_t length = size_t(negative) + total + (places > 0 ? 1 : 0);
  if (length > room) return 0;
  char* at = out;
  if (negative) *at++ = '-';
  std::memcpy(at, digits, total - places);
  at += total - places;
  if (places > 0) {
    *at++ = '.';
    std::memcpy(at, digits + total - places, places);
    at += places;
  }
  return size_t(at - out);
}

}  // namespace etkit::cli
