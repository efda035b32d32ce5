// Gathers and scatters by index tensor along a dim (gather, scatter,
// scatter_add), writes into a part of a copy (select_scatter,
// slice_scatter, index_put, masked_scatter), and ops whose output size
// depends on the data (masked_select, nonzero: the out is resized within
// its planned capacity, and a result that does not fit is an error).

#include <algorithm>
#include <cstring>

#include "etkit/core/tensor_access.h"

#include "advanced_index.h"
#include "view_util.h"

namespace etkit::kernels {
namespace {

// Checks an index tensor for gather/scatter: int64, self's rank, and no
// larger than `bound` (and self, for scatter) outside `dim`.
Status check_index(KernelContext& context, const Tensor& self, int64_t& dim, const Tensor& index,
                   const Tensor* bound) {
  ETKIT_KERNEL_CHECK(context, wrap_dim(dim, self.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, index.scalar_type() == ScalarType::kLong,
                     "expected index of dtype int64, got %s", to_string(index.scalar_type()));
  ETKIT_KERNEL_CHECK(context, index.numel() == 0 || index.dim() == self.dim() || (index.dim() <= 1 && self.dim() <= 1),
                     "index tensor must have the same number of dimensions as self");
  for (int d = 0; d < index.dim(); ++d) {
    if (d == dim) continue;
    const int64_t limit = bound && bound->dim() > d ? std::min(bound->size(d), self.size(d)) : self.size(d);
    ETKIT_KERNEL_CHECK(context, index.size(d) <= limit,
                       "size of index at dimension %d (%lld) exceeds the limit %lld", d,
                       (long long)index.size(d), (long long)limit);
  }
  return Ok{};
}

// Walks the positions of `index` with the offsets of index, self and a
// third tensor shaped at least like index (out for gather, src for
// scatter); f(index_offset, self_base, other_offset) where self_base
// excludes `dim`.
template <typename F>
void walk_index(const Tensor& index, const Tensor& self, int dim, const Tensor& other, F&& f) {
  int64_t self_strides[kMaxRank];
  for (int d = 0; d < index.dim(); ++d) self_strides[d] = d == dim ? 0 : self.stride(d);
  const int64_t* strides[3] = {index.strides().data(), self_strides, other.strides().data()};
  for_each_index<3>(index.dim(), index.sizes().data(), strides,
                    [&](const int64_t* o) { f(o[0], o[1], o[2]); });
}

Status checked_position(KernelContext& context, const Tensor& self, int dim, int64_t at, int64_t& offset) {
  const int64_t length = self.dim() == 0 ? 1 : self.size(dim);
  ETKIT_KERNEL_CHECK(context, at >= -length && at < length,
                     "index %lld is out of bounds for dimension %d with size %lld", (long long)at, dim,
                     (long long)length);
  offset = (at < 0 ? at + length : at) * (self.dim() == 0 ? 0 : self.stride(dim));
  return Ok{};
}

// Copies element words: gather moves elements without looking at them.
template <typename Word>
bool gather_words(const Tensor& self, int dim, const Tensor& index, Tensor& out, int64_t& bad) {
  const int64_t* ix = index.data_as<const int64_t>();
  const Word* x = static_cast<const Word*>(self.data());
  Word* y = static_cast<Word*>(out.data());
  const int64_t length = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t step = self.dim() == 0 ? 0 : self.stride(dim);
  bool ok = true;
  walk_index(index, self, dim, out, [&](int64_t i, int64_t base, int64_t o) {
    int64_t at = ix[i];
    if (at < 0) at += length;
    if (at < 0 || at >= length) {
      if (ok) bad = ix[i];
      ok = false;
      return;
    }
    y[o] = x[base + at * step];
  });
  return ok;
}

// gather.out(self, dim, index, sparse_grad, out): out[p] = self[p with
// p[dim] = index[p]].
Status gather_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const Tensor& index = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(check_index(context, self, dim, index, nullptr));
  ETKIT_TRY(resize_output(context, out, index.sizes()));
  int64_t bad = 0;
  bool ok = true;
  switch (self.element_size()) {
    case 1: ok = gather_words<uint8_t>(self, int(dim), index, out, bad); break;
    case 2: ok = gather_words<uint16_t>(self, int(dim), index, out, bad); break;
    case 4: ok = gather_words<uint32_t>(self, int(dim), index, out, bad); break;
    case 8: ok = gather_words<uint64_t>(self, int(dim), index, out, bad); break;
    default: ETKIT_KERNEL_CHECK(context, false, "unsupported dtype %s", to_string(self.scalar_type()));
  }
  const int64_t length = self.dim() == 0 ? 1 : self.size(int(dim));
  ETKIT_KERNEL_CHECK(context, ok, "index %lld is out of bounds for dimension %lld with size %lld",
                     (long long)bad, (long long)dim, (long long)length);
  return Ok{};
}

// target += value: bool as or, integers wrapping, half types through float.
template <typename T>
void add_into(T& target, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    target = target || value;
  } else if constexpr (std::is_integral_v<T>) {
    target = wrap_add(target, value);
  } else if constexpr (std::is_floating_point_v<T>) {
    target += value;
  } else {
    target = T(float(target) + float(value));
  }
}

// A scalar argument converted to T (ints keep all 64 bits).
template <typename T>
T scalar_as(const Value& v) {
  if (v.tag() == ValueTag::kInt) return convert<T>(v.unchecked_int());
  if (v.tag() == ValueTag::kBool) return convert<T>(v.unchecked_bool());
  return convert<T>(v.scalar_as_double());
}

enum class Scatter { kSrc, kValue, kAdd };

// scatter.src_out / scatter.value_out / scatter_add.out(self, dim, index,
// src or value, out): out = self, then out[p with p[dim] = index[p]] =
// src[p] (or the value, or += src[p]).
template <Scatter kind>
Status scatter_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  int64_t dim = int_arg(args, 1);
  const Tensor& index = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, self, out));
  const Tensor* src = kind == Scatter::kValue ? nullptr : &tensor_arg(args, 3);
  if (src) ETKIT_TRY(check_same_dtype(context, *src, out));
  ETKIT_TRY(check_index(context, self, dim, index, src));
  ETKIT_TRY(copy_into(context, whole(self), out));
  const int64_t* ix = index.data_as<const int64_t>();
  const Tensor& other = src ? *src : index;  // value scatter walks no source
  return dispatch_all(context, out.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    T* y = out.data_as<T>();
    const T* s = src ? src->data_as<const T>() : nullptr;
    const T value = kind == Scatter::kValue ? scalar_as<T>(*args[3]) : T();
    Status status = Ok{};
    walk_index(index, out, int(dim), other, [&](int64_t i, int64_t base, int64_t o) {
      if (!status.ok()) return;
      int64_t offset = 0;
      status = checked_position(context, out, int(dim), ix[i], offset);
      if (!status.ok()) return;
      T& target = y[base + offset];
      if constexpr (kind == Scatter::kValue) {
        target = value;
      } else if constexpr (kind == Scatter::kSrc) {
        target = s[o];
      } else {
        add_into(target, s[o]);
      }
    });
    return status;
  });
}

// select_scatter.out(self, src, dim, index, out): out = self with
// out.select(dim, index) = src.
Status select_scatter_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& src = tensor_arg(args, 1);
  int64_t dim = int_arg(args, 2);
  const int64_t index = int_arg(args, 3);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(check_same_dtype(context, src, out));
  ETKIT_KERNEL_CHECK(context, self.dim() > 0 && wrap_dim(dim, self.dim()), "dimension out of range");
  ETKIT_TRY(copy_into(context, whole(self), out));
  int64_t offset = 0;
  ETKIT_TRY(checked_position(context, out, int(dim), index, offset));
  int64_t strides[kMaxRank];
  bool fits = src.dim() == self.dim() - 1;
  for (int d = 0, k = 0; d < self.dim() && fits; ++d) {
    if (d == dim) continue;
    fits = src.size(k) == self.size(d);
    strides[k++] = out.stride(d);
  }
  ETKIT_KERNEL_CHECK(context, fits, "expected src of shape %s to match self's selected slice",
                     format_sizes(src.sizes()).c_str());
  copy_view(whole(src), out.data(), offset, strides);
  return Ok{};
}

// slice_scatter.out(self, src, dim, start?, end?, step, out): out = self
// with out[start:end:step] along dim = src.
Status slice_scatter_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& src = tensor_arg(args, 1);
  int64_t dim = int_arg(args, 2);
  const int64_t step = int_arg(args, 5);
  Tensor& out = tensor_arg(args, 6);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(check_same_dtype(context, src, out));
  ETKIT_KERNEL_CHECK(context, self.dim() > 0 && wrap_dim(dim, self.dim()), "dimension out of range");
  ETKIT_KERNEL_CHECK(context, step > 0, "slice step must be positive");
  const int64_t length = self.size(int(dim));
  int64_t start = args[3]->is_none() ? 0 : int_arg(args, 3);
  int64_t end = args[4]->is_none() ? length : int_arg(args, 4);
  if (start < 0) start += length;
  if (end < 0) end += length;
  start = start < 0 ? 0 : (start > length ? length : start);
  end = end < start ? start : (end > length ? length : end);
  ETKIT_TRY(copy_into(context, whole(self), out));
  int64_t strides[kMaxRank];
  bool fits = src.dim() == self.dim();
  for (int d = 0; d < self.dim() && fits; ++d) {
    const int64_t expected = d == dim ? (end - start + step - 1) / step : self.size(d);
    fits = src.size(d) == expected;
    strides[d] = d == dim ? out.stride(d) * step : out.stride(d);
  }
  ETKIT_KERNEL_CHECK(context, fits, "expected src of shape %s to match the slice of self",
                     format_sizes(src.sizes()).c_str());
  copy_view(whole(src), out.data(), start * out.stride(int(dim)), strides);
  return Ok{};
}

// Writes `values` (broadcast to the indexed shape) into `target` at the
// positions `indices` select, or adds them with `accumulate`.
Status put_values(KernelContext& context, Tensor& target, Span<Tensor* const> indices,
                  const Tensor& values, bool accumulate) {
  ETKIT_KERNEL_CHECK(context, values.scalar_type() == target.scalar_type(),
                     "Index put requires the source and destination dtypes match, got %s for the "
                     "destination and %s for the source.",
                     to_string(target.scalar_type()), to_string(values.scalar_type()));
  AdvancedIndex plan;
  ETKIT_TRY(plan.prepare(context, target, indices));
  int64_t merged[kMaxRank];
  int merged_rank = 0;
  ETKIT_KERNEL_CHECK(context,
                     broadcast_shape(Span<const int64_t>(plan.sizes, size_t(plan.rank)), values.sizes(),
                                     merged, merged_rank) &&
                         merged_rank == plan.rank &&
                         std::equal(merged, merged + merged_rank, plan.sizes),
                     "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result "
                     "of shape %s",
                     format_sizes(values.sizes()).c_str(),
                     format_sizes(Span<const int64_t>(plan.sizes, size_t(plan.rank))).c_str());
  int64_t value_strides[kMaxRank];
  broadcast_strides(values, plan.rank, plan.sizes, value_strides);
  return dispatch_all(context, target.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    T* y = target.data_as<T>();
    const T* v = values.data_as<const T>();
    int64_t counter[kMaxRank] = {};
    int64_t total = 1;
    for (int d = 0; d < plan.rank; ++d) total *= plan.sizes[d];
    for (int64_t n = 0; n < total; ++n) {
      int64_t offset = 0, value_offset = 0;
      ETKIT_TRY(plan.source_offset(context, target, counter, offset));
      for (int d = 0; d < plan.rank; ++d) value_offset += counter[d] * value_strides[d];
      if (accumulate) {
        add_into(y[offset], v[value_offset]);
      } else {
        y[offset] = v[value_offset];
      }
      next_index(counter, plan.sizes, plan.rank);
    }
    return Ok{};
  });
}

// index_put.out(self, indices?[], values, accumulate, out).
Status index_put_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 4);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(copy_into(context, whole(self), out));
  return put_values(context, out, args[1]->tensor_list(), tensor_arg(args, 2), bool_arg(args, 3));
}

// index_put_(self, indices?[], values, accumulate): in place.
Status index_put_inplace(KernelContext& context, Span<Value*> args) {
  return put_values(context, tensor_arg(args, 0), args[1]->tensor_list(), tensor_arg(args, 2),
                    bool_arg(args, 3));
}

// masked_scatter.out(self, mask, source, out): self and mask broadcast
// together (ATen expands both, so out may be larger than self); where the
// mask is true, out takes source's elements in order, elsewhere self's.
Status masked_scatter_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& mask = tensor_arg(args, 1);
  const Tensor& source = tensor_arg(args, 2);
  Tensor& out = tensor_arg(args, 3);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_TRY(check_same_dtype(context, source, out));
  ETKIT_KERNEL_CHECK(context, mask.scalar_type() == ScalarType::kBool,
                     "masked_scatter_ only supports boolean masks, but got mask with dtype %s",
                     to_string(mask.scalar_type()));
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(self.sizes(), mask.sizes(), sizes, rank),
                     "masked_scatter: mask of shape %s and self of shape %s do not broadcast",
                     format_sizes(mask.sizes()).c_str(), format_sizes(self.sizes()).c_str());
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, size_t(rank))));
  int64_t self_strides[kMaxRank], mask_strides[kMaxRank];
  broadcast_strides(self, rank, sizes, self_strides);
  broadcast_strides(mask, rank, sizes, mask_strides);
  const auto* m = mask.data_as<const uint8_t>();
  const size_t size = out.element_size();
  auto* dst = static_cast<uint8_t*>(out.data());
  const auto* from_self = static_cast<const uint8_t*>(self.data());
  const auto* src = static_cast<const uint8_t*>(source.data());
  int64_t source_index[kMaxRank] = {};
  int64_t taken = 0;
  bool short_source = false;
  const int64_t* strides[3] = {self_strides, mask_strides, out.strides().data()};
  for_each_index<3>(rank, sizes, strides, [&](const int64_t* o) {
    uint8_t* to = dst + o[2] * int64_t(size);
    if (!m[o[1]] || short_source || taken == source.numel()) {
      short_source |= m[o[1]] != 0 && taken == source.numel();
      std::memcpy(to, from_self + o[0] * int64_t(size), size);
      return;
    }
    int64_t source_offset = 0;
    for (int d = 0; d < source.dim(); ++d) source_offset += source_index[d] * source.stride(d);
    std::memcpy(to, src + source_offset * int64_t(size), size);
    next_index(source_index, source.sizes().data(), source.dim());
    ++taken;
  });
  ETKIT_KERNEL_CHECK(context, !short_source,
                     "Number of elements of source < number of ones in mask (%lld)",
                     (long long)source.numel());
  return Ok{};
}

// masked_select.out(self, mask, out): the elements of self (broadcast with
// mask) where the mask is true, as a 1-D tensor.
Status masked_select_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  const Tensor& mask = tensor_arg(args, 1);
  Tensor& out = tensor_arg(args, 2);
  ETKIT_TRY(check_same_dtype(context, self, out));
  ETKIT_KERNEL_CHECK(context, mask.scalar_type() == ScalarType::kBool,
                     "masked_select: expected BoolTensor for mask, got %s", to_string(mask.scalar_type()));
  int64_t sizes[kMaxRank];
  int rank = 0;
  ETKIT_KERNEL_CHECK(context, broadcast_shape(self.sizes(), mask.sizes(), sizes, rank),
                     "shape mismatch: the mask of shape %s and self of shape %s cannot be broadcast",
                     format_sizes(mask.sizes()).c_str(), format_sizes(self.sizes()).c_str());
  int64_t self_strides[kMaxRank], mask_strides[kMaxRank];
  broadcast_strides(self, rank, sizes, self_strides);
  broadcast_strides(mask, rank, sizes, mask_strides);
  const auto* m = mask.data_as<const uint8_t>();
  int64_t count = 0;
  {
    const int64_t* strides[1] = {mask_strides};
    for_each_index<1>(rank, sizes, strides, [&](const int64_t* o) { count += m[o[0]] != 0; });
  }
  ETKIT_TRY(resize_output(context, out, Span<const int64_t>(&count, 1)));
  const size_t size = out.element_size();
  auto* dst = static_cast<uint8_t*>(out.data());
  const auto* src = static_cast<const uint8_t*>(self.data());
  const int64_t step = out.dim() == 1 ? out.stride(0) : 1;
  int64_t k = 0;
  const int64_t* strides[2] = {mask_strides, self_strides};
  for_each_index<2>(rank, sizes, strides, [&](const int64_t* o) {
    if (m[o[0]]) std::memcpy(dst + (k++) * step * int64_t(size), src + o[1] * int64_t(size), size);
  });
  return Ok{};
}

// nonzero.out(self, out): int64 [n, rank], the indices of non-zero
// elements in row-major order.
Status nonzero_out(KernelContext& context, Span<Value*> args) {
  const Tensor& self = tensor_arg(args, 0);
  Tensor& out = tensor_arg(args, 1);
  ETKIT_KERNEL_CHECK(context, out.scalar_type() == ScalarType::kLong,
                     "nonzero expects an int64 out, got %s", to_string(out.scalar_type()));
  return dispatch_all(context, self.scalar_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    const T* x = self.data_as<const T>();
    const int64_t* strides[1] = {self.strides().data()};
    int64_t count = 0;
    for_each_index<1>(self.dim(), self.sizes().data(), strides,
                      [&](const int64_t* o) { count += convert<bool>(x[o[0]]); });
    const int64_t sizes[2] = {count, self.dim()};
    ETKIT_TRY(resize_output(context, out, Span<const int64_t>(sizes, 2)));
    if (count == 0) return Ok{};
    int64_t* y = out.data_as<int64_t>();
    int64_t index[kMaxRank] = {};
    int64_t row = 0;
    do {
      int64_t offset = 0;
      for (int d = 0; d < self.dim(); ++d) offset += index[d] * self.stride(d);
      if (convert<bool>(x[offset])) {
        for (int d = 0; d < self.dim(); ++d) y[row * out.stride(0) + d * out.stride(1)] = index[d];
        ++row;
      }
    } while (next_index(index, self.sizes().data(), self.dim()));
    return Ok{};
  });
}

}  // namespace

void register_scatter_ops(KernelRegistry& r) {
  ETKIT_REGISTER_KERNEL(r, "aten::gather.out", "TiTbWW", gather_out);
  ETKIT_REGISTER_KERNEL(r, "aten::scatter.src_out", "TiTTWW", scatter_out<Scatter::kSrc>);
  ETKIT_REGISTER_KERNEL(r, "aten::scatter.value_out", "TiTsWW", scatter_out<Scatter::kValue>);
  ETKIT_REGISTER_KERNEL(r, "aten::scatter_add.out", "TiTTWW", scatter_out<Scatter::kAdd>);
  ETKIT_REGISTER_KERNEL(r, "aten::select_scatter.out", "TTiiWW", select_scatter_out);
  ETKIT_REGISTER_KERNEL(r, "aten::slice_scatter.out", "TTinniWW", slice_scatter_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index_put.out", "TOTbWW", index_put_out);
  ETKIT_REGISTER_KERNEL(r, "aten::index_put_", "WOTbW", index_put_inplace);
  ETKIT_REGISTER_KERNEL(r, "aten::masked_scatter.out", "TTTWW", masked_scatter_out);
  ETKIT_REGISTER_KERNEL(r, "aten::masked_select.out", "TTWW", masked_select_out);
  ETKIT_REGISTER_KERNEL(r, "aten::nonzero.out", "TWW", nonzero_out);
}

}  // namespace etkit::kernels
