#pragma once
// The NumPy .npy format, as much as the runner needs: tensors in (the host
// writes each input as .npy) and out (output_<i>.npy). Version 1.0 headers,
// little-endian, C order.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/core/tensor.h"

namespace etkit::device {

struct NpyTensor {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  ///< C order
};

Result<NpyTensor> read_npy(const std::string& path);
/// Writes `tensor` in logical C order whatever its dim order.
Status write_npy(const std::string& path, const Tensor& tensor);

}  // namespace etkit::device
