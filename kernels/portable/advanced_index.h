#pragma once
// Advanced indexing (x[i, j], x[mask]), shared by index.Tensor and
// index_put. Index tensors are int32/int64 (one dim of self each) or
// bool/uint8 masks (as many dims of self as they have, standing for the
// positions where they are true, in row-major order); None skips a dim.
// The indices broadcast together. As ATen: when the indexed dims are
// adjacent, the result has self's dims before the first indexed one, the
// broadcast index dims, then self's dims after the last; when a skipped dim
// separates them, the broadcast index dims come first, then every dim of
// self not indexed, in order. A mask's true positions are listed once, in
// the kernel scratch.

#include <cstring>

#include "etkit/core/tensor_access.h"
#include "etkit/kernels/kernel_util.h"

namespace etkit::kernels {

class AdvancedIndex {
 public:
  int first = -1, last = -1;  // the first and last indexed dims of self
  bool adjacent = true;       // no skipped dim between indexed ones
  int index_start = 0;        // where the index dims begin in the result
  int brank = 0;              // rank of the broadcast index shape
  int rank = 0;               // rank of the result
  int64_t sizes[kMaxRank] = {};

  /// Plans indexing `self` (or any tensor of its shape and strides: the
  /// offsets follow them) with `list`.
  Status prepare(KernelContext& context, const Tensor& self, Span<Tensor* const> list) {
    ETKIT_KERNEL_CHECK(context, list.size() <= size_t(kMaxRank), "too many indices (%zu)", list.size());
    int dim = 0;  // the next dim of self the list addresses
    int64_t bsizes[kMaxRank] = {};
    size_t scratch_used = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      Entry& e = entries_[count_++];
      e.tensor = list[i];
      e.dim = dim;
      if (list[i] == nullptr) {
        ++dim;
        continue;
      }
      const Tensor& idx = *list[i];
      const ScalarType type = idx.scalar_type();
      ETKIT_KERNEL_CHECK(context,
                         type == ScalarType::kLong || type == ScalarType::kInt || type == ScalarType::kBool ||
                             type == ScalarType::kByte,
                         "tensors used as indices must be long, int, byte or bool tensors, got %s", to_string(type));
      ETKIT_KERNEL_CHECK(context, idx.is_default_dim_order(), "index tensors must be contiguous");
      e.mask = type == ScalarType::kBool || type == ScalarType::kByte;
      const int consumed = e.mask ? idx.dim() : 1;
      ETKIT_KERNEL_CHECK(context, dim + consumed <= self.dim(),
                         "too many indices for tensor of dimension %d", self.dim());
      if (e.mask) ETKIT_TRY(list_true_positions(context, self, idx, dim, e, scratch_used));
      // The shape this entry contributes to the broadcast: a mask's count.
      const int64_t* shape = e.mask ? &e.count : idx.sizes().data();
      const int shape_rank = e.mask ? 1 : idx.dim();
      if (first < 0) {
        first = dim;
        brank = shape_rank;
        for (int d = 0; d < brank; ++d) bsizes[d] = shape[d];
      } else {
        adjacent = adjacent && last == dim - 1;
        int64_t merged[kMaxRank];
        int merged_rank = 0;
        ETKIT_KERNEL_CHECK(context,
                           broadcast_shape(Span<const int64_t>(bsizes, size_t(brank)),
                                           Span<const int64_t>(shape, size_t(shape_rank)), merged, merged_rank),
                           "shape mismatch: indexing tensors could not be broadcast together");
        std::memcpy(bsizes, merged, sizeof(int64_t) * size_t(merged_rank));
        brank = merged_rank;
      }
      for (int d = dim; d < dim + consumed; ++d) indexed_[d] = true;
      dim += consumed;
      last = dim - 1;
    }
    ETKIT_KERNEL_CHECK(context, first >= 0, "at least one index tensor is required");
    int free_count = 0;
    for (int d = 0; d < self.dim(); ++d) free_count += !indexed_[d];
    ETKIT_KERNEL_CHECK(context, brank + free_count <= kMaxRank, "result rank too large");
    place_result_dims(self, bsizes, free_count);
    return Ok{};
  }

  /// The element offset in `self` of result position `counter`; an index
  /// out of bounds is an error naming it.
  Status source_offset(KernelContext& context, const Tensor& self, const int64_t* counter, int64_t& offset) const {
    offset = 0;
    for (int d = 0; d < self.dim(); ++d) {
      if (!indexed_[d]) offset += counter[free_position_[d]] * self.stride(d);
    }
    for (size_t i = 0; i < count_; ++i) {
      const Entry& e = entries_[i];
      if (e.tensor == nullptr) continue;
      if (e.mask) {
        const int64_t c = counter[index_start + brank - 1];
        offset += e.positions[e.count == 1 ? 0 : c];
        continue;
      }
      const Tensor& idx = *e.tensor;
      int64_t flat = 0, stride = 1;
      for (int d = idx.dim() - 1; d >= 0; --d) {
        const int64_t c = counter[index_start + brank - idx.dim() + d];
        flat += (idx.size(d) == 1 ? 0 : c) * stride;
        stride *= idx.size(d);
      }
      const int64_t at = idx.scalar_type() == ScalarType::kLong ? idx.data_as<const int64_t>()[flat]
                                                                 : idx.data_as<const int32_t>()[flat];
      const int64_t length = self.size(e.dim);
      ETKIT_KERNEL_CHECK(context, at >= -length && at < length,
                         "index %lld is out of bounds for dimension %d with size %lld", (long long)at, e.dim,
                         (long long)length);
      offset += (at < 0 ? at + length : at) * self.stride(e.dim);
    }
    return Ok{};
  }

 private:
  /// The result's shape: the broadcast index shape `bsizes` at
  /// index_start (where the indexed dims were, when adjacent; else first),
  /// and each dim of self not indexed keeping its size at its place.
  void place_result_dims(const Tensor& self, const int64_t* bsizes, int free_count) {
    index_start = adjacent ? first : 0;
    for (int d = 0; d < self.dim(); ++d) {
      if (indexed_[d]) continue;
      const bool before = adjacent && d < first;
      free_position_[d] = before ? d : brank + (adjacent ? d - (last + 1) + first : free_rank_);
      ++free_rank_;
    }
    rank = brank + free_count;
    for (int d = 0; d < brank; ++d) sizes[index_start + d] = bsizes[d];
    for (int d = 0; d < self.dim(); ++d) {
      if (!indexed_[d]) sizes[free_position_[d]] = self.size(d);
    }
  }

  struct Entry {
    const Tensor* tensor = nullptr;  // null: None
    int dim = 0;                     // the first dim of self it indexes
    bool mask = false;
    int64_t count = 0;               // a mask's true positions
    const int64_t* positions = nullptr;  // their offsets in self (scratch)
  };

  // Lists the offsets in self of a mask's true positions (the mask covers
  // self's dims [dim, dim + mask.dim())), in the kernel scratch.
  static Status list_true_positions(KernelContext& context, const Tensor& self, const Tensor& mask, int dim,
                                    Entry& e, size_t& scratch_used) {
    for (int d = 0; d < mask.dim(); ++d) {
      ETKIT_KERNEL_CHECK(context, mask.size(d) == self.size(dim + d),
                         "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s "
                         "at index %d",
                         format_sizes(mask.sizes()).c_str(), d, format_sizes(self.sizes()).c_str(), dim + d);
    }
    const uint8_t* m = mask.data_as<const uint8_t>();
    int64_t trues = 0;
    for (int64_t k = 0; k < mask.numel(); ++k) trues += m[k] != 0;
    const size_t bytes = size_t(trues) * sizeof(int64_t);
    ETKIT_KERNEL_CHECK(context, scratch_used + bytes <= context.scratch.size(),
                       "a mask with %lld true positions exceeds the kernel scratch", (long long)trues);
    auto* positions = reinterpret_cast<int64_t*>(context.scratch.data() + scratch_used);
    scratch_used += bytes;
    int64_t index[kMaxRank] = {};
    int64_t n = 0;
    for (int64_t k = 0; k < mask.numel(); ++k) {
      if (m[k] != 0) {
        int64_t offset = 0;
        for (int d = 0; d < mask.dim(); ++d) offset += index[d] * self.stride(dim + d);
        positions[n++] = offset;
      }
      next_index(index, mask.sizes().data(), mask.dim());
    }
    e.count = trues;
    e.positions = positions;
    return Ok{};
  }

  Entry entries_[kMaxRank];
  size_t count_ = 0;
  bool indexed_[kMaxRank] = {};      // by dim of self: covered by an index
  int free_position_[kMaxRank] = {}; // by dim of self not indexed: its dim in the result
  int free_rank_ = 0;
};

}  // namespace etkit::kernels
