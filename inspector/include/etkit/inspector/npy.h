#pragma once
/// @file
/// Reading and writing NumPy .npy files (format versions 1.0-3.0), the
/// ecosystem's common format for tensors in and out of etkit.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"
#include "etkit/core/tensor.h"

namespace etkit::inspector {

/// A dense C-order array with its own bytes.
struct NpyArray {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  ///< C-order, little-endian; 64-byte aligned use
                              ///< is not guaranteed (copy into tensors).
  int64_t numel() const;
  /// A tensor viewing `data` (valid while the array's bytes live; moving
  /// the vector keeps them in place).
  Result<Tensor> view();
};

/// Reads `path`. Errors name the file and the unsupported feature (Fortran
/// order, big-endian, object or structured dtypes).
Result<NpyArray> read_npy(const std::string& path);

/// Parses .npy bytes (for tests and in-memory sources).
Result<NpyArray> parse_npy(const uint8_t* bytes, size_t size, const std::string& name);

/// Writes `tensor` (any layout) as a C-order .npy file. bfloat16 has no
/// NumPy dtype and is written as float32.
Status write_npy(const std::string& path, const Tensor& tensor);

/// The .npy bytes of `tensor`.
Result<std::vector<uint8_t>> encode_npy(const Tensor& tensor);

}  // namespace etkit::inspector
