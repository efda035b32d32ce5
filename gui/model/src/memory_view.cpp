#include "etkit/gui/memory_view.h"

#include <algorithm>
#include <map>
#include <string>

#include "etkit/gui/timeline_model.h"

#include "etkit/gui/timeline_style.h"

namespace etkit::gui {

namespace {

std::string producer_of(const inspector::TensorLifetime& tensor) {
  return tensor.producer ? *tensor.producer : "(input)";
}

}  // namespace

MemoryViewModel::MemoryViewModel(const inspector::MethodMemory& memory) : memory_(memory) {
  // The legend first: producers by planned bytes, largest first (ties in
  // name order), each taking the next palette colour, so the producers the
  // legend names never share one (hashed names did: convolution and
  // hardtanh were both yellow); past the palette, colours repeat.
  std::map<std::string, uint64_t> by_producer;
  for (const inspector::TensorLifetime& tensor : memory.tensors) {
    if (tensor.first) by_producer[producer_of(tensor)] += tensor.planned.bytes;
  }
  for (const auto& [producer, bytes] : by_producer) legend_.push_back({producer, 0, bytes});
  std::stable_sort(legend_.begin(), legend_.end(),
                   [](const MemoryLegendEntry& a, const MemoryLegendEntry& b) { return a.bytes > b.bytes; });
  std::map<std::string, uint32_t> colour_of;
  for (size_t i = 0; i < legend_.size(); ++i) {
    legend_[i].colour = uint32_t(i % kPaletteSize);
    colour_of[legend_[i].producer] = legend_[i].colour;
  }
  const auto colour = [&colour_of](const inspector::TensorLifetime& tensor) {
    const auto found = colour_of.find(producer_of(tensor));
    return found != colour_of.end() ? found->second : palette_index(producer_of(tensor), kPaletteSize);
  };
  for (const inspector::ArenaUse& use : memory.arenas) {
    ArenaPicture picture;
    picture.arena = use.id;
    picture.size = use.size;
    picture.best_fit = use.best_fit_bytes;
    picture.peak = use.peak_live_bytes;
    picture.live_bytes.assign(memory.instructions, 0);
    // The arena's tensors, re-planned together as analyze_memory did.
    std::vector<inspector::TensorLifetime> arena_tensors;
    std::vector<size_t> index_of;
    for (size_t t = 0; t < memory.tensors.size(); ++t) {
      const inspector::TensorLifetime& tensor = memory.tensors[t];
      if (tensor.planned.arena != use.id) continue;
      arena_tensors.push_back(tensor);
      index_of.push_back(t);
      if (!tensor.first) continue;
      MemoryRect rect{t, *tensor.first, *tensor.last, tensor.planned.offset, tensor.planned.bytes, colour(tensor)};
      picture.planned.push_back(rect);
      for (size_t s = rect.first; s <= rect.last && s < picture.live_bytes.size(); ++s) {
        picture.live_bytes[s] += rect.bytes;
      }
    }
    const std::vector<std::optional<uint64_t>> offsets = inspector::best_fit_offsets(arena_tensors);
    for (size_t i = 0; i < arena_tensors.size(); ++i) {
      if (!offsets[i]) continue;
      const inspector::TensorLifetime& tensor = arena_tensors[i];
      picture.best_fit_plan.push_back(
          {index_of[i], *tensor.first, *tensor.last, *offsets[i], tensor.planned.bytes, colour(tensor)});
    }
    const auto peak = std::max_element(picture.live_bytes.begin(), picture.live_bytes.end());
    if (peak != picture.live_bytes.end()) picture.peak_step = size_t(peak - picture.live_bytes.begin());
    arenas_.push_back(std::move(picture));
  }
}

std::vector<size_t> MemoryViewModel::step_ticks(size_t count) const {
  std::vector<size_t> ticks;
  const size_t steps = memory_.instructions;
  if (steps == 0 || count == 0) return ticks;
  const size_t step = std::max<size_t>(1, size_t(tick_step(double(steps) / double(count), 1)));  // 1, 2, 5 x 10^k
  for (size_t s = 0; s <= steps; s += step) ticks.push_back(s);
  return ticks;
}

std::optional<size_t> MemoryViewModel::hit_test(const ArenaPicture& arena, double step, double byte,
                                                 bool best_fit) const {
  const std::vector<MemoryRect>& rects = best_fit ? arena.best_fit_plan : arena.planned;
  // Later rectangles are drawn over earlier ones: the topmost wins.
  for (size_t i = rects.size(); i-- > 0;) {
    const MemoryRect& r = rects[i];
    if (step >= double(r.first) && step < double(r.last + 1) && byte >= double(r.offset) &&
        byte < double(r.offset + r.bytes)) {
      return r.tensor;
    }
  }
  return std::nullopt;
}

}  // namespace etkit::gui
