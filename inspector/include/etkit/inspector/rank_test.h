#pragma once
/// @file
/// The Mann-Whitney U test (Wilcoxon rank-sum), one-sided: is one sample of
/// durations stochastically larger than another? `etinspect diff` uses it to
/// tell a slowed-down event from the runs' own noise. It makes no
/// assumption about the shape of the distribution (latencies are skewed,
/// with outliers) and uses ranks only, so one outlier run moves it little.

#include <cstddef>
#include <vector>

namespace etkit::inspector {

/// The one-sided p-value of "`larger` tends to be larger than `smaller`":
/// the normal approximation of U with mid-ranks for ties, the tie-corrected
/// variance and a continuity correction (as scipy.stats.mannwhitneyu's
/// method="asymptotic", use_continuity=True). 1 when either sample is empty
/// or every value is equal (nothing to tell them apart).
double mann_whitney_greater(const std::vector<double>& larger, const std::vector<double>& smaller);

/// The smallest p-value mann_whitney_greater can give samples of these
/// sizes (every value of one above every value of the other, no ties): with
/// fewer runs than it takes to go below 1 - confidence, no shift is ever
/// significant.
double smallest_attainable_p(size_t larger_size, size_t smaller_size);

/// Runs per trace (both the same) that it takes for a complete shift to be
/// significant at `confidence` (in (0, 1)).
size_t runs_needed(double confidence);

}  // namespace etkit::inspector
