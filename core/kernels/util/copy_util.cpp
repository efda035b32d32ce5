#include "etkit/kernels/copy_util.h"

#include <cstring>

#include "etkit/kernels/elementwise.h"

namespace etkit::kernels {
namespace {

// complex128 elements move as one 16-byte word.
struct Pair64 {
  uint64_t low, high;
};

template <typename Word>
void copy_words(const StridedView& view, Word* out, int64_t out_offset,
                const int64_t* out_strides) {
  const Word* in = view.source->data_as<const Word>() + view.offset;
  out += out_offset;
  const int64_t* strides[2] = {view.strides, out_strides};
  for_each_index<2>(view.rank, view.sizes, strides,
                    [&](const int64_t* o) { out[o[1]] = in[o[0]]; });
}

}  // namespace

StridedView whole(const Tensor& t) {
  StridedView view;
  view.source = &t;
  view.rank = t.dim();
  for (int d = 0; d < t.dim(); ++d) {
    view.sizes[d] = t.size(d);
    view.strides[d] = t.stride(d);
  }
  return view;
}

void copy_view(const StridedView& view, void* out_data, int64_t out_offset,
               const int64_t* out_strides) {
  switch (view.source->element_size()) {
    case 1: copy_words(view, static_cast<uint8_t*>(out_data), out_offset, out_strides); break;
    case 2: copy_words(view, static_cast<uint16_t*>(out_data), out_offset, out_strides); break;
    case 4: copy_words(view, static_cast<uint32_t*>(out_data), out_offset, out_strides); break;
    case 8: copy_words(view, static_cast<uint64_t*>(out_data), out_offset, out_strides); break;
    case 16: copy_words(view, static_cast<Pair64*>(out_data), out_offset, out_strides); break;
    default: break;  // no dtype has another element size
  }
}

void copy_logical_order(const Tensor& in, Tensor& out) {
  if (in.is_default_dim_order() && out.is_default_dim_order()) {
    if (in.nbytes() > 0) std::memcpy(out.data(), in.data(), in.nbytes());
    return;
  }
  // Walk both tensors' logical indices in lockstep with two odometers.
  const size_t size = in.element_size();
  const auto* src = static_cast<const uint8_t*>(in.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  int64_t in_index[kMaxRank] = {}, out_index[kMaxRank] = {};
  int64_t in_offset = 0, out_offset = 0;
  for (int64_t n = 0; n < in.numel(); ++n) {
    std::memcpy(dst + out_offset * static_cast<int64_t>(size),
                src + in_offset * static_cast<int64_t>(size), size);
    for (int d = in.dim() - 1; d >= 0; --d) {
      in_offset += in.stride(d);
      if (++in_index[d] < in.size(d)) break;
      in_offset -= in.stride(d) * in.size(d);
      in_index[d] = 0;
    }
    for (int d = out.dim() - 1; d >= 0; --d) {
      out_offset += out.stride(d);
      if (++out_index[d] < out.size(d)) break;
      out_offset -= out.stride(d) * out.size(d);
      out_index[d] = 0;
    }
  }
}

Status copy_convert(KernelContext& context, const Tensor& in, Tensor& out) {
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  if (in.scalar_type() == out.scalar_type()) {
    copy_view(whole(in), out.data(), 0, out.strides().data());
    return Ok{};
  }
  return dispatch_all(context, in.scalar_type(), [&](auto in_tag) {
    using I = decltype(in_tag);
    return dispatch_all(context, out.scalar_type(), [&](auto out_tag) {
      using O = decltype(out_tag);
      const int64_t* strides[2] = {in.strides().data(), out.strides().data()};
      const I* src = in.data_as<const I>();
      O* dst = out.data_as<O>();
      for_each_index<2>(in.dim(), in.sizes().data(), strides,
                        [&](const int64_t* o) { dst[o[1]] = convert<O>(src[o[0]]); });
    });
  });
}

}  // namespace etkit::kernels
