// mm, addmm, bmm and linear over the shared GEMM: float32 and float64 blocked,
// integer types wrapping as ATen's (float16 and bfloat16 reach them as
// float32 through the runtime's low-precision staging).

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/gemm.h"

namespace etkit::kernels {
namespace {

template <typename T>
MatrixView<const T> view_2d(const Tensor& t, int row_dim, int col_dim, int64_t offset = 0) {
  return {t.data_as<const T>() + offset, t.size(row_dim), t.size(col_dim), t.stride(row_dim),
          t.stride(col_dim)};
}
template <typename T>
MatrixView<T> view_2d_out(Tensor& t, int row_dim, int col_dim, int64_t offset = 0) {
  return {t.data_as<T>() + offset, t.size(row_dim), t.size(col_dim), t.stride(row_dim),
          t.stride(col_dim)};
}

Status check_real_types(KernelContext& context, std::initializer_list<const Tensor*> tensors) {
  const ScalarType type = (*tensors.begin())->scalar_type();
  for (const Tensor* t : tensors) {
    ETKIT_KERNEL_CHECK(context, t->scalar_type() == type,
                       "expected all tensors to be %s, got %s", to_string(type),
                       to_string(t->scalar_type()));
  }
  ETKIT_KERNEL_CHECK(context, visit_real(type, [](auto) {}),  // bool is not real
                     "matrix multiply supports integer and floating-point dtypes, got %s", to_string(type));
  return Ok{};
}

Status mm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, a.dim() == 2 && b.dim() == 2, "self and mat2 must be 2-D");
  ETKIT_KERNEL_CHECK(context, a.size(1) == b.size(0),
                     "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)a.size(0), (long long)a.size(1), (long long)b.size(0),
                     (long long)b.size(1));
  ETKIT_TRY(check_real_types(context, {&a, &b, &out}));
  const int64_t sizes[2] = {a.size(0), b.size(1)};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 2)));
  ETKIT_TRY(dispatch_real(context, a.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    gemm(view_2d<T>(a, 0, 1), view_2d<T>(b, 0, 1), view_2d_out<T>(out, 0, 1), T(1), T(0),
         context);
  }));
  return Ok{};
}

// addmm.out(self, mat1, mat2, beta, alpha, out): out = beta*self + alpha*(mat1@mat2)
// with self broadcast to the result.
Status addmm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& bias = tensor_arg(args, 0);
  const Tensor& a = tensor_arg(args, 1);
  const Tensor& b = tensor_arg(args, 2);
  const double beta = double_arg(args, 3), alpha = double_arg(args, 4);
  Tensor& out = tensor_arg(args, 5);
  ETKIT_KERNEL_CHECK(context, a.dim() == 2 && b.dim() == 2, "mat1 and mat2 must be 2-D");
  ETKIT_KERNEL_CHECK(context, a.size(1) == b.size(0),
                     "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)a.size(0), (long long)a.size(1), (long long)b.size(0),
                     (long long)b.size(1));
  ETKIT_TRY(check_real_types(context, {&bias, &a, &b, &out}));
  const int64_t sizes[2] = {a.size(0), b.size(1)};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 2)));
  int64_t broadcast[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context,
                     bias.dim() <= 2 && broadcast_shape(bias.sizes(), out.sizes(), broadcast, rank) &&
                         rank == 2 && broadcast[0] == sizes[0] && broadcast[1] == sizes[1],
                     "self of shape %s cannot broadcast to the product's [%lld, %lld]",
                     bias.dim() == 1 ? "[n]" : "given", (long long)sizes[0], (long long)sizes[1]);
  ETKIT_TRY(dispatch_real(context, a.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    // Write the broadcast bias, then accumulate the product into it.
    int64_t bs[kMaxRank];
    broadcast_strides(bias, 2, sizes, bs);
    const T* pb = bias.data_as<const T>();
    T* po = out.data_as<T>();
    for (int64_t i = 0; i < sizes[0]; ++i) {
      for (int64_t j = 0; j < sizes[1]; ++j) {
        po[i * out.stride(0) + j * out.stride(1)] = pb[i * bs[0] + j * bs[1]];
      }
    }
    // Scalars convert as ATen's do (to an integer type: truncated).
    gemm(view_2d<T>(a, 0, 1), view_2d<T>(b, 0, 1), view_2d_out<T>(out, 0, 1), convert<T>(alpha),
         convert<T>(beta), context);
  }));
  return Ok{};
}

Status bmm_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_KERNEL_CHECK(context, a.dim() == 3 && b.dim() == 3, "batch1 and batch2 must be 3-D");
  ETKIT_KERNEL_CHECK(context, a.size(0) == b.size(0) && a.size(2) == b.size(1),
                     "batch shapes [%lld, %lld, %lld] and [%lld, %lld, %lld] do not match",
                     (long long)a.size(0), (long long)a.size(1), (long long)a.size(2),
                     (long long)b.size(0), (long long)b.size(1), (long long)b.size(2));
  ETKIT_TRY(check_real_types(context, {&a, &b, &out}));
  const int64_t sizes[3] = {a.size(0), a.size(1), b.size(2)};
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 3)));
  ETKIT_TRY(dispatch_real(context, a.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t batch = 0; batch < sizes[0]; ++batch) {
      gemm(view_2d<T>(a, 1, 2, batch * a.stride(0)), view_2d<T>(b, 1, 2, batch * b.stride(0)),
           view_2d_out<T>(out, 1, 2, batch * out.stride(0)), T(1), T(0), context);
    }
  }));
  return Ok{};
}

// linear.out(input, weight, bias?, out): out = input @ weight^T + bias over
// the input's leading dims. Upstream's optimized kernels provide it (not its
// portable ones); its LLM export without a delegate keeps linears as it.
Status linear_out(KernelContext& context, Span<Value*> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& w = tensor_arg(args, 1);
  const Tensor* bias = optional_tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_KERNEL_CHECK(context, x.dim() >= 1 && w.dim() == 2, "input must be at least 1-D and weight 2-D, got %d-D and %d-D",
                     int(x.dim()), int(w.dim()));
  const int64_t n = w.size(0), k = w.size(1);
  ETKIT_KERNEL_CHECK(context, x.size(x.dim() - 1) == k,
                     "input's last dim (%lld) must equal weight's in-features (%lld)",
                     (long long)x.size(x.dim() - 1), (long long)k);
  if (bias != nullptr) {
    ETKIT_TRY(check_real_types(context, {&x, &w, bias, &out}));
    ETKIT_KERNEL_CHECK(context, bias->dim() <= 1 && (bias->numel() == 1 || bias->numel() == n),
                       "bias must hold 1 or %lld values, got %lld", (long long)n, (long long)bias->numel());
  } else {
    ETKIT_TRY(check_real_types(context, {&x, &w, &out}));
  }
  int64_t sizes[kMaxRank];
  for (int d = 0; d + 1 < x.dim(); ++d) sizes[d] = x.size(d);
  sizes[x.dim() - 1] = n;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(x.dim()))));
  const int rank = int(x.dim());
  const int64_t rows = rank == 1 ? 1 : x.size(rank - 2);
  const int64_t x_row_stride = rank == 1 ? 0 : x.stride(rank - 2), out_row_stride = rank == 1 ? 0 : out.stride(rank - 2);
  int64_t batches = 1;
  for (int d = 0; d + 2 < rank; ++d) batches *= x.size(d);
  ETKIT_TRY(dispatch_real(context, x.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const MatrixView<const T> weight_t{w.data_as<const T>(), k, n, w.stride(1), w.stride(0)};
    for (int64_t batch = 0; batch < batches; ++batch) {
      int64_t x_offset = 0, out_offset = 0;  // the batch's leading indices, last fastest
      for (int64_t rest = batch, d = rank - 3; d >= 0; --d) {
        const int64_t index = rest % x.size(int(d));
        rest /= x.size(int(d));
        x_offset += index * x.stride(int(d));
        out_offset += index * out.stride(int(d));
      }
      T* po = out.data_as<T>() + out_offset;
      if (bias != nullptr) {  // the bias in every row, then the product added to it
        const T* pb = bias->data_as<const T>();
        const int64_t bias_step = bias->numel() == 1 ? 0 : (bias->dim() == 0 ? 0 : bias->stride(0));
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < n; ++j) po[i * out_row_stride + j * out.stride(rank - 1)] = pb[j * bias_step];
        }
      }
      gemm(MatrixView<const T>{x.data_as<const T>() + x_offset, rows, k, x_row_stride, x.stride(rank - 1)}, weight_t,
           MatrixView<T>{po, rows, n, out_row_stride, out.stride(rank - 1)}, T(1), T(bias != nullptr ? 1 : 0),
           context);
    }
  }));
  return Ok{};
}

}  // namespace

void register_linear_algebra(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::mm.out", "TTWW", mm_out);
  ETKIT_REGISTER_KERNEL(r, "aten::addmm.out", "TTTssWW", addmm_out);
  ETKIT_REGISTER_KERNEL(r, "aten::bmm.out", "TTWW", bmm_out);
  ETKIT_REGISTER_KERNEL(r, "aten::linear.out", "TTtWW", linear_out);
}

}  // namespace etkit::kernels
