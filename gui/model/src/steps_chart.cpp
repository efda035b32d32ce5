#include "etkit/gui/steps_chart.h"

#include "etkit/gui/timeline_model.h"
#include "etkit/inspector/event_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace etkit::gui {

StepsChart::StepsChart(std::vector<inspector::GenerationStepTiming> steps)
    : steps_(std::move(steps)), decode_(inspector::summarize_phase(steps_, true)) {
  std::vector<double> latencies;
  for (const auto& s : steps_) latencies.push_back(s.latency());
  if (latencies.empty()) return;
  const double slowest = *std::max_element(latencies.begin(), latencies.end());
  if (slowest <= 0) return;
  // Outliers (a preempted step) would flatten every other bar: steps over
  // three times the 75th percentile are clipped at the axis' top instead,
  // and the axis follows the others.
  const double limit = 3 * inspector::percentile(latencies, 75);
  double top = 0;
  for (double latency : latencies) {
    if (latency <= limit) top = std::max(top, latency);
  }
  if (top <= 0) top = slowest;
  // Round ticks (at most kMaxIntervals of them) up to the first one at
  // least 10% above the highest bar drawn whole.
  constexpr double kMaxIntervals = 6;
  tick_step_ = gui::tick_step(top * 1.1 / kMaxIntervals, 1);  // the ruler's 1-2-5 rule
  axis_max_ = std::ceil(top * 1.1 / tick_step_ * (1 - 1e-12)) * tick_step_;
  for (double latency : latencies) clipped_ += latency > axis_max_;
  slowest_ = slowest;
}

bool StepsChart::clipped(double latency) const { return latency > axis_max_; }

double StepsChart::height_fraction(double latency) const { return std::clamp(latency / axis_max_, 0.0, 1.0); }

std::vector<double> StepsChart::latency_ticks() const {
  std::vector<double> ticks;
  const int intervals = int(std::lround(axis_max_ / tick_step_));
  for (int t = 0; t <= intervals; ++t) ticks.push_back(tick_step_ * t);
  return ticks;
}

std::optional<size_t> StepsChart::step_at(double fraction) const {
  if (steps_.empty() || !(fraction >= 0) || fraction >= 1) return std::nullopt;
  return std::min(size_t(fraction * double(steps_.size())), steps_.size() - 1);
}

size_t StepsChart::label_every(double bar_pixels, double min_pixels) const {
  return std::max<size_t>(1, size_t(min_pixels / std::max(bar_pixels, 0.01)));
}

std::string StepsChart::title() const {
  char text[320];
  int n = std::snprintf(text, sizeof(text),
                        "latency per step: %zu prefill (orange), %zu decode (blue), decode median %.3f ms (red)",
                        prefill_steps(), decode_.steps, decode_.median / 1e6);
  if (clipped_ > 0 && n > 0 && size_t(n) < sizeof(text)) {
    std::snprintf(text + n, sizeof(text) - size_t(n), "; %zu clipped (^, up to %.3f ms)", clipped_, slowest_ / 1e6);
  }
  return text;
}

}  // namespace etkit::gui
