// convolution.out for 1-D and 2-D, strided, padded, dilated, grouped and
// transposed, over the shared GEMM, in integer and floating-point dtypes.
// Float products pack their im2col columns straight from the image
// (etkit/kernels/conv_columns.h); the others run im2col on tiles of output
// pixels sized to the kernel scratch. No call allocates.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "depthwise_rows.h"
#include "etkit/kernels/conv_columns.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/fast_math.h"
#include "etkit/kernels/gemm.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {
namespace {

// Reads an int list of length 1 or `want` (broadcasting a single value).
bool expand_list(const IntList& list, size_t want, int64_t fallback, int64_t* out) {
  if (list.size == 0) {
    for (size_t i = 0; i < want; ++i) out[i] = fallback;
    return true;
  }
  if (list.size != 1 && list.size != want) return false;
  for (size_t i = 0; i < want; ++i) out[i] = list[list.size == 1 ? 0 : i];
  return true;
}

// Strides as 4-D (n, c, h, w) for a 3-D or 4-D tensor (1-D conv: h = 1).
void strides_4d(const Tensor& t, int64_t* s) {
  if (t.dim() == 3) {
    // The missing h dim has size 1; give it the stride a dense 4-D layout
    // would have so layout checks hold.
    s[0] = t.stride(0); s[1] = t.stride(1); s[2] = t.stride(2) * t.size(2); s[3] = t.stride(2);
  } else {
    for (int d = 0; d < 4; ++d) s[d] = t.stride(d);
  }
}

// Output planes [first, last) of the n * out_c set to their bias (zero
// without one), what every path then adds its products to.
template <typename T>
void fill_bias(const ConvShape& s, const Tensor* bias, T* out, int64_t first, int64_t last) {
  const T* pb = bias ? bias->data_as<const T>() : nullptr;
  for (int64_t plane = first; plane < last; ++plane) {
    const int64_t n = plane / s.out_c, c = plane % s.out_c;
    const T v = pb ? pb[c * bias->stride(0)] : T(0);
    for (int64_t h = 0; h < s.out_h; ++h)
      for (int64_t w = 0; w < s.out_w; ++w) out[n * s.os[0] + c * s.os[1] + h * s.os[2] + w * s.os[3]] = v;
  }
}

// The start of group rows [first, first + count): the bias of those
// output channels, or `zero` repeated.
template <typename T>
RowStart<T> channel_start(const Tensor* bias, int64_t first, const T& zero) {
  if (bias == nullptr) return {&zero, 0};
  return {bias->data_as<const T>() + first * bias->stride(0), bias->stride(0)};
}

// col[(c, kh, kw)][p] for output rows [row0, row0 + nrows): the input tap
// under each output pixel, zero in the padding. Row segments are copied
// whole; only the padded edges are handled per element.
template <typename T>
void im2col_rows(const ConvShape& s, const T* in_g, int64_t channels, int64_t row0, int64_t nrows,
                 T* col) {
  const int64_t np = nrows * s.out_w;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kh = 0; kh < s.k_h; ++kh)
      for (int64_t kw = 0; kw < s.k_w; ++kw) {
        T* dst = col + ((c * s.k_h + kh) * s.k_w + kw) * np;
        // Output columns whose input column is inside the image.
        const auto [lo, hi, shift] = tap_columns(s, kw);
        for (int64_t r = 0; r < nrows; ++r, dst += s.out_w) {
          const int64_t ih = (row0 + r) * s.stride_h - s.pad_h + kh * s.dil_h;
          if (ih < 0 || ih >= s.in_h) {
            std::fill(dst, dst + s.out_w, T(0));
            continue;
          }
          const T* src = in_g + c * s.is[1] + ih * s.is[2] + shift * s.is[3];
          std::fill(dst, dst + lo, T(0));
          const int64_t step = s.stride_w * s.is[3];
          if (step == 1) {
            std::memcpy(dst + lo, src + lo, sizeof(T) * size_t(hi - lo));
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * step];
          }
          std::fill(dst + hi, dst + s.out_w, T(0));
        }
      }
}

// Depthwise (one input channel per group): a direct stencil, since a GEMM
// with one row and k_h*k_w columns is all overhead; float32 takes the
// vector path of depthwise_rows.h where it can. The generic stencil: one
// input plane per output plane. Each output row takes all
// k_h x k_w taps while it is in L1; the column range [lo, hi) of each tap is
// where it reads inside the input row (padding columns contribute nothing).
// Output planes [first, last) of the n * out_c (a worker's share). Fused:
// each w * x + y one fused multiply-add, as the vector path computes it.
template <typename T, bool Fused = false>
__attribute__((always_inline)) inline void conv_depthwise_body(const ConvShape& s, const T* in,
                                                               const T* weight, const int64_t* ws,
                                                               T* out, int64_t first, int64_t last) {
  const int64_t multiplier = s.out_c / s.groups;
  const int64_t step = s.stride_w * s.is[3];
  const int64_t ostep = s.os[3];
  for (int64_t plane_index = first; plane_index < last; ++plane_index) {
      const int64_t n = plane_index / s.out_c, oc = plane_index % s.out_c;
      const int64_t ic = oc / multiplier;
      const T* plane = in + n * s.is[0] + ic * s.is[1];
      T* dst_plane = out + n * s.os[0] + oc * s.os[1];
      for (int64_t oh = 0; oh < s.out_h; ++oh) {
        T* __restrict dst = dst_plane + oh * s.os[2];
        for (int64_t kh = 0; kh < s.k_h; ++kh) {
          const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dil_h;
          if (ih < 0 || ih >= s.in_h) continue;
          for (int64_t kw = 0; kw < s.k_w; ++kw) {
            const T w = weight[oc * ws[0] + kh * ws[2] + kw * ws[3]];
            const auto [lo, hi, shift] = tap_columns(s, kw);
            const T* __restrict src = plane + ih * s.is[2] + shift * s.is[3];
            if constexpr (Fused) {
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow * ostep] = std::fma(w, src[ow * step], dst[ow * ostep]);
            } else if (ostep == 1 && step == 1) {
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow] += w * src[ow];
            } else if (ostep == 1 && step == 2) {
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow] += w * src[2 * ow];
            } else {
              for (int64_t ow = lo; ow < hi; ++ow) dst[ow * ostep] += w * src[ow * step];
            }
          }
        }
      }
    }
}

// The stencil with the vector path's fused multiply-adds, for the shapes
// that path does not take: the same rounding on one core whatever the
// shape or the build's optimization (GCC contracts w * x + y only when it
// optimizes).
ETKIT_AVX2_FMA void conv_depthwise_body_fma(const ConvShape& s, const float* in, const float* weight,
                                            const int64_t* ws, float* out, int64_t first, int64_t last) {
  conv_depthwise_body<float, true>(s, in, weight, ws, out, first, last);
}

// Planes are independent: spread over the workers, each filling its own
// planes with their bias first where the stencil adds to them (the vector
// path starts its tiles from the bias instead).
template <typename T>
void conv_depthwise(const ConvShape& s, const T* in, const T* weight, const int64_t* ws, const Tensor* bias, T* out,
                    const KernelContext& context) {
  const int64_t plane_work = s.out_h * s.out_w * s.k_h * s.k_w;
  parallel_ranges(context, s.n * s.out_c, 1, plane_work > 0 ? (int64_t{1} << 16) / plane_work + 2 : 0,
                  [&](Span<uint8_t> scratch, int64_t first, int64_t last) {
                    if constexpr (std::is_same_v<T, float>) {
                      if (cpu_has_avx2_fma() && depthwise_rows_suit(s, scratch.size())) {
                        conv_depthwise_rows_f32(s, in, weight, ws, bias ? bias->data_as<const float>() : nullptr,
                                                bias ? bias->stride(0) : 0, out, first, last, scratch);
                        return;
                      }
                    }
                    fill_bias<T>(s, bias, out, first, last);
                    if constexpr (std::is_same_v<T, float>) {
                      if (cpu_has_avx2_fma()) return conv_depthwise_body_fma(s, in, weight, ws, out, first, last);
                    }
                    conv_depthwise_body(s, in, weight, ws, out, first, last);
                  });
}

// One group's product: weight [oc_g, k] (k = (ic, kh, kw) in that order)
// times columns [k, pixels].
struct GroupProduct {
  int64_t ic_g, oc_g, k, pixels;
  bool default_weight_layout;  // the weight contiguous along k

  GroupProduct(const ConvShape& s, const int64_t* ws)
      : ic_g(s.in_c / s.groups),
        oc_g(s.out_c / s.groups),
        k(ic_g * s.k_h * s.k_w),
        pixels(s.out_h * s.out_w),
        default_weight_layout(ws[1] == s.k_h * s.k_w && ws[2] == s.k_w && ws[3] == 1) {}
};

// Group g of batch item n through im2col: tiles of whole output rows (so
// im2col copies contiguous row segments) sized to the columns' room after
// the gemm's packing area in worker 0's scratch (the gemm's other workers
// pack in their own), each multiplied by the weight and started from the
// group's bias `start`.
template <typename T>
void conv_group_im2col(const ConvShape& s, const T* in_g, const T* weight_g, const int64_t* ws,
                       RowStart<T> start, T* out_g, const KernelContext& context) {
  const GroupProduct product(s, ws);
  const int64_t ic_g = product.ic_g, oc_g = product.oc_g, k = product.k, pixels = product.pixels;
  const size_t gemm_bytes = gemm_scratch_bytes();
  T* col = reinterpret_cast<T*>(context.scratch.data() + gemm_bytes);
  const int64_t col_capacity = static_cast<int64_t>((context.scratch.size() - gemm_bytes) / sizeof(T));
  const int64_t rows = std::max<int64_t>(1, std::min(s.out_h, col_capacity / std::max<int64_t>(k * s.out_w, 1)));
  const int64_t tile = rows * s.out_w;
  for (int64_t p0 = 0; p0 < pixels; p0 += tile) {
    const int64_t np = std::min(tile, pixels - p0);
    im2col_rows(s, in_g, ic_g, p0 / s.out_w, np / s.out_w, col);
    if (product.default_weight_layout) {
      const MatrixView<const T> w{weight_g, oc_g, k, ws[0], 1};
      gemm(w, MatrixView<const T>{col, k, np, np, 1}, MatrixView<T>{out_g + p0 * s.os[3], oc_g, np, s.os[1], s.os[3]},
           T(1), start, context);
      continue;
    }
    // Another weight layout: element (o, (c, kh, kw)) is not contiguous in
    // k, and the scratch has no room for a copy: a direct loop.
    for (int64_t o = 0; o < oc_g; ++o) {
      T* dst = out_g + o * s.os[1] + p0 * s.os[3];
      for (int64_t p = 0; p < np; ++p) dst[p * s.os[3]] = start.values[o * start.stride];
    }
    for (int64_t o = 0; o < oc_g; ++o)
      for (int64_t c = 0; c < ic_g; ++c)
        for (int64_t kh = 0; kh < s.k_h; ++kh)
          for (int64_t kw = 0; kw < s.k_w; ++kw) {
            const T wv = weight_g[o * ws[0] + c * ws[1] + kh * ws[2] + kw * ws[3]];
            const T* row = col + ((c * s.k_h + kh) * s.k_w + kw) * np;
            T* dst = out_g + o * s.os[1] + p0 * s.os[3];
            for (int64_t p = 0; p < np; ++p) dst[p * s.os[3]] += wv * row[p];
          }
  }
}

// Each (batch item, group) as one product started from the bias (gemm
// fills each block of the output as it gets to it: a pass of its own over
// the output was 4% of MobileNetV2): a 1x1 stride-1 convolution
// multiplies the image itself; a float one with more than one output
// channel per group packs its columns from the image in each worker (a
// one-row product keeps im2col: its row path rounds differently); the rest
// go through im2col tiles.
template <typename T>
void conv_forward(const ConvShape& s, const T* in, const T* weight, const int64_t* ws, const Tensor* bias, T* out,
                  const KernelContext& context) {
  const T zero(0);
  const GroupProduct product(s, ws);
  const int64_t ic_g = product.ic_g, oc_g = product.oc_g, k = product.k, pixels = product.pixels;
  const bool pointwise = s.k_h == 1 && s.k_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                         s.pad_h == 0 && s.pad_w == 0 &&
                         (s.in_h == 1 || s.is[2] == s.in_w * s.is[3]);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const T* weight_g = weight + g * oc_g * ws[0];
      const T* in_g = in + n * s.is[0] + g * ic_g * s.is[1];
      T* out_g = out + n * s.os[0] + g * oc_g * s.os[1];
      const MatrixView<T> y{out_g, oc_g, pixels, s.os[1], s.os[3]};
      const RowStart<T> start = channel_start(bias, g * oc_g, zero);
      if (pointwise) {
        gemm(MatrixView<const T>{weight_g, oc_g, k, ws[0], ws[1]}, MatrixView<const T>{in_g, ic_g, pixels, s.is[1], s.is[3]},
             y, T(1), start, context);
        continue;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (oc_g > 1 && product.default_weight_layout && conv_columns_suit(s)) {
          const ConvColumns columns{&s, in_g};
          gemm(MatrixView<const float>{weight_g, oc_g, k, ws[0], 1}, conv_column_packer(columns), y, 1.0f, start,
               context);
          continue;
        }
      }
      conv_group_im2col(s, in_g, weight_g, ws, start, out_g, context);
    }
  }
}

// Transposed: every input pixel scatters weight * value into the output.
// Weight is [in_c, out_c / groups, kh, kw].
template <typename T>
void conv_transposed(const ConvShape& s, const T* in, const T* weight, const int64_t* ws, T* out) {
  const int64_t ic_g = s.in_c / s.groups, oc_g = s.out_c / s.groups;
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t g = 0; g < s.groups; ++g)
      for (int64_t c = 0; c < ic_g; ++c)
        for (int64_t ih = 0; ih < s.in_h; ++ih)
          for (int64_t iw = 0; iw < s.in_w; ++iw) {
            const T v = in[n * s.is[0] + (g * ic_g + c) * s.is[1] + ih * s.is[2] + iw * s.is[3]];
            if (v == T(0)) continue;
            for (int64_t o = 0; o < oc_g; ++o)
              for (int64_t kh = 0; kh < s.k_h; ++kh) {
                const int64_t oh = ih * s.stride_h - s.pad_h + kh * s.dil_h;
                if (oh < 0 || oh >= s.out_h) continue;
                for (int64_t kw = 0; kw < s.k_w; ++kw) {
                  const int64_t ow = iw * s.stride_w - s.pad_w + kw * s.dil_w;
                  if (ow < 0 || ow >= s.out_w) continue;
                  const T wv = weight[(g * ic_g + c) * ws[0] + o * ws[1] + kh * ws[2] + kw * ws[3]];
                  out[n * s.os[0] + (g * oc_g + o) * s.os[1] + oh * s.os[2] + ow * s.os[3]] += v * wv;
                }
              }
          }
}

// The convolution's geometry from its arguments (stride, padding, dilation,
// output padding lists expanded to the spatial rank), checked.
Status conv_shape(KernelContext& context, Span<Value*> args, const Tensor& input, const Tensor& weight,
                  const Tensor* bias, bool transposed, int64_t groups, ConvShape& s) {
  const bool one_d = input.dim() == 3;
  const size_t spatial = one_d ? 1 : 2;
  IntList stride_list, padding_list, dilation_list, output_padding_list;
  ETKIT_TRY(int_list_arg(context, args, 3, stride_list));
  ETKIT_TRY(int_list_arg(context, args, 4, padding_list));
  ETKIT_TRY(int_list_arg(context, args, 5, dilation_list));
  ETKIT_TRY(int_list_arg(context, args, 7, output_padding_list));
  int64_t stride[2], padding[2], dilation[2], output_padding[2];
  ETKIT_KERNEL_CHECK(context,
                     expand_list(stride_list, spatial, 1, stride) &&
                         expand_list(padding_list, spatial, 0, padding) &&
                         expand_list(dilation_list, spatial, 1, dilation) &&
                         expand_list(output_padding_list, spatial, 0, output_padding),
                     "stride, padding, dilation and output_padding need %zu values", spatial);
  s.n = input.size(0);
  s.in_c = input.size(1);
  s.in_h = one_d ? 1 : input.size(2);
  s.in_w = input.size(one_d ? 2 : 3);
  s.k_h = one_d ? 1 : weight.size(2);
  s.k_w = weight.size(one_d ? 2 : 3);
  s.stride_h = one_d ? 1 : stride[0];
  s.stride_w = stride[spatial - 1];
  s.pad_h = one_d ? 0 : padding[0];
  s.pad_w = padding[spatial - 1];
  s.dil_h = one_d ? 1 : dilation[0];
  s.dil_w = dilation[spatial - 1];
  s.groups = groups;
  ETKIT_KERNEL_CHECK(context, s.stride_h > 0 && s.stride_w > 0 && s.dil_h > 0 && s.dil_w > 0,
                     "stride and dilation must be positive");
  ETKIT_KERNEL_CHECK(context, s.pad_h >= 0 && s.pad_w >= 0, "padding must be non-negative");
  ETKIT_KERNEL_CHECK(context, s.in_c % groups == 0, "input channels %lld not divisible by groups %lld",
                     (long long)s.in_c, (long long)groups);
  if (transposed) {
    ETKIT_KERNEL_CHECK(context, weight.size(0) == s.in_c,
                       "transposed weight has %lld input channels, input has %lld",
                       (long long)weight.size(0), (long long)s.in_c);
    s.out_c = weight.size(1) * groups;
    const int64_t op_h = one_d ? 0 : output_padding[0], op_w = output_padding[spatial - 1];
    s.out_h = (s.in_h - 1) * s.stride_h - 2 * s.pad_h + s.dil_h * (s.k_h - 1) + op_h + 1;
    s.out_w = (s.in_w - 1) * s.stride_w - 2 * s.pad_w + s.dil_w * (s.k_w - 1) + op_w + 1;
  } else {
    s.out_c = weight.size(0);
    ETKIT_KERNEL_CHECK(context, weight.size(1) * groups == s.in_c,
                       "weight expects %lld input channels (x%lld groups), input has %lld",
                       (long long)weight.size(1), (long long)groups, (long long)s.in_c);
    ETKIT_KERNEL_CHECK(context, s.out_c % groups == 0, "out channels not divisible by groups");
    s.out_h = (s.in_h + 2 * s.pad_h - s.dil_h * (s.k_h - 1) - 1) / s.stride_h + 1;
    s.out_w = (s.in_w + 2 * s.pad_w - s.dil_w * (s.k_w - 1) - 1) / s.stride_w + 1;
  }
  ETKIT_KERNEL_CHECK(context, s.out_h > 0 && s.out_w > 0,
                     "input is too small for the kernel (output would be %lldx%lld)",
                     (long long)s.out_h, (long long)s.out_w);
  ETKIT_KERNEL_CHECK(context, !bias || (bias->dim() == 1 && bias->size(0) == s.out_c),
                     "bias must have %lld elements", (long long)s.out_c);
  return Ok{};
}

Status convolution_out(KernelContext& context, Span<Value*> args) {
  const Tensor& input = tensor_arg(args, 0);
  const Tensor& weight = tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  const bool transposed = bool_arg(args, 6);
  const int64_t groups = int_arg(args, 8);
  Tensor& out = tensor_arg(args, 9);
  ETKIT_KERNEL_CHECK(context, input.dim() == 3 || input.dim() == 4,
                     "expected 3-D or 4-D input (1-D or 2-D convolution), got %d-D", input.dim());
  ETKIT_KERNEL_CHECK(context, weight.dim() == input.dim(), "weight must have the input's rank");
  ETKIT_KERNEL_CHECK(context, groups > 0, "groups must be positive");
  const ScalarType type = input.scalar_type();
  ETKIT_KERNEL_CHECK(context, visit_real(type, [](auto) {}) &&
                                  weight.scalar_type() == type && out.scalar_type() == type &&
                                  (!bias || bias->scalar_type() == type),
                     "convolution supports integer and floating-point dtypes, the same for input, "
                     "weight, bias and out (got %s input)", to_string(type));
  const bool one_d = input.dim() == 3;
  ConvShape s{};
  ETKIT_TRY(conv_shape(context, args, input, weight, bias, transposed, groups, s));
  int64_t out_sizes[4] = {s.n, s.out_c, s.out_h, s.out_w};
  if (one_d) out_sizes[2] = s.out_w;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(out_sizes, one_d ? 3 : 4)));
  strides_4d(input, s.is);
  strides_4d(out, s.os);
  int64_t ws[4];
  strides_4d(weight, ws);
  ETKIT_KERNEL_CHECK(context, context.scratch.size() > gemm_scratch_bytes() + 64,
                     "kernel scratch too small");
  // Integer convolutions wrap as ATen's (two's complement).
  ETKIT_TRY(dispatch_real(context, type, [&](auto tag) {
    using T = decltype(tag);
    if (s.groups > 1 && s.in_c == s.groups && !transposed) {
      conv_depthwise<T>(s, input.data_as<const T>(), weight.data_as<const T>(), ws, bias, out.data_as<T>(),
                        context);
      return;
    }
    if (!transposed) {
      conv_forward<T>(s, input.data_as<const T>(), weight.data_as<const T>(), ws, bias, out.data_as<T>(), context);
      return;
    }
    // The scatter adds to the bias: set it first, over the workers.
    parallel_ranges(context, s.n * s.out_c, 1, min_items_for(s.n * s.out_c, s.n * s.out_c * s.out_h * s.out_w),
                    [&](Span<uint8_t>, int64_t first, int64_t last) { fill_bias<T>(s, bias, out.data_as<T>(), first, last); });
    conv_transposed<T>(s, input.data_as<const T>(), weight.data_as<const T>(), ws, out.data_as<T>());
  }));
  return Ok{};
}

}  // namespace

void register_convolution(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::convolution.out", "TTtIIIbIiWW", convolution_out);
}

}  // namespace etkit::kernels
