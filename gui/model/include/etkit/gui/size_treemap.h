#pragma once
// The size view's layout: a part of `etinspect size`'s tree drawn as a
// squarified treemap (rectangles with areas proportional to bytes, close to
// square), its parts nested a few levels deep.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/inspector/file_size.h"

namespace etkit::gui {

struct TreemapRect {
  double x = 0, y = 0, w = 0, h = 0;
  double area() const { return w * h; }
};

struct TreemapCell {
  const inspector::SizePart* part = nullptr;
  std::string path;  ///< from the laid-out node, "segments/constants"
  int depth = 0;     ///< 1 for the node's parts, 2 for theirs, …
  TreemapRect rect;
  size_t top = 0;    ///< index of the depth-1 part it lies in (its colour)
};

/// Lays out `node`'s parts (and theirs, down to `depth` levels) in `bounds`,
/// parents before children. Parts of 0 bytes get no cell.
std::vector<TreemapCell> layout_treemap(const inspector::SizePart& node, TreemapRect bounds, int depth);

/// The part at `path` below `root` ("" is root), or null.
const inspector::SizePart* find_part(const inspector::SizePart& root, const std::string& path);

}  // namespace etkit::gui
