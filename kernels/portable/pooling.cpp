// max_pool2d_with_indices, avg_pool2d and _adaptive_avg_pool2d over
// 3-D (C, H, W) or 4-D (N, C, H, W) inputs in any dim order.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {
namespace {

struct PoolGeometry {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

// ATen's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t numerator = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / stride : -((-numerator + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

Status read_geometry(KernelContext& context, Span<Value*> args, size_t first, bool has_dilation,
                     PoolGeometry& g) {
  IntList kernel, stride, padding, dilation;
  ETKIT_TRY(int_list_arg(context, args, first, kernel));
  ETKIT_TRY(int_list_arg(context, args, first + 1, stride));
  ETKIT_TRY(int_list_arg(context, args, first + 2, padding));
  if (has_dilation) ETKIT_TRY(int_list_arg(context, args, first + 3, dilation));
  ETKIT_KERNEL_CHECK(context, kernel.size == 1 || kernel.size == 2,
                     "kernel_size must either be a single int, or a tuple of two ints");
  g.kh = kernel[0];
  g.kw = kernel.size == 2 ? kernel[1] : kernel[0];
  g.sh = stride.size == 0 ? g.kh : stride[0];
  g.sw = stride.size == 0 ? g.kw : (stride.size == 2 ? stride[1] : stride[0]);
  g.ph = padding.size == 0 ? 0 : padding[0];
  g.pw = padding.size == 0 ? 0 : (padding.size == 2 ? padding[1] : padding[0]);
  if (has_dilation && dilation.size > 0) {
    g.dh = dilation[0];
    g.dw = dilation.size == 2 ? dilation[1] : dilation[0];
  }
  ETKIT_KERNEL_CHECK(context, g.kh > 0 && g.kw > 0 && g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0,
                     "kernel size, stride and dilation must be greater than zero");
  ETKIT_KERNEL_CHECK(context, g.ph >= 0 && g.pw >= 0 && g.ph <= g.kh / 2 && g.pw <= g.kw / 2,
                     "pad should be at most half of the effective kernel size");
  return Ok{};
}

// (n, c, h, w) sizes and strides of a 3-D or 4-D tensor (n = 1 for 3-D).
struct Layout4 {
  int64_t size[4], stride[4];
};
Layout4 layout(const Tensor& t) {
  Layout4 l{};
  const int lead = 4 - t.dim();
  for (int d = 0; d < 4; ++d) {
    l.size[d] = d < lead ? 1 : t.size(d - lead);
    l.stride[d] = d < lead ? 0 : t.stride(d - lead);
  }
  return l;
}

// Sum of the window [h0, h1) x [w0, w1) of plane (n, c).
template <typename T>
T window_sum(const T* x, const Layout4& l, int64_t n, int64_t c, int64_t h0, int64_t h1, int64_t w0,
             int64_t w1) {
  T sum = 0;
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w) sum += x[n * l.stride[0] + c * l.stride[1] + h * l.stride[2] + w * l.stride[3]];
  return sum;
}

Status resize_pooled(KernelContext& context, const Tensor& in, int64_t oh, int64_t ow, Tensor& out) {
  int64_t sizes[4];
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  sizes[in.dim() - 2] = oh;
  sizes[in.dim() - 1] = ow;
  return resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim())));
}

// One max_pool2d_with_indices call's planes: input, output and index
// layouts, the window geometry and the output size.
struct MaxPoolPlanes {
  Layout4 in, out, indices;
  PoolGeometry g;
  int64_t oh, ow;
};

// The rows [hstart, hend) a window starting at row (or column) `start` covers
// inside a size-`extent` input, the start stepped past the padding.
struct WindowSpan {
  int64_t start, end;
};
WindowSpan window_span(int64_t start, int64_t k, int64_t dilation, int64_t extent) {
  const int64_t end = std::min(start + (k - 1) * dilation + 1, extent);
  while (start < 0) start += dilation;
  return {start, end};
}

// ATen's rule for a window's maximum: a value replaces the best when it is
// greater or NaN (so the last NaN wins); ties keep the first; a window of
// -inf (or of the type's lowest) gives its first position.
template <typename T>
void max_window(const T* plane, const MaxPoolPlanes& p, WindowSpan rows, WindowSpan columns, T& value, int64_t& index) {
  const int64_t iw = p.in.size[3];
  int64_t best_index = rows.start * iw + columns.start;
  T best = std::numeric_limits<T>::lowest();
  if constexpr (std::is_floating_point_v<T>) best = -INFINITY;
  for (int64_t h = rows.start; h < rows.end; h += p.g.dh)
    for (int64_t w = columns.start; w < columns.end; w += p.g.dw) {
      const T v = plane[h * p.in.stride[2] + w * p.in.stride[3]];
      bool take = v > best;
      if constexpr (std::is_floating_point_v<T>) take = take || std::isnan(v);
      if (take) {
        best = v;
        best_index = h * iw + w;
      }
    }
  value = best;
  index = best_index;
}

// Output columns [lo, hi) whose windows lie wholly inside the input row.
WindowSpan interior_columns(const MaxPoolPlanes& p) {
  const PoolGeometry& g = p.g;
  const int64_t lo = std::min(p.ow, (g.pw + g.sw - 1) / g.sw);
  const int64_t last = p.in.size[3] - 1 + g.pw - (g.kw - 1) * g.dw;  // the largest x0 * sw allowed
  const int64_t hi = last < 0 ? 0 : std::min(p.ow, last / g.sw + 1);
  return {lo, std::max(lo, hi)};
}

// Whether rows may take the eight-wide path: its indices are 32-bit lanes.
bool max_pool_rows_vectorize(const MaxPoolPlanes& p) {
  return p.in.size[2] * p.in.size[3] < (int64_t{1} << 31);
}

// Eight interior outputs of a row at a time, from `interior.start` while
// eight fit before `interior.end`, by max_window's rule lane by lane (a
// lane takes a value greater than its best, or NaN); the row's last eight
// interior outputs once more where fewer remain (an output is a function
// of the input alone: written twice, the same bytes). Returns the first
// column it left.
__attribute__((always_inline)) inline int64_t max_pool_interior_body(const MaxPoolPlanes& p, const float* plane,
                                                                     WindowSpan rows, WindowSpan interior,
                                                                     float* out_row, int64_t* index_row) {
  const PoolGeometry& g = p.g;
  const int64_t iw = p.in.size[3], step = g.sw * p.in.stride[3];
  const Int8 lane_columns = Int8{0, 1, 2, 3, 4, 5, 6, 7} * int32_t(g.sw);
  const bool dense = p.out.stride[3] == 1 && p.indices.stride[3] == 1;
  int64_t x0 = interior.start;
  for (bool last = false; !last; x0 += 8) {
    if (x0 + 8 > interior.end) {
      if (x0 == interior.end || interior.end - interior.start < 8) break;
      x0 = interior.end - 8;
      last = true;
    }
    const int64_t w0 = x0 * g.sw - g.pw;
    Float8 best = splat(-INFINITY);
    Int8 best_index = int32_t(rows.start * iw + w0) + lane_columns;
    for (int64_t h = rows.start; h < rows.end; h += g.dh) {
      for (int64_t kw = 0; kw < g.kw; ++kw) {
        const int64_t w = w0 + kw * g.dw;
        const float* src = plane + h * p.in.stride[2] + w * p.in.stride[3];
        Float8 v;
        if (step == 1) {
          std::memcpy(&v, src, sizeof v);
        } else if (step == 2 && p.in.stride[3] == 1 && w + 15 < iw) {
          Float8 first, second;  // two registers (an array would go through the stack)
          std::memcpy(&first, src, sizeof first);
          std::memcpy(&second, src + 8, sizeof second);
          v = __builtin_shufflevector(first, second, 0, 2, 4, 6, 8, 10, 12, 14);
        } else {
          for (int lane = 0; lane < 8; ++lane) v[lane] = src[lane * step];
        }
        const Int8 take = (v > best) | (v != v);
        best = take ? v : best;
        best_index = take ? int32_t(h * iw + w) + lane_columns : best_index;
      }
    }
    if (dense) {
      typedef int64_t Long4 __attribute__((vector_size(32)));
      const Long4 low = __builtin_convertvector(__builtin_shufflevector(best_index, best_index, 0, 1, 2, 3), Long4);
      const Long4 high = __builtin_convertvector(__builtin_shufflevector(best_index, best_index, 4, 5, 6, 7), Long4);
      store8(out_row + x0, best);
      std::memcpy(index_row + x0, &low, sizeof low);
      std::memcpy(index_row + x0 + 4, &high, sizeof high);
      continue;
    }
    for (int lane = 0; lane < 8; ++lane) {
      out_row[(x0 + lane) * p.out.stride[3]] = best[lane];
      index_row[(x0 + lane) * p.indices.stride[3]] = best_index[lane];
    }
  }
  return std::max(x0, interior.start);
}

ETKIT_AVX2_FMA int64_t max_pool_interior_avx2(const MaxPoolPlanes& p, const float* plane, WindowSpan rows,
                                              WindowSpan interior, float* out_row, int64_t* index_row) {
  return max_pool_interior_body(p, plane, rows, interior, out_row, index_row);
}

int64_t max_pool_interior(const MaxPoolPlanes& p, const float* plane, WindowSpan rows, WindowSpan interior,
                          float* out_row, int64_t* index_row) {
  if (cpu_has_avx2_fma()) return max_pool_interior_avx2(p, plane, rows, interior, out_row, index_row);
  return max_pool_interior_body(p, plane, rows, interior, out_row, index_row);
}

// Plane (n, c): each row's edge windows one by one, its interior eight at a
// time where the type is float.
template <typename T>
void max_pool_plane(const MaxPoolPlanes& p, int64_t n, int64_t c, const T* x, T* y, int64_t* idx) {
  const T* plane = x + n * p.in.stride[0] + c * p.in.stride[1];
  T* out = y + n * p.out.stride[0] + c * p.out.stride[1];
  int64_t* indices = idx + n * p.indices.stride[0] + c * p.indices.stride[1];
  const WindowSpan interior = interior_columns(p);
  bool vectorize = false;
  if constexpr (std::is_same_v<T, float>) vectorize = max_pool_rows_vectorize(p);
  for (int64_t y0 = 0; y0 < p.oh; ++y0) {
    const WindowSpan rows = window_span(y0 * p.g.sh - p.g.ph, p.g.kh, p.g.dh, p.in.size[2]);
    T* out_row = out + y0 * p.out.stride[2];
    int64_t* index_row = indices + y0 * p.indices.stride[2];
    const auto one_by_one = [&](int64_t from, int64_t to) {
      for (int64_t x0 = from; x0 < to; ++x0) {
        const WindowSpan columns = window_span(x0 * p.g.sw - p.g.pw, p.g.kw, p.g.dw, p.in.size[3]);
        max_window(plane, p, rows, columns, out_row[x0 * p.out.stride[3]], index_row[x0 * p.indices.stride[3]]);
      }
    };
    int64_t next = 0;
    if constexpr (std::is_same_v<T, float>) {
      if (vectorize) {
        one_by_one(0, interior.start);
        next = max_pool_interior(p, plane, rows, interior, out_row, index_row);
      }
    }
    one_by_one(next, p.ow);
  }
}

Status max_pool2d_with_indices_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 6);
  Tensor& indices = tensor_arg(args, 7);
  ETKIT_KERNEL_CHECK(context, in.dim() == 3 || in.dim() == 4, "expected 3-D or 4-D input");
  ETKIT_KERNEL_CHECK(context, indices.scalar_type() == ScalarType::kLong,
                     "indices must be int64");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  PoolGeometry g;
  ETKIT_TRY(read_geometry(context, args, 1, true, g));
  g.ceil_mode = bool_arg(args, 5);
  const int64_t ih = in.size(in.dim() - 2), iw = in.size(in.dim() - 1);
  const int64_t oh = pooled_size(ih, g.kh, g.ph, g.sh, g.dh, g.ceil_mode);
  const int64_t ow = pooled_size(iw, g.kw, g.pw, g.sw, g.dw, g.ceil_mode);
  ETKIT_KERNEL_CHECK(context, oh > 0 && ow > 0, "output size is too small (%lldx%lld)",
                     (long long)oh, (long long)ow);
  ETKIT_TRY(resize_pooled(context, in, oh, ow, out));
  ETKIT_TRY(resize_pooled(context, in, oh, ow, indices));
  const Layout4 li = layout(in), lo = layout(out), lx = layout(indices);
  const MaxPoolPlanes planes{li, lo, lx, g, oh, ow};
  ETKIT_TRY(dispatch_real(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    int64_t* idx = indices.data_as<int64_t>();
    // Each plane is computed the same way whichever worker has it.
    for_each_plane(context, li.size[0], li.size[1], oh * ow * g.kh * g.kw,
                   [&](int64_t n, int64_t c) { max_pool_plane(planes, n, c, x, y, idx); });
  }));
  return Ok{};
}

// What avg_pool2d divides a window's sum by: divisor_override when set,
// else the window's size with or without its padding.
struct AverageRule {
  int64_t divisor = 0;  // 0: none
  bool count_include_pad = false;
};

// The average of output (y0, x0)'s window of plane (n, c); 0 for a window
// wholly in the padding.
template <typename T>
T window_average(const T* x, const Layout4& li, const PoolGeometry& g, int64_t n, int64_t c, int64_t y0, int64_t x0,
                 const AverageRule& rule) {
  const int64_t ih = li.size[2], iw = li.size[3];
  int64_t hstart = y0 * g.sh - g.ph, wstart = x0 * g.sw - g.pw;
  int64_t hend = std::min(hstart + g.kh, ih + g.ph);
  int64_t wend = std::min(wstart + g.kw, iw + g.pw);
  const int64_t pool_size = (hend - hstart) * (wend - wstart);
  hstart = std::max<int64_t>(hstart, 0);
  wstart = std::max<int64_t>(wstart, 0);
  hend = std::min(hend, ih);
  wend = std::min(wend, iw);
  if (hstart >= hend || wstart >= wend) return T(0);
  const T sum = window_sum(x, li, n, c, hstart, hend, wstart, wend);
  const int64_t factor = rule.divisor           ? rule.divisor
                         : rule.count_include_pad ? pool_size
                                                  : (hend - hstart) * (wend - wstart);
  if constexpr (std::is_integral_v<T>) {
    // INT64_MIN / -1 traps on x86: negate instead (wrapping).
    return factor == -1 ? T(0) - sum : sum / T(factor);
  } else {
    return sum / T(factor);
  }
}

// avg_pool2d.out(self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override?, out).
Status avg_pool2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const bool count_include_pad = bool_arg(args, 5);
  const int64_t divisor = args[6]->is_none() ? 0 : int_arg(args, 6);
  Tensor& out = tensor_arg(args, 7);
  ETKIT_KERNEL_CHECK(context, in.dim() == 3 || in.dim() == 4, "expected 3-D or 4-D input");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  ETKIT_KERNEL_CHECK(context, args[6]->is_none() || divisor != 0, "divisor must be not zero");
  PoolGeometry g;
  ETKIT_TRY(read_geometry(context, args, 1, false, g));
  g.ceil_mode = bool_arg(args, 4);
  const int64_t ih = in.size(in.dim() - 2), iw = in.size(in.dim() - 1);
  const int64_t oh = pooled_size(ih, g.kh, g.ph, g.sh, 1, g.ceil_mode);
  const int64_t ow = pooled_size(iw, g.kw, g.pw, g.sw, 1, g.ceil_mode);
  ETKIT_KERNEL_CHECK(context, oh > 0 && ow > 0, "output size is too small");
  ETKIT_TRY(resize_pooled(context, in, oh, ow, out));
  const Layout4 li = layout(in), lo = layout(out);
  // float32, float64 and int64, the dtypes ATen's CPU kernel has (int64
  // divides as C++ does, truncating, as ATen's).
  const auto dispatch = [&](auto&& f) {
    if (in.scalar_type() == ScalarType::kLong) {
      f(int64_t{});
      return true;
    }
    return visit_floating(in.scalar_type(), f);
  };
  const bool known = dispatch([&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    const AverageRule rule{divisor, count_include_pad};
    for (int64_t n = 0; n < li.size[0]; ++n)
      for (int64_t c = 0; c < li.size[1]; ++c)
        for (int64_t y0 = 0; y0 < oh; ++y0)
          for (int64_t x0 = 0; x0 < ow; ++x0) {
            y[n * lo.stride[0] + c * lo.stride[1] + y0 * lo.stride[2] + x0 * lo.stride[3]] =
                window_average(x, li, g, n, c, y0, x0, rule);
          }
  });
  ETKIT_KERNEL_CHECK(context, known, "avg_pool2d supports float32, float64 and int64, got %s",
                     to_string(in.scalar_type()));
  return Ok{};
}

Status adaptive_avg_pool2d_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, (in.dim() == 3 || in.dim() == 4) && size.size == 2,
                     "expected 3-D or 4-D input and a 2-element output_size");
  const int64_t ih = in.size(in.dim() - 2), iw = in.size(in.dim() - 1);
  const int64_t oh = size[0], ow = size[1];
  ETKIT_KERNEL_CHECK(context, oh > 0 && ow > 0, "output size must be positive");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(), "out dtype must match input");
  ETKIT_TRY(resize_pooled(context, in, oh, ow, out));
  const Layout4 li = layout(in), lo = layout(out);
  ETKIT_TRY(dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    for (int64_t n = 0; n < li.size[0]; ++n)
      for (int64_t c = 0; c < li.size[1]; ++c)
        for (int64_t y0 = 0; y0 < oh; ++y0) {
          const int64_t h0 = (y0 * ih) / oh, h1 = ((y0 + 1) * ih + oh - 1) / oh;
          for (int64_t x0 = 0; x0 < ow; ++x0) {
            const int64_t w0 = (x0 * iw) / ow, w1 = ((x0 + 1) * iw + ow - 1) / ow;
            const T sum = window_sum(x, li, n, c, h0, h1, w0, w1);
            y[n * lo.stride[0] + c * lo.stride[1] + y0 * lo.stride[2] + x0 * lo.stride[3]] =
                sum / T((h1 - h0) * (w1 - w0));
          }
        }
  }));
  return Ok{};
}

}  // namespace

void register_pooling(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::max_pool2d_with_indices.out", "TIIIIbWWM",
                        max_pool2d_with_indices_out);
  ETKIT_REGISTER_KERNEL(r, "aten::avg_pool2d.out", "TIIIbbnWW", avg_pool2d_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_adaptive_avg_pool2d.out", "TIWW", adaptive_avg_pool2d_out);
}

}  // namespace etkit::kernels
