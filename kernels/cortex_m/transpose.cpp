// cortex_m::transpose: an int8 permutation of up to 4 dims (CMSIS-NN's
// arm_transpose_s8): out's dim d is input dim perm[d].

#include "cortex_m_families.h"
#include "cortex_m_util.h"
#include "etkit/kernels/op_sets.h"

namespace etkit::kernels {
namespace {

// transpose.out(input, perm, *, out)
Status transpose_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_int8(context, in, "input"));
  ETKIT_TRY(check_int8(context, out, "out"));
  IntList perm;
  ETKIT_TRY(int_list_arg(context, args, 1, perm));
  ETKIT_KERNEL_CHECK(context, in.dim() >= 1 && in.dim() <= 4, "input must have 1 to 4 dims, got %d", in.dim());
  ETKIT_KERNEL_CHECK(context, perm.size == size_t(in.dim()), "perm has %zu entries for %d dims", perm.size,
                     in.dim());
  int64_t sizes[4], in_strides[4];
  bool seen[4] = {false, false, false, false};
  for (int d = 0; d < in.dim(); ++d) {
    const int64_t p = perm[size_t(d)];
    ETKIT_KERNEL_CHECK(context, p >= 0 && p < in.dim() && !seen[p], "perm is not a permutation of %d dims",
                       in.dim());
    seen[p] = true;
    sizes[d] = in.size(int(p));
    in_strides[d] = in.stride(int(p));
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  const int64_t* strides[2] = {in_strides, out.strides().data()};
  const int8_t* x = in.data_as<const int8_t>();
  int8_t* y = out.data_as<int8_t>();
  for_each_index<2>(in.dim(), sizes, strides, [&](const int64_t* o) { y[o[1]] = x[o[0]]; });
  return Ok{};
}

}  // namespace

void register_cortex_m_transpose(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "cortex_m::transpose.out", "TIWW", transpose_out);
}

}  // namespace etkit::kernels
