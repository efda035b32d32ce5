#pragma once
/// @file
/// The numeric-gap view's model: one metric per compared op in execution
/// order (log scale where the metric spans decades), the divergence
/// threshold, the first divergence, and for a chosen op the actual and
/// reference tensors with their difference as images.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "etkit/inspector/gap_report.h"

namespace etkit::gui {

enum class GapMetric { kMse, kSnrDb, kCosine, kMaxAbs };
inline constexpr const char* kGapMetricNames[] = {"MSE", "SNR (dB)", "1 - cosine", "max abs"};

struct GapPoint {
  size_t row = 0;  ///< index into GapReport::rows (the x position)
  double value = 0;  ///< the metric as plotted (1 - cosine for cosine)
  bool diverged = false;
  std::optional<double> threshold;  ///< max abs only: atol + rtol * max |reference|
};

struct GapSeries {
  GapMetric metric = GapMetric::kMaxAbs;
  bool log_scale = true;
  double low = 0, high = 1;  ///< the y range (values, not logs)
  size_t rows = 0;           ///< x range: [0, rows)
  std::vector<GapPoint> points;
  std::optional<size_t> first_divergence;  ///< index into points
};

/// The compared rows of `report` under `metric`; the threshold uses the
/// rule numeric_gap() applied (`atol`, `rtol`).
GapSeries gap_series(const inspector::GapReport& report, GapMetric metric, double atol = 1e-5, double rtol = 1e-4);
/// Where `value` sits between the series' low (0) and high (1).
double gap_fraction(const GapSeries& series, double value);
/// The point nearest to x position `row` (in rows), if any.
std::optional<size_t> nearest_point(const GapSeries& series, double row);

/// A tensor as an image: 2-D as is (a [1, N] row vector wrapped into a
/// near-square, row by row), 3-D and 4-D (first batch) with its channels
/// tiled in a near-square grid; larger than `max_side` pixels
/// shrunk by taking each block's largest magnitude. Padding cells are NaN.
struct TensorImage {
  size_t width = 0, height = 0;
  std::vector<float> actual, reference, difference;  ///< row-major, |actual - reference| for difference
  float max_difference = 0;
  float min_value = 0, max_value = 0;  ///< over actual and reference
};
std::optional<TensorImage> tensor_image(const std::vector<double>& actual, const std::vector<double>& reference,
                                        const std::vector<int64_t>& sizes, size_t max_side = 256);

}  // namespace etkit::gui
