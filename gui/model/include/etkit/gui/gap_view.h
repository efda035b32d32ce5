#pragma once
/// @file
/// The numeric-gap view's model: one metric per compared op in execution
/// order (log scale where the metric spans decades), the divergence
/// threshold, the first divergence, and for a chosen op the actual and
/// reference tensors with their difference as images.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
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

/// What the gap compared, by status: "64 compared (2 diverged), 1 without
/// reference, 3 of another shape (a layout change or another program's
/// value: not compared), 2 folded into a later op"; parts that are 0 are
/// left out.
std::string gap_status_line(const inspector::GapReport& report);

/// Where a row's value comes from and what it is: "instruction 5:
/// aten.addmm.default", "instruction 0, delegate node 113:
/// aten.convolution.default (aten_convolution_default_3)" (the graph node
/// when the ETRecord names one).
std::string gap_row_label(const inspector::GapRow& row);

/// How far the quantized (dequantized int8) compared values lie from their
/// references, in their own quantization steps: what to judge them by
/// (etinspect gap --quanta K). Nullopt when no compared row is quantized.
struct QuantaSummary {
  size_t rows = 0;
  double median = 0, max = 0;  ///< of the rows' error in steps (NumPy's median)
};
std::optional<QuantaSummary> quanta_summary(const inspector::GapReport& report);

/// The compared rows of `report` under `metric`; the threshold uses the
/// rule inspector::judge applies (`atol`, `rtol`; `quanta` steps of a
/// quantized value's scale when > 0).
GapSeries gap_series(const inspector::GapReport& report, GapMetric metric, double atol = 1e-5, double rtol = 1e-4,
                     double quanta = 0);
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
