#include "palette.h"

namespace etkit::gui {
namespace {

// Sixteen light, distinguishable hues that keep black text readable.
constexpr uint32_t kRgb[16] = {0x8dd3c7, 0xfdb462, 0xbebada, 0xfb8072, 0x80b1d3, 0xb3de69, 0xfccde5, 0xbc80bd,
                               0xccebc5, 0xffed6f, 0x9edae5, 0xf7b6d2, 0xc5b0d5, 0xdbdb8d, 0xaec7e8, 0xff9896};

}  // namespace

uint32_t palette_rgb(uint32_t index) { return kRgb[index % 16]; }

uint32_t palette_colour(uint32_t index, uint8_t alpha) {
  const uint32_t rgb = palette_rgb(index);
  return (uint32_t(alpha) << 24) | ((rgb & 0xff) << 16) | (rgb & 0xff00) | ((rgb >> 16) & 0xff);
}

}  // namespace etkit::gui
