// Resampling: upsample_bilinear2d (vec), _upsample_bilinear2d_aa (the
// antialiased, separable form) and grid_sampler_2d (bilinear, nearest and
// bicubic, with zeros, border and reflection padding). Inputs are NCHW in
// any dim order; per-column source indices and weights are computed once
// per call into the kernel scratch.

#include <algorithm>
#include <cmath>

#include "etkit/kernels/parallel.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

// ATen's area_pixel_compute_scale and area_pixel_compute_source_index (for
// linear modes: half-pixel centres unless align_corners, clamped at 0), in
// the compute type T as ATen's (float for float32, double for float64).
template <typename T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, double given_scale) {
  if (align_corners) return out > 1 ? T(in - 1) / T(out - 1) : T(0);
  return given_scale > 0 ? T(1.0 / given_scale) : T(in) / T(out);
}
template <typename T>
T source_position(T scale, int64_t i, bool align_corners) {
  if (align_corners) return scale * T(i);
  const T s = scale * (T(i) + T(0.5)) - T(0.5);
  return s < 0 ? T(0) : s;
}

// Two taps of linear interpolation along one dim.
template <typename T>
struct Taps {
  int64_t i0, i1;
  T w0, w1;
};
template <typename T>
Taps<T> linear_taps(T scale, int64_t i, int64_t in, int64_t out, bool align_corners) {
  Taps<T> t;
  if (in == out) {  // ATen copies when the size does not change
    t.i0 = t.i1 = i;
    t.w0 = 1;
    t.w1 = 0;
    return t;
  }
  const T s = source_position(scale, i, align_corners);
  t.i0 = std::min(int64_t(s), in - 1);
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.w1 = std::min(std::max(s - T(t.i0), T(0)), T(1));
  t.w0 = T(1) - t.w1;
  return t;
}

struct Resize {
  int64_t oh = 0, ow = 0;
  double scale_h = 0, scale_w = 0;  // as given (scale factors), 0 when not
};

Status check_nchw(KernelContext& context, const Tensor& in, const Tensor& out) {
  ETKIT_KERNEL_CHECK(context, in.dim() == 4, "expected a 4-D (NCHW) input, got %d-D", in.dim());
  ETKIT_TRY(check_same_dtype(context, in, out));
  return Ok{};
}

Status bilinear_into(KernelContext& context, const Tensor& in, const Resize& r, bool align_corners,
                     Tensor& out) {
  ETKIT_KERNEL_CHECK(context, r.oh > 0 && r.ow > 0, "output size must be positive, got %lldx%lld",
                     (long long)r.oh, (long long)r.ow);
  const int64_t sizes[4] = {in.size(0), in.size(1), r.oh, r.ow};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 4)));
  const int64_t ih = in.size(2), iw = in.size(3);
  ETKIT_KERNEL_CHECK(context, ih > 0 && iw > 0, "input of size %lldx%lld cannot be resampled",
                     (long long)ih, (long long)iw);
  ETKIT_KERNEL_CHECK(context, size_t(r.ow) * sizeof(Taps<double>) <= context.scratch.size(),
                     "output width %lld exceeds the kernel scratch", (long long)r.ow);
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    Taps<T>* columns = reinterpret_cast<Taps<T>*>(context.scratch.data());
    const T sh = pixel_scale<T>(ih, r.oh, align_corners, r.scale_h);
    const T sw = pixel_scale<T>(iw, r.ow, align_corners, r.scale_w);
    for (int64_t x = 0; x < r.ow; ++x) columns[x] = linear_taps(sw, x, iw, r.ow, align_corners);
    const T* src = in.data_as<const T>();
    T* dst = out.data_as<T>();
    const int64_t s2 = in.stride(2), s3 = in.stride(3), o2 = out.stride(2), o3 = out.stride(3);
    // Planes over the workers (each computed alone, so any split gives the
    // same bits); the column taps are only read.
    for_each_plane(context, sizes[0], sizes[1], r.oh * r.ow, [&](int64_t n, int64_t c) {
      const T* plane = src + n * in.stride(0) + c * in.stride(1);
      T* target = dst + n * out.stride(0) + c * out.stride(1);
      for (int64_t y = 0; y < r.oh; ++y) {
        const Taps<T> row = linear_taps(sh, y, ih, r.oh, align_corners);
        const T* r0 = plane + row.i0 * s2;
        const T* r1 = plane + row.i1 * s2;
        T* line = target + y * o2;
        for (int64_t x = 0; x < r.ow; ++x) {
          const Taps<T>& t = columns[x];
          line[x * o3] = row.w0 * (t.w0 * r0[t.i0 * s3] + t.w1 * r0[t.i1 * s3]) +
                         row.w1 * (t.w0 * r1[t.i0 * s3] + t.w1 * r1[t.i1 * s3]);
        }
      }
    });
  });
}

// upsample_bilinear2d.vec_out(input, output_size?, align_corners,
// scale_factors?, out).
Status upsample_bilinear2d_vec_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const bool align_corners = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_nchw(context, in, out));
  Resize r;
  if (!args[1]->is_none()) {
    IntList size;
    ETKIT_TRY(int_list_arg(context, args, 1, size));
    ETKIT_KERNEL_CHECK(context, size.size == 2, "output_size must have 2 elements, got %zu", size.size);
    ETKIT_KERNEL_CHECK(context, args[3]->is_none(), "must specify exactly one of output_size and scale_factors");
    r.oh = size[0];
    r.ow = size[1];
  } else {
    ETKIT_KERNEL_CHECK(context, !args[3]->is_none() && args[3]->double_list().size() == 2,
                       "must specify exactly one of output_size and scale_factors (2 values)");
    const auto scales = args[3]->double_list();
    r.scale_h = scales[0];
    r.scale_w = scales[1];
    r.oh = int64_t(std::floor(double(in.size(2)) * scales[0]));
    r.ow = int64_t(std::floor(double(in.size(3)) * scales[1]));
  }
  return bilinear_into(context, in, r, align_corners, out);
}

// Antialiased weights of one output index (ATen's triangle filter widened
// by the downscale factor), normalized to sum 1; returns the first tap.
int64_t aa_weights(double scale, int64_t i, int64_t in, double* w, int64_t& count) {
  const double support = scale >= 1.0 ? scale : 1.0;  // bilinear: half-width 1
  const double center = scale * (double(i) + 0.5);
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  const int64_t first = std::max<int64_t>(int64_t(center - support + 0.5), 0);
  count = std::min<int64_t>(int64_t(center + support + 0.5), in) - first;
  double total = 0;
  for (int64_t j = 0; j < count; ++j) {
    const double x = std::fabs((double(j + first) - center + 0.5) * invscale);
    w[j] = x < 1.0 ? 1.0 - x : 0.0;
    total += w[j];
  }
  if (total != 0) {
    for (int64_t j = 0; j < count; ++j) w[j] /= total;
  }
  return first;
}

// _upsample_bilinear2d_aa.out(self, output_size, align_corners, scales_h?,
// scales_w?, out): the separable antialiased resize, width first, then
// height, through a float buffer in the scratch.
Status upsample_bilinear2d_aa_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList size;
  ETKIT_TRY(int_list_arg(context, args, 1, size));
  const bool align_corners = bool_arg(args, 2);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_TRY(check_nchw(context, in, out));
  ETKIT_KERNEL_CHECK(context, size.size == 2, "output_size must have 2 elements, got %zu", size.size);
  const int64_t ih = in.size(2), iw = in.size(3), oh = size[0], ow = size[1];
  ETKIT_KERNEL_CHECK(context, oh > 0 && ow > 0 && ih > 0 && iw > 0, "sizes must be positive");
  const int64_t sizes[4] = {in.size(0), in.size(1), oh, ow};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 4)));
  const double sh = pixel_scale<double>(ih, oh, align_corners, args[3]->is_none() ? 0 : double_arg(args, 3));
  const double sw = pixel_scale<double>(iw, ow, align_corners, args[4]->is_none() ? 0 : double_arg(args, 4));
  const int64_t taps_h = int64_t(std::ceil(std::max(sh, 1.0))) * 2 + 2;
  const int64_t taps_w = int64_t(std::ceil(std::max(sw, 1.0))) * 2 + 2;
  // Scratch: per output column its first tap, count and weights; then one
  // plane resized in width (ih x ow floats).
  const size_t column_bytes = size_t(ow) * (2 * sizeof(int64_t) + size_t(taps_w) * sizeof(double));
  const size_t plane_bytes = size_t(ih) * size_t(ow) * sizeof(double);
  ETKIT_KERNEL_CHECK(context, column_bytes + plane_bytes + size_t(taps_h) * sizeof(double) <= context.scratch.size(),
                     "a %lldx%lld to %lldx%lld resize exceeds the kernel scratch", (long long)ih, (long long)iw,
                     (long long)oh, (long long)ow);
  auto* first = reinterpret_cast<int64_t*>(context.scratch.data());
  int64_t* count = first + ow;
  double* weights = reinterpret_cast<double*>(count + ow);
  double* plane = weights + ow * taps_w;
  double* row_weights = plane + ih * ow;
  for (int64_t x = 0; x < ow; ++x) first[x] = aa_weights(sw, x, iw, weights + x * taps_w, count[x]);
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t n = 0; n < sizes[0]; ++n) {
      for (int64_t c = 0; c < sizes[1]; ++c) {
        const T* src = in.data_as<const T>() + n * in.stride(0) + c * in.stride(1);
        T* dst = out.data_as<T>() + n * out.stride(0) + c * out.stride(1);
        for (int64_t y = 0; y < ih; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            double sum = 0;
            const double* w = weights + x * taps_w;
            for (int64_t j = 0; j < count[x]; ++j) sum += w[j] * double(src[y * in.stride(2) + (first[x] + j) * in.stride(3)]);
            plane[y * ow + x] = sum;
          }
        }
        for (int64_t y = 0; y < oh; ++y) {
          int64_t rows = 0;
          const int64_t top = aa_weights(sh, y, ih, row_weights, rows);
          for (int64_t x = 0; x < ow; ++x) {
            double sum = 0;
            for (int64_t j = 0; j < rows; ++j) sum += row_weights[j] * plane[(top + j) * ow + x];
            dst[y * out.stride(2) + x * out.stride(3)] = T(sum);
          }
        }
      }
    }
  });
}

}  // namespace

void register_grid_sampler(KernelRegistry& r);

void register_sampling_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::upsample_bilinear2d.vec_out", "TJbEWW", upsample_bilinear2d_vec_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_upsample_bilinear2d_aa.out", "TIbeeWW", upsample_bilinear2d_aa_out);
  register_grid_sampler(r);
}

}  // namespace etkit::kernels
