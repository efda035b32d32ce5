#pragma once
// The shared plan of reductions over a set of dims (sum, mean, any,
// amax/amin, prod, var, …) and the one-dim lane walk of ops along a dim
// (cumsum, topk, max.dim, gather, scatter).

#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {

// Kept and reduced dims of `in` for a dim list; out sizes with keepdim.
struct Reduction {
  int kept_rank = 0, reduced_rank = 0, out_rank = 0;
  int64_t kept_sizes[kMaxRank] = {}, kept_strides[kMaxRank] = {};
  int kept_out_dim[kMaxRank];  // which out dim each kept dim becomes
  int64_t reduced_sizes[kMaxRank] = {}, reduced_strides[kMaxRank] = {};
  int64_t out_sizes[kMaxRank] = {};
  int64_t reduced_count = 1;
};

inline Status plan_reduction(KernelContext& context, const Tensor& in, const IntList& dims, bool all,
                      bool keepdim, Reduction& r) {
  uint32_t mask = 0;
  if (all) {
    mask = in.dim() == 0 ? 0 : (1u << in.dim()) - 1;
  } else {
    for (size_t i = 0; i < dims.size; ++i) {
      int64_t d = dims[i];
      ETKIT_KERNEL_CHECK(context, wrap_dim(d, in.dim()), "dimension %lld out of range",
                         (long long)dims[i]);
      ETKIT_KERNEL_CHECK(context, in.dim() == 0 || !(mask >> d & 1u),
                         "dim %lld appears multiple times in the list of dims", (long long)d);
      if (in.dim() > 0) mask |= 1u << d;
    }
  }
  for (int d = 0; d < in.dim(); ++d) {
    if (mask >> d & 1u) {
      r.reduced_sizes[r.reduced_rank] = in.size(d);
      r.reduced_strides[r.reduced_rank++] = in.stride(d);
      r.reduced_count *= in.size(d);
      if (keepdim) r.out_sizes[r.out_rank++] = 1;
    } else {
      r.kept_sizes[r.kept_rank] = in.size(d);
      r.kept_out_dim[r.kept_rank] = r.out_rank;
      r.kept_strides[r.kept_rank++] = in.stride(d);
      r.out_sizes[r.out_rank++] = in.size(d);
    }
  }
  return Ok{};
}

// Calls f(in_offset_of_first, out_offset) per output element; the callee
// walks the reduced dims with walk(). Outputs split over the runtime's
// workers when the input is large (each output is reduced alone, in the
// one-thread order: the same bits on any split); f must not write state
// the outputs share.
template <typename F>
void for_each_output(const KernelContext& context, const Reduction& r, const Tensor& out, F&& f) {
  int64_t out_strides[kMaxRank] = {};
  for (int k = 0; k < r.kept_rank; ++k) out_strides[k] = out.stride(r.kept_out_dim[k]);
  const int64_t* strides[2] = {r.kept_strides, out_strides};
  const int64_t outputs = index_count(r.kept_rank, r.kept_sizes);
  parallel_ranges(context, outputs, 16, min_items_for(outputs, outputs * r.reduced_count), [&](Span<uint8_t>, int64_t begin, int64_t end) {
    for_index_range<2>(r.kept_rank, r.kept_sizes, strides, begin, end,
                       [&](const int64_t* o) { f(o[0], o[1]); });
  });
}

template <typename Acc, typename T, typename Op>
Acc walk(const Reduction& r, const T* base, Acc init, Op op) {
  Acc acc = init;
  const int64_t* strides[1] = {r.reduced_strides};
  for_each_index<1>(r.reduced_rank, r.reduced_sizes, strides,
                    [&](const int64_t* o) { acc = op(acc, base[o[0]]); });
  return acc;
}

/// Calls f(in_offset, out_offset) for every position of `in` with `dim`
/// held at 0 (a lane), where `out` has `in`'s rank (its size along `dim`
/// may differ); the callee walks the lane with in.stride(dim) and
/// out.stride(dim). A 0-dim tensor is one lane of one element.
template <typename F>
void for_each_lane(const Tensor& in, int dim, const Tensor& out, F&& f) {
  if (in.dim() == 0) {
    f(int64_t(0), int64_t(0));
    return;
  }
  int64_t sizes[kMaxRank] = {};
  for (int d = 0; d < in.dim(); ++d) sizes[d] = d == dim ? 1 : in.size(d);
  const int64_t* strides[2] = {in.strides().data(), out.strides().data()};
  for_each_index<2>(in.dim(), sizes, strides, [&](const int64_t* o) { f(o[0], o[1]); });
}

/// Length and stride of `t` along `dim` (1 and 0 for a 0-dim tensor).
inline int64_t lane_size(const Tensor& t, int dim) { return t.dim() == 0 ? 1 : t.size(dim); }
inline int64_t lane_stride(const Tensor& t, int dim) { return t.dim() == 0 ? 0 : t.stride(dim); }

}  // namespace etkit::kernels
