// The table's fixed-point statistics against std::to_chars (libstdc++'s
// exact algorithm) and printf: the same text for every value and number of
// decimals, including exact ties, values a hair from a half, the ends of
// the fast path's range and what is not finite.

#include "fixed_text.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace etkit::cli {
namespace {

std::string ours(double value, int decimals) {
  char text[400];
  const size_t length = fixed_text(value, decimals, text, sizeof(text));
  return std::string(text, length);
}

std::string to_chars_text(double value, int decimals) {
  char text[400];
  const auto result = std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed, decimals);
  return std::string(text, result.ptr);
}

// Every value in `values` with each number of decimals from 0 to 12 (past
// the fast path's 9) and its two neighbouring doubles.
void expect_as_to_chars(const std::vector<double>& values) {
  for (double value : values) {
    for (double v : {std::nextafter(value, -INFINITY), value, std::nextafter(value, INFINITY)}) {
      for (int decimals = 0; decimals <= 12; ++decimals) {
        ASSERT_EQ(ours(v, decimals), to_chars_text(v, decimals)) << "value " << v << " (%a: " << std::hexfloat << v
                                                                 << std::defaultfloat << "), " << decimals << " decimals";
      }
    }
  }
}

TEST(FixedText, ExactTiesRoundToEvenAsToChars) {
  // m / 2^k scaled by 10^d ends in exactly .5 for some d: 0.375 with two
  // decimals is 37.5, which rounds to 38; 0.125 is 12.5, which rounds to 12.
  std::vector<double> ties = {0.5, 1.5, 2.5, 0.125, 0.375, 0.625, 0.875, 1.0625, 2.5e-3, 0.0005, 1e-9 * 0.5};
  for (int k = 1; k <= 40; ++k) ties.push_back(std::ldexp(1.0, -k) * 3);
  for (double& tie : std::vector<double>(ties)) ties.push_back(-tie);
  expect_as_to_chars(ties);
}

TEST(FixedText, HalvesAtEveryDecimalAsToChars) {
  // (k + 1/2) / 10^d for many k and d: the doubles nearest a half, above or
  // below it, whichever way the exact value falls.
  std::mt19937_64 random(7);
  std::vector<double> halves;
  for (int decimals = 0; decimals <= 9; ++decimals) {
    for (int i = 0; i < 400; ++i) {
      const double k = double(random() % 100000000);
      halves.push_back((k + 0.5) / std::pow(10.0, decimals));
    }
  }
  expect_as_to_chars(halves);
}

TEST(FixedText, SpecialValuesAndRangeEndsAsToChars) {
  const double fast_limit = 4503599627370496.0;  // 2^52, where the fast path stops
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 1e-7, -4e-7, 5e-7, 0.9999995, 9.9999996,
                                999.9999995, DBL_MIN, -DBL_MIN, 5e-324, -5e-324, DBL_MAX, -DBL_MAX, 1e20, 1e300,
                                fast_limit, fast_limit - 1, fast_limit + 1, 9007199254740992.0, 18446744073709551616.0};
  for (int d = 0; d <= 9; ++d) values.push_back(fast_limit / std::pow(10.0, d));
  expect_as_to_chars(values);
  for (int decimals : {0, 6, 9}) {
    for (double v : {double(INFINITY), -double(INFINITY), std::nan("")}) EXPECT_EQ(ours(v, decimals), to_chars_text(v, decimals));
  }
}

TEST(FixedText, RandomValuesOfEveryMagnitudeAsToCharsAndPrintf) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> exponent(-14, 15);
  for (int i = 0; i < 100000; ++i) {
    const double magnitude = std::pow(10.0, exponent(random));
    const double value = (random() & 1) ? -magnitude : magnitude;
    const int decimals = int(random() % 10);
    const std::string text = ours(value, decimals);
    ASSERT_EQ(text, to_chars_text(value, decimals)) << value << ", " << decimals << " decimals";
    char printed[400];
    std::snprintf(printed, sizeof(printed), "%.*f", decimals, value);
    ASSERT_EQ(text, printed) << value << ", " << decimals << " decimals";
  }
}

TEST(FixedText, ArbitraryBitPatternsAsToChars) {
  std::mt19937_64 random(13);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = random();
    double value;
    static_assert(sizeof(value) == sizeof(bits));
    std::memcpy(&value, &bits, sizeof(value));
    const int decimals = int(random() % 10);
    ASSERT_EQ(ours(value, decimals), to_chars_text(value, decimals)) << std::hexfloat << value;
  }
}

TEST(FixedText, TooLittleRoomWritesNothing) {
  char text[8];
  EXPECT_EQ(fixed_text(0.25, 6, text, 8), 8u);  // "0.250000" fits exactly
  EXPECT_EQ(std::string(text, 8), "0.250000");
  EXPECT_EQ(fixed_text(0.25, 6, text, 7), 0u);
  EXPECT_EQ(fixed_text(-0.25, 6, text, 8), 0u);  // the sign needs a ninth byte
  EXPECT_EQ(fixed_text(1e300, 6, text, 8), 0u);  // beyond the fast path's range
}

}  // namespace
}  // namespace etkit::cli
