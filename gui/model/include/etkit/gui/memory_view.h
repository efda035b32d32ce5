#pragma once
/// @file
/// The memory view's model: per arena of a method, one rectangle per planned
/// tensor (x = steps of its lifetime, y = its bytes in the arena), the
/// bytes alive at each step, and the same tensors as the best-fit planner
/// would place them, so the view can show both plans side by side.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "etkit/inspector/memory_plan.h"

namespace etkit::gui {

struct MemoryRect {
  size_t tensor = 0;  ///< index into MethodMemory::tensors
  size_t first = 0;   ///< covers steps [first, last]
  size_t last = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t colour = 0;  ///< palette index of its producer
};

struct ArenaPicture {
  uint32_t arena = 0;
  uint64_t size = 0;      ///< the program's planned size
  uint64_t best_fit = 0;  ///< the re-plan's size
  uint64_t peak = 0;
  size_t peak_step = 0;              ///< the first step with `peak` bytes alive
  std::vector<MemoryRect> planned;   ///< the program's own offsets
  std::vector<MemoryRect> best_fit_plan;
  std::vector<uint64_t> live_bytes;  ///< per step
};

/// A colour of the plot: the op that produces the tensors drawn in it, and
/// how many bytes of tensors it produces (summed over the method).
struct MemoryLegendEntry {
  std::string producer;  ///< "(input)" for the method's inputs
  uint32_t colour = 0;
  uint64_t bytes = 0;
};

class MemoryViewModel {
 public:
  static constexpr uint32_t kPaletteSize = 16;
  explicit MemoryViewModel(const inspector::MethodMemory& memory);

  const inspector::MethodMemory& memory() const { return memory_; }
  size_t steps() const { return memory_.instructions; }
  const std::vector<ArenaPicture>& arenas() const { return arenas_; }
  /// Producers by the bytes they produce, largest first.
  const std::vector<MemoryLegendEntry>& legend() const { return legend_; }
  /// Round step numbers for the x axis, about `count` of them from 0.
  std::vector<size_t> step_ticks(size_t count) const;

  /// The tensor drawn at (`step`, `byte`) in `arena`'s plan (or its best-fit
  /// plan), if any. Rectangles cover [first, last + 1) × [offset, offset + bytes).
  std::optional<size_t> hit_test(const ArenaPicture& arena, double step, double byte, bool best_fit) const;

 private:
  const inspector::MethodMemory& memory_;
  std::vector<ArenaPicture> arenas_;
  std::vector<MemoryLegendEntry> legend_;
};

}  // namespace etkit::gui
