#include "etkit/inspector/rank_test.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace etkit::inspector {
namespace {

// P(Z > z) for a standard normal Z.
double upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// p-value of U for sizes n (the sample tested as larger) and m, with
// `tie_term` = sum over groups of equal values of t^3 - t.
double p_value(double u, double n, double m, double tie_term) {
  const double total = n + m;
  const double variance = n * m / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (!(variance > 0)) return 1.0;
  const double z = (u - n * m / 2.0 - 0.5) / std::sqrt(variance);
  return upper_tail(z);
}

}  // namespace

double mann_whitney_greater(const std::vector<double>& larger, const std::vector<double>& smaller) {
  if (larger.empty() || smaller.empty()) return 1.0;
  std::vector<std::pair<double, bool>> pooled;  // value, from `larger`
  pooled.reserve(larger.size() + smaller.size());
  for (double v : larger) pooled.emplace_back(v, true);
  for (double v : smaller) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double mid_rank = (double(i + 1) + double(j)) / 2.0;  // ranks i+1..j
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum += mid_rank;
    }
    const double t = double(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double n = double(larger.size()), m = double(smaller.size());
  const double u = rank_sum - n * (n + 1.0) / 2.0;
  return p_value(u, n, m, tie_term);
}

double smallest_attainable_p(size_t larger_size, size_t smaller_size) {
  if (larger_size == 0 || smaller_size == 0) return 1.0;
  const double n = double(larger_size), m = double(smaller_size);
  return p_value(n * m, n, m, 0.0);
}

size_t runs_needed(double confidence) {
  size_t runs = 1;
  while (runs < 1000 && smallest_attainable_p(runs, runs) >= 1.0 - confidence) ++runs;
  return runs;
}

}  // namespace etkit::inspector
