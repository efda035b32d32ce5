// reflection_pad1d/2d/3d and replication_pad1d/2d/3d: the last 1, 2 or 3
// dims padded by mirroring (without repeating the edge) or by repeating
// the edge. The padding list runs from the last dim backwards, as ATen's.

#include <algorithm>
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

// Writes every row of the last dim: the padded dims' source index once per
// row, then the row's edges element by element and its middle as one copy
// when both rows are contiguous.
template <PadMode mode, typename Word>
void pad_rows(const Tensor& in, const int64_t* before, int k, Tensor& out) {
  const Word* src = static_cast<const Word*>(in.data());
  Word* dst = static_cast<Word*>(out.data());
  const int last = in.dim() - 1;
  const int64_t row = out.size(last), n = in.size(last), left = before[last];
  const int64_t is = in.stride(last), os = out.stride(last);
  // The unpadded middle of the row: out x in [left, left + n) reads x - left.
  const int64_t lo = std::max<int64_t>(left, 0), hi = std::min<int64_t>(left + n, row);
  int64_t index[kMaxRank] = {};
  do {
    int64_t in_base = 0, out_base = 0;
    for (int d = 0; d < last; ++d) {
      const int64_t j = d < in.dim() - k ? index[d] : source_index<mode>(index[d] - before[d], in.size(d));
      in_base += j * in.stride(d);
      out_base += index[d] * out.stride(d);
    }
    const Word* r = src + in_base;
    Word* w = dst + out_base;
    for (int64_t x = 0; x < lo; ++x) w[x * os] = r[source_index<mode>(x - left, n) * is];
    if (is == 1 && os == 1 && hi > lo) {
      std::memcpy(w + lo, r + (lo - left), size_t(hi - lo) * sizeof(Word));
    } else {
      for (int64_t x = lo; x < hi; ++x) w[x * os] = r[(x - left) * is];
    }
    for (int64_t x = std::max(hi, lo); x < row; ++x) w[x * os] = r[source_index<mode>(x - left, n) * is];
    index[last] = row - 1;  // the row is done: advance the dims before it
  } while (next_index(index, out.sizes().data(), in.dim()));
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
  switch (out.element_size()) {
    case 1: pad_rows<mode, uint8_t>(in, before, k, out); break;
    case 2: pad_rows<mode, uint16_t>(in, before, k, out); break;
    case 4: pad_rows<mode, uint32_t>(in, before, k, out); break;
    case 8: pad_rows<mode, uint64_t>(in, before, k, out); break;
    default: ETKIT_KERNEL_CHECK(context, false, "unsupported dtype %s", to_string(in.scalar_type()));
  }
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
