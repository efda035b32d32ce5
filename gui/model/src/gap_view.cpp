#include "etkit/gui/gap_view.h"

#include "etkit/inspector/event_blocks.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace etkit::gui {
namespace {

double plotted(const inspector::GapMetrics& m, GapMetric metric) {
  switch (metric) {
    case GapMetric::kMse: return m.mse;
    case GapMetric::kSnrDb: return m.snr_db;
    case GapMetric::kCosine: return 1 - m.cosine;
    case GapMetric::kMaxAbs: return m.max_abs;
  }
  return 0;
}

}  // namespace

std::string gap_status_line(const inspector::GapReport& report) {
  size_t diverged = 0, folded = 0;
  for (const inspector::GapRow& row : report.rows) {
    diverged += row.status == inspector::GapStatus::kDiverged;
    folded += row.status == inspector::GapStatus::kFolded;
  }
  std::string line = std::to_string(report.compared) + " compared (" + std::to_string(diverged) + " diverged)";
  if (report.missing > 0) line += ", " + std::to_string(report.missing) + " without reference";
  if (report.shape_mismatches > 0) {
    line += ", " + std::to_string(report.shape_mismatches) +
            " of another shape (a layout change or another program's value: not compared)";
  }
  if (folded > 0) line += ", " + std::to_string(folded) + " folded into a later op";
  return line;
}

std::string gap_row_label(const inspector::GapRow& row) {
  std::string label = "instruction " + std::to_string(row.instruction_id);
  if (row.delegate_debug_id >= 0) label += ", delegate node " + std::to_string(row.delegate_debug_id);
  label += ": " + (row.op.empty() ? std::string("an output") : row.op);
  if (!row.node.empty()) label += " (" + row.node + ")";
  return label;
}

std::optional<QuantaSummary> quanta_summary(const inspector::GapReport& report) {
  std::vector<double> steps;
  for (const inspector::GapRow& row : report.rows) {
    const bool compared = row.status == inspector::GapStatus::kOk || row.status == inspector::GapStatus::kDiverged;
    if (compared && row.quantum > 0 && std::isfinite(row.error_quanta)) steps.push_back(row.error_quanta);
  }
  if (steps.empty()) return std::nullopt;
  return QuantaSummary{steps.size(), inspector::percentile(steps, 50), *std::max_element(steps.begin(), steps.end())};
}

GapSeries gap_series(const inspector::GapReport& report, GapMetric metric, double atol, double rtol,
                     double quanta) {
  GapSeries series;
  series.metric = metric;
  series.log_scale = metric != GapMetric::kSnrDb;  // dB are a log already
  series.rows = report.rows.size();
  for (size_t r = 0; r < report.rows.size(); ++r) {
    const inspector::GapRow& row = report.rows[r];
    if (row.status != inspector::GapStatus::kOk && row.status != inspector::GapStatus::kDiverged) continue;
    GapPoint point{r, plotted(row.metrics, metric), row.status == inspector::GapStatus::kDiverged, std::nullopt};
    if (metric == GapMetric::kMaxAbs) {
      point.threshold = quanta > 0 && row.quantum > 0 ? quanta * row.quantum : atol + rtol * row.metrics.max_abs_reference;
    }
    if (report.first_divergence && *report.first_divergence == r) series.first_divergence = series.points.size();
    series.points.push_back(point);
  }
  // The y range: finite values (and thresholds), zero and +inf clamped to it.
  double low = std::numeric_limits<double>::infinity(), high = -low;
  auto widen = [&](double v) {
    if (!std::isfinite(v) || (series.log_scale && v <= 0)) return;
    low = std::min(low, v);
    high = std::max(high, v);
  };
  for (const GapPoint& p : series.points) {
    widen(p.value);
    if (p.threshold) widen(*p.threshold);
  }
  if (!std::isfinite(low)) {
    low = series.log_scale ? 1e-12 : 0;
    high = series.log_scale ? 1 : 100;
  }
  if (series.log_scale) {
    // Whole decades, one below the smallest value so zeros sit at the floor.
    low = std::pow(10.0, std::floor(std::log10(low)) - 1);
    high = std::pow(10.0, std::ceil(std::log10(high)));
    if (high <= low) high = low * 10;
  } else if (high <= low) {
    high = low + 1;
  }
  series.low = low;
  series.high = high;
  return series;
}

double gap_fraction(const GapSeries& series, double value) {
  if (std::isnan(value)) return 0;
  double f;
  if (series.log_scale) {
    if (value <= series.low) return 0;
    f = (std::log10(value) - std::log10(series.low)) / (std::log10(series.high) - std::log10(series.low));
  } else {
    f = (value - series.low) / (series.high - series.low);
  }
  return std::clamp(f, 0.0, 1.0);
}

std::optional<size_t> nearest_point(const GapSeries& series, double row) {
  std::optional<size_t> best;
  double best_distance = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < series.points.size(); ++i) {
    const double distance = std::abs(double(series.points[i].row) - row);
    if (distance < best_distance) {
      best_distance = distance;
      best = i;
    }
  }
  return best;
}

std::optional<TensorImage> tensor_image(const std::vector<double>& actual, const std::vector<double>& reference,
                                        const std::vector<int64_t>& sizes, size_t max_side) {
  if (actual.size() != reference.size() || sizes.size() < 2 || sizes.size() > 4) return std::nullopt;
  for (int64_t s : sizes) {
    if (s <= 0) return std::nullopt;
  }
  size_t h = size_t(sizes[sizes.size() - 2]), w = size_t(sizes.back());
  size_t channels = sizes.size() >= 3 ? size_t(sizes[sizes.size() - 3]) : 1;
  if (sizes.size() == 2 && h == 1) {
    // A row vector ([1, N], a linear layer's output) as one pixel high would
    // be a strip nobody can see: its values tile a near-square instead.
    channels = w;
    h = w = 1;
  }
  if (channels * h * w > actual.size()) return std::nullopt;
  const size_t columns = size_t(std::ceil(std::sqrt(double(channels))));
  const size_t rows = (channels + columns - 1) / columns;
  const size_t full_w = columns * w, full_h = rows * h;
  const size_t shrink = std::max<size_t>(1, (std::max(full_w, full_h) + max_side - 1) / std::max<size_t>(1, max_side));
  TensorImage image;
  image.width = (full_w + shrink - 1) / shrink;
  image.height = (full_h + shrink - 1) / shrink;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  image.actual.assign(image.width * image.height, nan);
  image.reference = image.actual;
  image.difference = image.actual;
  image.min_value = std::numeric_limits<float>::infinity();
  image.max_value = -image.min_value;
  // Keeps the value of largest magnitude in each shrunk cell.
  auto keep = [](float& cell, float value) {
    if (std::isnan(cell) || std::abs(value) > std::abs(cell)) cell = value;
  };
  for (size_t c = 0; c < channels; ++c) {
    const size_t x0 = (c % columns) * w, y0 = (c / columns) * h;
    for (size_t y = 0; y < h; ++y) {
      for (size_t x = 0; x < w; ++x) {
        const size_t source = (c * h + y) * w + x;
        const size_t cell = ((y0 + y) / shrink) * image.width + (x0 + x) / shrink;
        const float a = float(actual[source]), r = float(reference[source]);
        keep(image.actual[cell], a);
        keep(image.reference[cell], r);
        keep(image.difference[cell], std::abs(a - r));
        image.max_difference = std::max(image.max_difference, std::abs(a - r));
        image.min_value = std::min({image.min_value, a, r});
        image.max_value = std::max({image.max_value, a, r});
      }
    }
  }
  return image;
}

}  // namespace etkit::gui
