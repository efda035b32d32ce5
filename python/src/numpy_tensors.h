#pragma once
// etkit tensors as numpy arrays and back.
//
// numpy has no bfloat16: a bfloat16 tensor is a uint16 array of the raw bits
// whose dtype carries the metadata {"etkit_dtype": "bfloat16"} (see
// etkit.bfloat16_to_float32 and the README's "Python API"); Method.run hands
// its values over as float32 unless asked for the bits, and takes float
// arrays for bfloat16 inputs (rounded to nearest even).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "etkit/core/scalar_type.h"
#include "etkit/core/tensor.h"

namespace etkit::python {

/// The numpy dtype of `type`; throws etkit.Error for types numpy cannot hold.
pybind11::dtype numpy_dtype(ScalarType type);

/// An array viewing `tensor`'s bytes (no copy); `owner` keeps them alive.
pybind11::array view_of(const Tensor& tensor, pybind11::handle owner);
/// A copy of `tensor` as a new C-contiguous array.
pybind11::array copy_of(const Tensor& tensor);

/// The float32 values of a bfloat16 bits array (exact).
pybind11::array bfloat16_as_float32(const pybind11::array& bits);
/// bfloat16 bits of a floating array, rounded to nearest even as PyTorch.
pybind11::array float_as_bfloat16(const pybind11::array& values);

/// "float32[1, 3, 224, 224]".
std::string describe(const Tensor& tensor);

/// Whether `array`'s dtype is what a tensor of `type` needs (a bfloat16
/// tensor takes uint16 arrays of raw bits).
bool dtype_matches(const pybind11::array& array, ScalarType type);

}  // namespace etkit::python
