// grid_sampler_2d.out(input, grid, interpolation_mode, padding_mode,
// align_corners, out): input [N, C, H, W] sampled at grid [N, Ho, Wo, 2]
// (x, y in [-1, 1]) into [N, C, Ho, Wo]. Modes as ATen numbers them:
// interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
// 1 border, 2 reflection.

#include <cmath>

#include "view_util.h"

namespace etkit::kernels {
namespace {

enum Interpolation { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding { kZeros = 0, kBorder = 1, kReflection = 2 };

template <typename T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + T(1)) / T(2) * T(size - 1) : ((coord + T(1)) * T(size) - T(1)) / T(2);
}

// Mirrors `in` into [twice_low / 2, twice_high / 2].
template <typename T>
T reflect(T in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T min = T(twice_low) / T(2), span = T(twice_high - twice_low) / T(2);
  in = std::fabs(in - min);
  const T extra = std::fmod(in, span);
  const int64_t flips = int64_t(std::floor(in / span));
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

template <typename T>
T clip(T in, int64_t size) {
  return std::min(T(size - 1), std::max(in, T(0)));
}

// Applies the padding mode to an unnormalized coordinate.
template <typename T>
T pad_coordinate(T coord, int64_t size, int padding, bool align_corners) {
  if (padding == kBorder) return clip(coord, size);
  if (padding == kReflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

template <typename T>
T cubic1(T x, T a) { return ((a + T(2)) * x - (a + T(3))) * x * x + T(1); }
template <typename T>
T cubic2(T x, T a) { return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a; }

struct Plane {
  int64_t h, w, sh, sw;
};

// The input positions and weights one grid point reads (up to 4x4 for
// bicubic); a position outside the plane reads zero, so it is dropped.
// Bicubic keeps all 16 positions (-1: outside) and its 1-D weights, to sum
// rows then columns in ATen's order.
template <typename T>
struct Taps {
  int count = 0;
  int64_t offset[16];
  T weight[16];
  bool bicubic = false;
  T cx[4], cy[4];
  void add(const Plane& p, int64_t y, int64_t x, T w) {
    const bool inside = y >= 0 && y < p.h && x >= 0 && x < p.w;
    if (!inside && !bicubic) return;
    offset[count] = inside ? y * p.sh + x * p.sw : -1;
    weight[count++] = w;
  }
  T apply(const T* channel) const {
    T sum = 0;
    if (!bicubic) {
      for (int k = 0; k < count; ++k) sum += weight[k] * channel[offset[k]];
      return sum;
    }
    for (int j = 0; j < 4; ++j) {
      T row = 0;
      for (int i = 0; i < 4; ++i) {
        const int64_t at = offset[j * 4 + i];
        row += cx[i] * (at < 0 ? T(0) : channel[at]);
      }
      sum += cy[j] * row;
    }
    return sum;
  }
};

template <typename T>
Taps<T> point_taps(const Plane& p, T gx, T gy, int mode, int padding, bool align_corners) {
  Taps<T> taps;
  T x = unnormalize(gx, p.w, align_corners), y = unnormalize(gy, p.h, align_corners);
  if (mode == kBicubic) {
    const T x0 = std::floor(x), y0 = std::floor(y);
    const T tx = x - x0, ty = y - y0;
    const T a = T(-0.75);
    taps.bicubic = true;
    const T cx[4] = {cubic2(tx + T(1), a), cubic1(tx, a), cubic1(T(1) - tx, a), cubic2(T(2) - tx, a)};
    const T cy[4] = {cubic2(ty + T(1), a), cubic1(ty, a), cubic1(T(1) - ty, a), cubic2(T(2) - ty, a)};
    for (int k = 0; k < 4; ++k) {
      taps.cx[k] = cx[k];
      taps.cy[k] = cy[k];
    }
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) {
        // Each tap is padded on its own, as ATen's get_value_bounded.
        const T px = pad_coordinate(x0 - T(1) + T(i), p.w, padding, align_corners);
        const T py = pad_coordinate(y0 - T(1) + T(j), p.h, padding, align_corners);
        taps.add(p, int64_t(py), int64_t(px), T(0));
      }
    }
    return taps;
  }
  x = pad_coordinate(x, p.w, padding, align_corners);
  y = pad_coordinate(y, p.h, padding, align_corners);
  if (mode == kNearest) {
    taps.add(p, int64_t(std::nearbyint(y)), int64_t(std::nearbyint(x)), T(1));
    return taps;
  }
  const T x0 = std::floor(x), y0 = std::floor(y);
  const T x1 = x0 + T(1), y1 = y0 + T(1);
  const int64_t ix = int64_t(x0), iy = int64_t(y0);
  taps.add(p, iy, ix, (x1 - x) * (y1 - y));
  taps.add(p, iy, ix + 1, (x - x0) * (y1 - y));
  taps.add(p, iy + 1, ix, (x1 - x) * (y - y0));
  taps.add(p, iy + 1, ix + 1, (x - x0) * (y - y0));
  return taps;
}

Status grid_sampler_2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor& grid = tensor_arg(args, 1);
  const int64_t mode = int_arg(args, 2), padding = int_arg(args, 3);
  const bool align_corners = bool_arg(args, 4);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_TRY(check_same_dtype(context, grid, out));
  ETKIT_KERNEL_CHECK(context, in.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == in.size(0),
                     "grid_sampler_2d expects input [N, C, H, W] and grid [N, H_out, W_out, 2], got %s and %s",
                     format_sizes(in.sizes()).c_str(), format_sizes(grid.sizes()).c_str());
  ETKIT_KERNEL_CHECK(context, mode >= 0 && mode <= 2, "interpolation_mode must be 0, 1 or 2, got %lld",
                     (long long)mode);
  ETKIT_KERNEL_CHECK(context, padding >= 0 && padding <= 2, "padding_mode must be 0, 1 or 2, got %lld",
                     (long long)padding);
  const int64_t sizes[4] = {in.size(0), in.size(1), grid.size(1), grid.size(2)};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 4)));
  const Plane plane{in.size(2), in.size(3), in.stride(2), in.stride(3)};
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* g = grid.data_as<const T>();
    T* y = out.data_as<T>();
    for (int64_t n = 0; n < sizes[0]; ++n) {
      for (int64_t h = 0; h < sizes[2]; ++h) {
        for (int64_t w = 0; w < sizes[3]; ++w) {
          const T* point = g + n * grid.stride(0) + h * grid.stride(1) + w * grid.stride(2);
          const Taps<T> taps = point_taps(plane, point[0], point[grid.stride(3)], int(mode), int(padding),
                                          align_corners);
          // The taps once per point, then every channel reads them.
          const T* src = in.data_as<const T>() + n * in.stride(0);
          T* dst = y + n * out.stride(0) + h * out.stride(2) + w * out.stride(3);
          for (int64_t c = 0; c < sizes[1]; ++c) {
            dst[c * out.stride(1)] = taps.apply(src + c * in.stride(1));
          }
        }
      }
    }
  });
}

}  // namespace

void register_grid_sampler(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::grid_sampler_2d.out", "TTiibWW", grid_sampler_2d_out);
}

}  // namespace etkit::kernels
