#pragma once
// The colours every canvas draws with: one palette, so an op type has the
// same colour in the timeline, the memory view and the legend.

#include <cstdint>

namespace etkit::gui {

/// Palette colour `index` (mod 16) as ImGui's packed ABGR.
uint32_t palette_colour(uint32_t index, uint8_t alpha = 255);
/// The same as 0xRRGGBB, for Qt.
uint32_t palette_rgb(uint32_t index);

/// The canvases' text and label colour, as ImGui's packed ABGR (near-black:
/// IM_COL32(20, 20, 20, 255)).
inline constexpr uint32_t kCanvasText = 0xFF141414u;

}  // namespace etkit::gui
