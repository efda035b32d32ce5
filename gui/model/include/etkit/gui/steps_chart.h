#pragma once
/// @file
/// The Steps view's chart, decided without a display: the steps of a traced
/// generation with the decode phase's summary (the inspector's, as
/// `etinspect steps` prints it), the latency axis, the steps labelled along
/// x, and which step a point falls on. The canvas draws what this says.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "etkit/inspector/generation_steps.h"

namespace etkit::gui {

class StepsChart {
 public:
  StepsChart() = default;
  explicit StepsChart(std::vector<inspector::GenerationStepTiming> steps);

  const std::vector<inspector::GenerationStepTiming>& steps() const { return steps_; }
  const inspector::PhaseSummary& decode() const { return decode_; }
  size_t prefill_steps() const { return steps_.size() - decode_.steps; }

  /// The latency axis' top: the first round tick at least 10% above the
  /// slowest step (1 with no steps) — steps over three times the 75th
  /// percentile left out (outliers that would flatten every other bar:
  /// they are drawn clipped).
  double axis_max() const { return axis_max_; }
  /// The spacing of the latency ticks: 1, 2 or 5 x 10^k ns, at most six
  /// intervals up to the axis' top.
  double tick_step() const { return tick_step_; }
  /// Whether a step of `latency` is drawn clipped at the axis' top.
  bool clipped(double latency) const;
  size_t clipped_steps() const { return clipped_; }
  /// A latency's height as a fraction of the axis, in [0, 1].
  double height_fraction(double latency) const;
  /// The round latencies from 0 to the axis' top, tick_step() apart.
  std::vector<double> latency_ticks() const;
  /// The step drawn at `fraction` ([0, 1)) of the way across the plot;
  /// nullopt outside it or with no steps.
  std::optional<size_t> step_at(double fraction) const;
  /// Label every Nth step so labels are at least `min_pixels` apart when a
  /// step is `bar_pixels` wide (at least 1).
  size_t label_every(double bar_pixels, double min_pixels) const;
  /// "latency per step: 4 prefill (orange), 11 decode (blue), decode median 1.234 ms (red)", and
  /// "; 2 clipped (^, up to 20.000 ms)" when steps are clipped.
  std::string title() const;

 private:
  std::vector<inspector::GenerationStepTiming> steps_;
  inspector::PhaseSummary decode_;
  double axis_max_ = 1;
  double tick_step_ = 1;
  size_t clipped_ = 0;
  double slowest_ = 0;
};

}  // namespace etkit::gui
