#include "etkit/gui/steps_chart.h"

#include <algorithm>
#include <cstdio>

namespace etkit::gui {

StepsChart::StepsChart(std::vector<inspector::GenerationStepTiming> steps)
    : steps_(std::move(steps)), decode_(inspector::summarize_phase(steps_, true)) {
  double slowest = 0;
  for (const auto& s : steps_) slowest = std::max(slowest, s.latency());
  axis_max_ = slowest > 0 ? slowest * 1.1 : 1;
}

double StepsChart::height_fraction(double latency) const { return std::clamp(latency / axis_max_, 0.0, 1.0); }

std::vector<double> StepsChart::latency_ticks(int count) const {
  std::vector<double> ticks;
  for (int t = 0; t <= count; ++t) ticks.push_back(axis_max_ * t / std::max(count, 1));
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
  char text[256];
  std::snprintf(text, sizeof(text),
                "latency per step: %zu prefill (orange), %zu decode (blue), decode median %.3f ms (red line)",
                prefill_steps(), decode_.steps, decode_.median / 1e6);
  return text;
}

}  // namespace etkit::gui
