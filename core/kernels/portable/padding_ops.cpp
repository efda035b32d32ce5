// reflection_pad1d/2d/3d and replication_pad1d/2d/3d: the last 1, 2 or 3
// dims padded by mirroring (without repeating the edge) or by repeating
// the edge. The padding list runs from the last dim backwards, as ATen's.

#include <cstring>

#include "view_util.h"

namespace etkit::kernels {
namespace {

enum class PadMode { kReflect, kReplicate };

// The source index of padded position `j` (already shifted by the leading
// pad) in a dim of size n.
template <PadMode mode>
int64_t source_index(int64_t j, int64_t n) {
  if constexpr (mode == PadMode::kReflect) {
    if (j < 0) return -j;
    if (j >= n) return 2 * (n - 1) - j;
    return j;
  } else {
    return j < 0 ? 0 : (j >= n ? n - 1 : j);
  }
}

template <PadMode mode, int k>
Status pad_out(KernelContext& context, Span<Value*> args) {
  const Tensor& in = tensor_arg(args, 0);
  IntList padding;
  ETKIT_TRY(int_list_arg(context, args, 1, padding));
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, in, out));
  ETKIT_KERNEL_CHECK(context, padding.size == size_t(2 * k), "padding size is expected to be %d, got %zu",
                     2 * k, padding.size);
  ETKIT_KERNEL_CHECK(context, in.dim() == k + 1 || in.dim() == k + 2,
                     "expected %dD or %dD (batch mode) tensor, got %dD", k + 1, k + 2, in.dim());
  int64_t sizes[kMaxRank], before[kMaxRank] = {};
  for (int d = 0; d < in.dim(); ++d) sizes[d] = in.size(d);
  for (int i = 0; i < k; ++i) {
    const int d = in.dim() - 1 - i;
    const int64_t left = padding[size_t(2 * i)], right = padding[size_t(2 * i + 1)];
    const int64_t n = in.size(d);
    if (mode == PadMode::kReflect) {
      ETKIT_KERNEL_CHECK(context, left < n && right < n && left > -n && right > -n,
                         "padding (%lld, %lld) should be less than the corresponding input dimension "
                         "(%lld) of dim %d",
                         (long long)left, (long long)right, (long long)n, d);
    } else {
      ETKIT_KERNEL_CHECK(context, n > 0, "input dimension %d is empty and cannot be replicated", d);
    }
    before[d] = left;
    sizes[d] = n + left + right;
    ETKIT_KERNEL_CHECK(context, sizes[d] >= 1,
                       "input of size %lld with padding (%lld, %lld) gives an empty output in dim %d",
                       (long long)n, (long long)left, (long long)right, d);
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(in.dim()))));
  if (out.numel() == 0) return Ok{};
  const int64_t size = int64_t(out.element_size());
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const int last = in.dim() - 1;
  // Per row of the last dim: the unpadded dims' offset once, then the row.
  int64_t index[kMaxRank] = {};
  const int64_t row = sizes[last];
  do {
    int64_t in_base = 0, out_base = 0;
    for (int d = 0; d < last; ++d) {
      const int64_t j = d < in.dim() - k ? index[d] : source_index<mode>(index[d] - before[d], in.size(d));
      in_base += j * in.stride(d);
      out_base += index[d] * out.stride(d);
    }
    for (int64_t x = 0; x < row; ++x) {
      const int64_t j = source_index<mode>(x - before[last], in.size(last));
      std::memcpy(dst + (out_base + x * out.stride(last)) * size, src + (in_base + j * in.stride(last)) * size,
                  size_t(size));
    }
    index[last] = row - 1;  // the row is done: advance the dims before it
  } while (next_index(index, sizes, in.dim()));
  return Ok{};
}

}  // namespace

void register_padding_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::reflection_pad1d.out", "TIWW", (pad_out<PadMode::kReflect, 1>));
  ETKIT_REGISTER_KERNEL(r, "aten::reflection_pad2d.out", "TIWW", (pad_out<PadMode::kReflect, 2>));
  ETKIT_REGISTER_KERNEL(r, "aten::reflection_pad3d.out", "TIWW", (pad_out<PadMode::kReflect, 3>));
  ETKIT_REGISTER_KERNEL(r, "aten::replication_pad1d.out", "TIWW", (pad_out<PadMode::kReplicate, 1>));
  ETKIT_REGISTER_KERNEL(r, "aten::replication_pad2d.out", "TIWW", (pad_out<PadMode::kReplicate, 2>));
  ETKIT_REGISTER_KERNEL(r, "aten::replication_pad3d.out", "TIWW", (pad_out<PadMode::kReplicate, 3>));
}

}  // namespace etkit::kernels
