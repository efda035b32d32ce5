// _softmax, _log_softmax, native_layer_norm, native_group_norm and
// _native_batch_norm_legit_no_training; softmax, layer norm and batch norm
// split their rows or channels over the runtime's workers once large.

#include <array>
#include <cmath>
#include <type_traits>

#include "etkit/kernels/elementwise.h"
#include "etkit/core/checked_size.h"
#include "etkit/core/tensor_access.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {
namespace {

// Splits a tensor around `dim` into outer x size x inner (default layout).
struct Around {
  int64_t outer = 1, size = 1, inner = 1;
};
Around around(const Tensor& t, int64_t dim) {
  Around a;
  for (int d = 0; d < t.dim(); ++d) {
    if (d < dim) a.outer *= t.size(d);
    else if (d == dim) a.size = t.size(d);
    else a.inner *= t.size(d);
  }
  return a;
}

Status check_dense(KernelContext& context, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    ETKIT_KERNEL_CHECK(context, t->is_default_dim_order(),
                       "expects contiguous (default dim order) tensors");
  }
  return Ok{};
}

// Every given tensor (nulls skipped: absent optional weights) has the
// input's dtype: the kernels read and write them all as that type.
Status check_input_dtype(KernelContext& context, const Tensor& in,
                         std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    ETKIT_KERNEL_CHECK(context, t == nullptr || t->scalar_type() == in.scalar_type(),
                       "expected %s tensors like the input, got %s", to_string(in.scalar_type()),
                       to_string(t->scalar_type()));
  }
  return Ok{};
}

// A per-channel parameter: absent, or `count` contiguous entries.
Status check_per_channel(KernelContext& context, const Tensor* t, int64_t count, const char* what) {
  ETKIT_KERNEL_CHECK(context, t == nullptr || (t->numel() == count && t->dim() <= 1),
                     "%s must have %lld entries", what, static_cast<long long>(count));
  return Ok{};
}

// Elements between entries of a per-channel parameter (0-dim: one entry).
int64_t step(const Tensor& t) { return t.dim() == 0 ? 0 : t.stride(0); }

// exp of every element, vectorizable for float.
template <typename T>
inline T exp_of(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return exp_approx(v);
  } else {
    return std::exp(v);
  }
}

// Softmax of one lane of `a.size` elements `a.inner` apart from `base`.
template <bool log, typename T>
void softmax_lane(const T* x, T* y, int64_t base, const Around& a) {
  T max = -INFINITY;
  for (int64_t k = 0; k < a.size; ++k) {
    const T v = x[base + k * a.inner];
    max = (v > max || std::isnan(v)) ? v : max;
  }
  T sum = 0;
  for (int64_t k = 0; k < a.size; ++k) {
    const T e = exp_of(x[base + k * a.inner] - max);
    if (!log) y[base + k * a.inner] = e;
    sum += e;
  }
  if (log) {
    const T shift = max + std::log(sum);
    for (int64_t k = 0; k < a.size; ++k) y[base + k * a.inner] = x[base + k * a.inner] - shift;
  } else {
    const T scale = T(1) / sum;
    for (int64_t k = 0; k < a.size; ++k) y[base + k * a.inner] *= scale;
  }
}

template <bool log>
Status softmax(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, in.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, in.scalar_type() == out.scalar_type(),
                     "out dtype must match the input's");
  ETKIT_TRY(check_dense(context, {&in, &out}));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const Around a = around(in, in.dim() == 0 ? 0 : dim);
  ETKIT_TRY(dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    // Outer slices over the workers: each lane is computed alone, so any
    // split gives the same bits.
    parallel_ranges(context, a.outer, 1, min_items_for(a.outer, in.numel()),
                    [&](Span<uint8_t>, int64_t first, int64_t last) {
      if constexpr (std::is_same_v<T, float>) {
        if (a.inner == 1) {  // softmax over the last dim: contiguous rows
          for (int64_t o = first; o < last; ++o) softmax_row(x + o * a.size, y + o * a.size, a.size, log);
          return;
        }
      }
      for (int64_t o = first; o < last; ++o) {
        for (int64_t i = 0; i < a.inner; ++i) softmax_lane<log>(x, y, o * a.size * a.inner + i, a);
      }
    });
  }));
  return Ok{};
}

// Layer norm of `outer` rows of `inner` elements: mean and variance in
// double (two passes, for stability) with eight independent partial sums so
// the loops vectorize, then y = (x - mean) * rstd * w + b.
template <typename T>
__attribute__((always_inline)) inline void layer_norm_rows(const T* x, const T* w, const T* b, double eps,
                                                           int64_t outer, int64_t inner, T* y, T* mean,
                                                           T* rstd) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* row = x + o * inner;
    double part[8] = {};
    int64_t i = 0;
    for (; i + 8 <= inner; i += 8)
      for (int j = 0; j < 8; ++j) part[j] += double(row[i + j]);
    double sum = 0;
    for (; i < inner; ++i) sum += double(row[i]);
    for (double p : part) sum += p;
    const double m = sum / double(inner);
    double sq[8] = {};
    for (i = 0; i + 8 <= inner; i += 8)
      for (int j = 0; j < 8; ++j) {
        const double d = double(row[i + j]) - m;
        sq[j] += d * d;
      }
    double var = 0;
    for (; i < inner; ++i) var += (double(row[i]) - m) * (double(row[i]) - m);
    for (double p : sq) var += p;
    var /= double(inner);
    const double r = 1.0 / std::sqrt(var + eps);
    T* dst = y + o * inner;
    for (i = 0; i < inner; ++i) {
      T v = T((double(row[i]) - m) * r);
      if (w) v = v * w[i];
      if (b) v = v + b[i];
      dst[i] = v;
    }
    mean[o] = T(m);
    rstd[o] = T(r);
  }
}

ETKIT_AVX2_FMA void layer_norm_rows_f32_avx2(const float* x, const float* w, const float* b, double eps,
                                             int64_t outer, int64_t inner, float* y, float* mean, float* rstd) {
  layer_norm_rows(x, w, b, eps, outer, inner, y, mean, rstd);
}

// native_layer_norm.out(input, normalized_shape, weight?, bias?, eps, out,
// mean, rstd) -> (out, mean, rstd).
Status native_layer_norm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList shape;
  ETKIT_TRY(int_list_arg(context, args, 1, shape));
  const Tensor* weight = optional_tensor_arg(args, 2);
  const Tensor* bias = optional_tensor_arg(args, 3);
  const double eps = double_arg(args, 4);
  Tensor& out = tensor_arg(args, 5);
  Tensor& mean = tensor_arg(args, 6);
  Tensor& rstd = tensor_arg(args, 7);
  const int axis = in.dim() - int(shape.size);
  ETKIT_KERNEL_CHECK(context, shape.size >= 1 && axis >= 0, "bad normalized_shape");
  int64_t inner = 1;
  for (size_t i = 0; i < shape.size; ++i) {
    ETKIT_KERNEL_CHECK(context, in.size(axis + int(i)) == shape[i],
                       "normalized_shape does not match the input's trailing dims");
    inner *= shape[i];
  }
  ETKIT_KERNEL_CHECK(context, !weight || weight->numel() == inner, "weight has the wrong size");
  ETKIT_KERNEL_CHECK(context, !bias || bias->numel() == inner, "bias has the wrong size");
  ETKIT_TRY(check_input_dtype(context, in, {&out, &mean, &rstd, weight, bias}));
  ETKIT_TRY(check_dense(context, {&in, &out}));
  if (weight) ETKIT_TRY(check_dense(context, {weight}));
  if (bias) ETKIT_TRY(check_dense(context, {bias}));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  int64_t stat_sizes[kMaxRank];
  for (int d = 0; d < in.dim(); ++d) stat_sizes[d] = d < axis ? in.size(d) : 1;
  ETKIT_TRY(resize_output(context, mean, Span<const int64_t>(stat_sizes, size_t(in.dim()))));
  ETKIT_TRY(resize_output(context, rstd, Span<const int64_t>(stat_sizes, size_t(in.dim()))));
  const int64_t outer = inner == 0 ? 0 : in.numel() / inner;
  ETKIT_TRY(dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* w = weight ? weight->data_as<const T>() : nullptr;
    const T* b = bias ? bias->data_as<const T>() : nullptr;
    // Rows over the workers: each is normalized alone (the same bits on any
    // split).
    parallel_ranges(context, outer, 1, min_items_for(outer, in.numel()),
                    [&](Span<uint8_t>, int64_t first, int64_t last) {
      const T* x = in.data_as<const T>() + first * inner;
      T* y = out.data_as<T>() + first * inner;
      T* row_mean = mean.data_as<T>() + first;
      T* row_rstd = rstd.data_as<T>() + first;
      if constexpr (std::is_same_v<T, float>) {
        if (cpu_has_avx2_fma()) {
          layer_norm_rows_f32_avx2(x, w, b, eps, last - first, inner, y, row_mean, row_rstd);
          return;
        }
      }
      layer_norm_rows(x, w, b, eps, last - first, inner, y, row_mean, row_rstd);
    });
  }));
  return Ok{};
}

// A group norm's channels, channels per group, plane size and epsilon.
struct GroupShape {
  int64_t channels, per_group, plane;
  double eps;
};

// Normalizes group g of sample i (its channels are contiguous) by its mean
// and biased variance, in double, then the per-channel weight and bias.
template <typename T>
void normalize_group(const GroupShape& s, const T* x, const T* weight, const T* bias, int64_t i, int64_t g, T* y,
                     T& mean, T& rstd) {
  const T* block = x + (i * s.channels + g * s.per_group) * s.plane;
  const int64_t count = s.per_group * s.plane;
  double sum = 0;
  for (int64_t k = 0; k < count; ++k) sum += block[k];
  const double m = count ? sum / double(count) : 0;
  double var = 0;
  for (int64_t k = 0; k < count; ++k) var += (block[k] - m) * (block[k] - m);
  var = count ? var / double(count) : 0;
  const double r = 1.0 / std::sqrt(var + s.eps);
  for (int64_t ch = 0; ch < s.per_group; ++ch) {
    const int64_t channel = g * s.per_group + ch;
    const double scale = weight ? double(weight[channel]) : 1.0;
    const double shift = bias ? double(bias[channel]) : 0.0;
    for (int64_t k = 0; k < s.plane; ++k) {
      const int64_t at = (i * s.channels + channel) * s.plane + k;
      y[at] = T((x[at] - m) * r * scale + shift);
    }
  }
  mean = T(m);
  rstd = T(r);
}

// native_group_norm.out(input, weight?, bias?, N, C, HxW, group, eps, out,
// mean, rstd).
Status native_group_norm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor* weight = optional_tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  const int64_t n = int_arg(args, 3), c = int_arg(args, 4), hw = int_arg(args, 5);
  const int64_t groups = int_arg(args, 6);
  const double eps = double_arg(args, 7);
  Tensor& out = tensor_arg(args, 8);
  Tensor& mean = tensor_arg(args, 9);
  Tensor& rstd = tensor_arg(args, 10);
  ETKIT_KERNEL_CHECK(context, n >= 0 && c >= 0 && hw >= 0, "N, C and HxW must not be negative");
  ETKIT_KERNEL_CHECK(context, groups > 0 && c % groups == 0,
                     "expected number of channels in input to be divisible by num_groups");
  ETKIT_KERNEL_CHECK(context,
                     checked_nbytes(Span<const int64_t>(std::array<int64_t, 3>{n, c, hw}.data(), 3), 1)
                             .ok() &&
                         in.numel() == n * c * hw,
                     "input size does not match N*C*HxW");
  ETKIT_TRY(check_input_dtype(context, in, {&out, &mean, &rstd, weight, bias}));
  ETKIT_TRY(check_per_channel(context, weight, c, "weight"));
  ETKIT_TRY(check_per_channel(context, bias, c, "bias"));
  ETKIT_TRY(check_dense(context, {&in, &out}));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const int64_t stat_sizes[2] = {n, groups};
  ETKIT_TRY(resize_output(context, mean, Span<const int64_t>(stat_sizes, 2)));
  ETKIT_TRY(resize_output(context, rstd, Span<const int64_t>(stat_sizes, 2)));
  const int64_t per_group = c / groups;
  ETKIT_TRY(dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const GroupShape shape{c, per_group, hw, eps};
    const T* w = weight ? weight->data_as<const T>() : nullptr;
    const T* b = bias ? bias->data_as<const T>() : nullptr;
    // (sample, group) blocks over the workers, each normalized alone.
    parallel_ranges(context, n * groups, 1, min_items_for(n * groups, in.numel()),
                    [&](Span<uint8_t>, int64_t first, int64_t last) {
      for (int64_t block = first; block < last; ++block) {
        normalize_group(shape, in.data_as<const T>(), w, b, block / groups, block % groups, out.data_as<T>(),
                        mean.data_as<T>()[block], rstd.data_as<T>()[block]);
      }
    });
  }));
  return Ok{};
}

// The element count of one (batch item, channel) slice when the dims after
// the channel are contiguous in both tensors (NCHW), else -1.
int64_t dense_plane_size(const Tensor& in, const Tensor& out) {
  int64_t plane = 1;
  for (int d = in.dim() - 1; d >= 2; --d) {
    if (in.size(d) != 1 && (in.stride(d) != plane || out.stride(d) != plane)) return -1;
    plane *= in.size(d);
  }
  return plane;
}

// y = x * alpha + beta over `items` planes of `plane` contiguous elements
// (batch items `in_step` and `out_step` apart): dense_map's loop, which
// the compiler vectorizes, the expression of the general walk (the same
// bits).
template <typename T>
void scale_dense_planes(const T* x, T* y, int64_t items, int64_t plane, int64_t in_step, int64_t out_step, T alpha,
                        T beta) {
  for (int64_t n = 0; n < items; ++n) {
    dense_map(x + n * in_step, y + n * out_step, 0, plane, [alpha, beta](T value) { return value * alpha + beta; });
  }
}

// Calls f(x, y) on every element of channel `ch` (dim 1) of in and out.
template <typename T, typename F>
void for_channel(const Tensor& in, Tensor& out, int64_t ch, F&& f) {
  int64_t sizes[kMaxRank], in_strides[kMaxRank], out_strides[kMaxRank];
  int rank = 0;
  for (int d = 0; d < in.dim(); ++d) {
    if (d == 1) continue;
    sizes[rank] = in.size(d);
    in_strides[rank] = in.stride(d);
    out_strides[rank++] = out.stride(d);
  }
  const int64_t* s[2] = {in_strides, out_strides};
  const T* x = in.data_as<const T>() + ch * in.stride(1);
  T* y = out.data_as<T>() + ch * out.stride(1);
  for_each_index<2>(rank, sizes, s, [&](const int64_t* o) { f(x[o[0]], y[o[1]]); });
}


// _native_batch_norm_legit_no_training.out(input, weight?, bias?,
// running_mean, running_var, momentum, eps, out, save_mean, save_invstd):
// inference batch norm; the two saved statistics are empty as in ATen.
Status batch_norm_no_training_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const Tensor* weight = optional_tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  const Tensor& running_mean = tensor_arg(args, 3);
  const Tensor& running_var = tensor_arg(args, 4);
  const double eps = double_arg(args, 6);
  Tensor& out = tensor_arg(args, 7);
  ETKIT_KERNEL_CHECK(context, in.dim() >= 2, "input must have at least 2 dims");
  const int64_t channels = in.size(1);
  ETKIT_TRY(check_per_channel(context, &running_mean, channels, "running_mean"));
  ETKIT_TRY(check_per_channel(context, &running_var, channels, "running_var"));
  ETKIT_TRY(check_per_channel(context, weight, channels, "weight"));
  ETKIT_TRY(check_per_channel(context, bias, channels, "bias"));
  ETKIT_TRY(check_input_dtype(context, in, {&out, &running_mean, &running_var, weight, bias}));
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  const int64_t zero = 0;
  for (size_t k = 8; k <= 9; ++k) {
    Tensor& saved = tensor_arg(args, k);
    if (saved.dim() == 1) ETKIT_TRY(resize_output(context, saved, Span<const int64_t>(&zero, 1)));
  }
  ETKIT_TRY(dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t plane = dense_plane_size(in, out);
    // Channels over the workers (each computed alone: the same bits on any
    // split) when there are enough values to pay for the threads.
    parallel_ranges(context, channels, 1, min_items_for(channels, in.numel()), [&](Span<uint8_t>, int64_t first, int64_t last) {
      for (int64_t ch = first; ch < last; ++ch) {
        // Per-channel scale and shift, computed as ATen does in the input type.
        const T m = running_mean.data_as<const T>()[ch * step(running_mean)];
        const T v = running_var.data_as<const T>()[ch * step(running_var)];
        const T inv = T(1) / std::sqrt(v + T(eps));
        const T w = weight ? weight->data_as<const T>()[ch * step(*weight)] : T(1);
        const T b = bias ? bias->data_as<const T>()[ch * step(*bias)] : T(0);
        const T alpha = inv * w;
        const T beta = b - m * alpha;
        if (plane >= 0) {
          scale_dense_planes(in.data_as<const T>() + ch * in.stride(1), out.data_as<T>() + ch * out.stride(1),
                             in.size(0), plane, in.stride(0), out.stride(0), alpha, beta);
        } else {
          for_channel<T>(in, out, ch, [&](const T& x, T& y) { y = x * alpha + beta; });
        }
      }
    });
  }));
  return Ok{};
}


// Batch norm in training: each channel is normalized by its own batch mean
// and biased variance (saved as mean and 1/sqrt(var + eps)); running
// statistics, when given, move by `momentum` towards the batch's (with
// the unbiased variance), as ATen's.
Status batch_norm_training(KernelContext& context, const Tensor& in, const Tensor* weight, const Tensor* bias,
                           Tensor* running_mean, Tensor* running_var, double momentum, double eps, Tensor& out,
                           Tensor& save_mean, Tensor& save_invstd) {
  ETKIT_KERNEL_CHECK(context, in.dim() >= 2, "input must have at least 2 dims");
  const int64_t channels = in.size(1);
  ETKIT_TRY(check_per_channel(context, running_mean, channels, "running_mean"));
  ETKIT_TRY(check_per_channel(context, running_var, channels, "running_var"));
  ETKIT_TRY(check_per_channel(context, weight, channels, "weight"));
  ETKIT_TRY(check_per_channel(context, bias, channels, "bias"));
  ETKIT_TRY(check_input_dtype(context, in, {&out, &save_mean, &save_invstd, running_mean, running_var, weight, bias}));
  const int64_t count = channels == 0 ? 0 : in.numel() / channels;
  ETKIT_KERNEL_CHECK(context, count > 1 || in.numel() == 0,
                     "expected more than 1 value per channel when training, got input size %s",
                     format_sizes(in.sizes()).c_str());
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  ETKIT_TRY(resize_output(context, save_mean, Span<const int64_t>(&channels, 1)));
  ETKIT_TRY(resize_output(context, save_invstd, Span<const int64_t>(&channels, 1)));
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t ch = 0; ch < channels; ++ch) {
      double sum = 0, squares = 0;
      for_channel<T>(in, out, ch, [&](T x, T&) { sum += double(x); });
      const double mean = sum / double(count);
      for_channel<T>(in, out, ch, [&](T x, T&) { squares += (double(x) - mean) * (double(x) - mean); });
      const double var = squares / double(count);
      const double invstd = 1.0 / std::sqrt(var + eps);
      const double w = weight ? double(weight->data_as<const T>()[ch * step(*weight)]) : 1.0;
      const double b = bias ? double(bias->data_as<const T>()[ch * step(*bias)]) : 0.0;
      for_channel<T>(in, out, ch, [&](T x, T& y) { y = T((double(x) - mean) * invstd * w + b); });
      save_mean.data_as<T>()[ch * step(save_mean)] = T(mean);
      save_invstd.data_as<T>()[ch * step(save_invstd)] = T(invstd);
      if (running_mean) {
        T& rm = running_mean->data_as<T>()[ch * step(*running_mean)];
        rm = T((1 - momentum) * double(rm) + momentum * mean);
      }
      if (running_var) {
        T& rv = running_var->data_as<T>()[ch * step(*running_var)];
        rv = T((1 - momentum) * double(rv) + momentum * var * double(count) / double(count - 1));
      }
    }
  });
}

// _native_batch_norm_legit.out(input, weight?, bias?, running_mean!,
// running_var!, training, momentum, eps, out, save_mean, save_invstd).
Status batch_norm_legit_out(KernelContext& context, Span<Value*> args) {
  if (!bool_arg(args, 5)) {
    // Inference: the running statistics, as _no_training (whose arguments
    // are the same but for `training`).
    Value* shifted[12];
    for (size_t k = 0; k < 5; ++k) shifted[k] = args[k];
    for (size_t k = 6; k < 12; ++k) shifted[k - 1] = args[k];
    return batch_norm_no_training_out(context, Span<Value*>(shifted, 11));
  }
  return batch_norm_training(context, tensor_arg(args, 0), optional_tensor_arg(args, 1),
                             optional_tensor_arg(args, 2), &tensor_arg(args, 3), &tensor_arg(args, 4),
                             double_arg(args, 6), double_arg(args, 7), tensor_arg(args, 8), tensor_arg(args, 9),
                             tensor_arg(args, 10));
}

// _native_batch_norm_legit.no_stats_out(input, weight?, bias?, training,
// momentum, eps, out, save_mean, save_invstd): batch statistics only.
Status batch_norm_legit_no_stats_out(KernelContext& context, Span<Value*> args) {
  ETKIT_KERNEL_CHECK(context, bool_arg(args, 3),
                     "without running statistics batch norm needs training=True (the batch's statistics)");
  return batch_norm_training(context, tensor_arg(args, 0), optional_tensor_arg(args, 1),
                             optional_tensor_arg(args, 2), nullptr, nullptr, double_arg(args, 4),
                             double_arg(args, 5), tensor_arg(args, 6), tensor_arg(args, 7), tensor_arg(args, 8));
}

}  // namespace

void register_norm_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::_native_batch_norm_legit.out", "TttWWbddWWWM", batch_norm_legit_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_native_batch_norm_legit.no_stats_out", "TttbddWWWM",
                        batch_norm_legit_no_stats_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_softmax.out", "TibWW", softmax<false>);
  ETKIT_REGISTER_KERNEL(r, "aten::_log_softmax.out", "TibWW", softmax<true>);
  ETKIT_REGISTER_KERNEL(r, "aten::native_layer_norm.out", "TIttdWWWM", native_layer_norm_out);
  ETKIT_REGISTER_KERNEL(r, "aten::native_group_norm.out", "TttiiiidWWWM", native_group_norm_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_native_batch_norm_legit_no_training.out", "TttTTddWWWM",
                        batch_norm_no_training_out);
}

}  // namespace etkit::kernels
