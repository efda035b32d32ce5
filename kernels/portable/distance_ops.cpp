// Pairwise p-norm distances: _cdist_forward (between the rows of two
// batched matrices) and _pdist_forward (between the rows of one matrix,
// upper triangle in row-major order). p = 0 counts differing coordinates,
// p = inf takes the largest difference.

#include <cmath>
#include <limits>

#include "view_util.h"

namespace etkit::kernels {
namespace {

// The p-norm of the difference of two rows of length m.
template <typename T>
double row_distance(const T* a, int64_t a_step, const T* b, int64_t b_step, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(double(a[k * a_step]) - double(b[k * b_step]));
    if (p == 0) acc += d != 0;
    else if (std::isinf(p)) acc = std::max(acc, d);
    else if (p == 1) acc += d;
    else if (p == 2) acc += d * d;
    else acc += std::pow(d, p);
  }
  if (p == 0 || p == 1 || std::isinf(p)) return acc;
  if (p == 2) return std::sqrt(acc);
  return std::pow(acc, 1.0 / p);
}

Status check_p(KernelContext& context, double p) {
  ETKIT_KERNEL_CHECK(context, p >= 0, "p value for the p-norm distance must be >= 0, got %g", p);
  return Ok{};
}

// _cdist_forward.out(x1, x2, p, compute_mode?, out): x1 [*, P, M] and x2
// [*, R, M] (batch dims broadcast) give [*, P, R]. Every compute mode
// computes directly (ATen's matrix-product form for euclidean distances
// differs only by rounding).
Status cdist_forward_out(KernelContext& context, Span<Value*> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  const double p = double_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_p(context, p));
  ETKIT_TRY(check_same_dtype(context, a, out));
  ETKIT_TRY(check_same_dtype(context, b, out));
  ETKIT_KERNEL_CHECK(context, a.dim() >= 2 && b.dim() >= 2, "cdist only supports at least 2D tensors, got %dD and %dD",
                     a.dim(), b.dim());
  const int64_t m = a.size(a.dim() - 1);
  ETKIT_KERNEL_CHECK(context, b.size(b.dim() - 1) == m,
                     "X1 and X2 must have the same number of columns. X1: %lld X2: %lld", (long long)m,
                     (long long)b.size(b.dim() - 1));
  int64_t batch[kMaxRank];
  int batch_rank = 0;
  ETKIT_KERNEL_CHECK(context,
                     broadcast_shape(Span<const int64_t>(a.sizes().data(), size_t(a.dim() - 2)),
                                     Span<const int64_t>(b.sizes().data(), size_t(b.dim() - 2)), batch,
                                     batch_rank),
                     "the batch dims of x1 and x2 cannot be broadcast together");
  const int64_t rows_a = a.size(a.dim() - 2), rows_b = b.size(b.dim() - 2);
  int64_t sizes[kMaxRank];
  for (int d = 0; d < batch_rank; ++d) sizes[d] = batch[d];
  sizes[batch_rank] = rows_a;
  sizes[batch_rank + 1] = rows_b;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(batch_rank + 2))));
  // Batch strides of a and b as seen from the broadcast batch shape.
  int64_t sa[kMaxRank] = {}, sb[kMaxRank] = {};
  for (int d = 0; d < batch_rank; ++d) {
    const int da = d - (batch_rank - (a.dim() - 2)), db = d - (batch_rank - (b.dim() - 2));
    sa[d] = da >= 0 && a.size(da) != 1 ? a.stride(da) : 0;
    sb[d] = db >= 0 && b.size(db) != 1 ? b.stride(db) : 0;
  }
  return dispatch_floating(context, a.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const int64_t* strides[3] = {sa, sb, out.strides().data()};
    for_each_index<3>(batch_rank, batch, strides, [&](const int64_t* o) {
      const T* xa = a.data_as<const T>() + o[0];
      const T* xb = b.data_as<const T>() + o[1];
      T* y = out.data_as<T>() + o[2];
      for (int64_t i = 0; i < rows_a; ++i) {
        for (int64_t j = 0; j < rows_b; ++j) {
          y[i * out.stride(batch_rank) + j * out.stride(batch_rank + 1)] =
              T(row_distance(xa + i * a.stride(a.dim() - 2), a.stride(a.dim() - 1), xb + j * b.stride(b.dim() - 2),
                             b.stride(b.dim() - 1), m, p));
        }
      }
    });
  });
}

// _pdist_forward.out(self, p, out): self [N, M] gives the N(N-1)/2
// distances of rows i < j.
Status pdist_forward_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  const double p = double_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_p(context, p));
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, in.dim() == 2, "pdist only supports 2D tensors, got: %dD", in.dim());
  const int64_t n = in.size(0), m = in.size(1);
  const int64_t count = n <= 1 ? 0 : n * (n - 1) / 2;
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(&count, 1)));
  return dispatch_floating(context, in.scalar_type(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        y[(k++) * (out.dim() == 1 ? out.stride(0) : 1)] =
            T(row_distance(x + i * in.stride(0), in.stride(1), x + j * in.stride(0), in.stride(1), m, p));
      }
    }
  });
}

}  // namespace

void register_distance_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::_cdist_forward.out", "TTdnWW", cdist_forward_out);
  ETKIT_REGISTER_KERNEL(r, "aten::_pdist_forward.out", "TdWW", pdist_forward_out);
}

}  // namespace etkit::kernels
