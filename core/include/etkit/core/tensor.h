#pragma once
/// @file
/// Tensor: a view of typed, strided memory. It owns nothing; its sizes live
/// inline so creating or resizing one never allocates.

#include <cstddef>
#include <cstdint>

#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"
#include "etkit/core/span.h"

namespace etkit {

/// Highest rank a tensor may have (PyTorch's own limit is 25; real models
/// stay far below 16).
constexpr int kMaxRank = 16;

class Tensor {
 public:
  Tensor() = default;
  /// A view of `data` with the given sizes and dim order (identity when
  /// `dim_order` is empty). `capacity` is the bytes available at `data`,
  /// the bound for resizes. Fails for ranks above kMaxRank, negative
  /// sizes, or a dim order that is not a permutation.
  static Result<Tensor> make(ScalarType type, Span<const int64_t> sizes,
                             Span<const uint8_t> dim_order, void* data,
                             size_t capacity);

  ScalarType scalar_type() const { return type_; }
  int dim() const { return dim_; }
  Span<const int64_t> sizes() const { return {sizes_, static_cast<size_t>(dim_)}; }
  Span<const int64_t> strides() const { return {strides_, static_cast<size_t>(dim_)}; }
  Span<const uint8_t> dim_order() const { return {dim_order_, static_cast<size_t>(dim_)}; }
  int64_t size(int d) const { return sizes_[d]; }
  int64_t stride(int d) const { return strides_[d]; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return etkit::element_size(type_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  size_t capacity() const { return capacity_; }

  void* data() const { return data_; }
  template <typename T>
  T* data_as() const { return static_cast<T*>(data_); }
  void set_data(void* data, size_t capacity) {
    data_ = data;
    capacity_ = capacity;
  }

  /// True when the dim order is 0, 1, …, n-1 (row-major contiguous).
  bool is_default_dim_order() const;
  /// True when dim order is (0, 2, 3, 1) on a rank-4 tensor.
  bool is_channels_last() const;

  /// Changes the sizes keeping the dim order; fails (without changing the
  /// tensor) when the new shape needs more bytes than the capacity or has a
  /// different rank.
  Status resize(Span<const int64_t> sizes);

 private:
  void compute_strides();

  ScalarType type_ = ScalarType::kFloat;
  int dim_ = 0;
  int64_t numel_ = 1;
  void* data_ = nullptr;
  size_t capacity_ = 0;
  int64_t sizes_[kMaxRank] = {};
  int64_t strides_[kMaxRank] = {};
  uint8_t dim_order_[kMaxRank] = {};
};

}  // namespace etkit
