#include "numpy_tensors.h"

#include <vector>

#include "errors.h"
#include "etkit/core/half_types.h"

namespace py = pybind11;

namespace etkit::python {

py::dtype numpy_dtype(ScalarType type) {
  switch (type) {
    case ScalarType::kByte: return py::dtype::of<uint8_t>();
    case ScalarType::kChar: return py::dtype::of<int8_t>();
    case ScalarType::kShort: return py::dtype::of<int16_t>();
    case ScalarType::kInt: return py::dtype::of<int32_t>();
    case ScalarType::kLong: return py::dtype::of<int64_t>();
    case ScalarType::kHalf: return py::dtype("float16");
    case ScalarType::kFloat: return py::dtype::of<float>();
    case ScalarType::kDouble: return py::dtype::of<double>();
    case ScalarType::kBool: return py::dtype("bool");
    case ScalarType::kUInt16: return py::dtype::of<uint16_t>();
    case ScalarType::kUInt32: return py::dtype::of<uint32_t>();
    case ScalarType::kBFloat16: {
      // uint16 with metadata: numpy keeps it through views and copies.
      py::dict metadata;
      metadata["etkit_dtype"] = "bfloat16";
      return py::module_::import("numpy").attr("dtype")("uint16", py::arg("metadata") = metadata).cast<py::dtype>();
    }
    default: break;
  }
  throw EtkitError(std::string("a ") + to_string(type) + " tensor has no numpy dtype");
}

namespace {

std::vector<py::ssize_t> shape_of(const Tensor& tensor) {
  return {tensor.sizes().begin(), tensor.sizes().end()};
}

std::vector<py::ssize_t> byte_strides_of(const Tensor& tensor) {
  std::vector<py::ssize_t> strides;
  for (int64_t s : tensor.strides()) strides.push_back(py::ssize_t(s * int64_t(tensor.element_size())));
  return strides;
}

}  // namespace

py::array view_of(const Tensor& tensor, py::handle owner) {
  py::array array(numpy_dtype(tensor.scalar_type()), shape_of(tensor), byte_strides_of(tensor), tensor.data(), owner);
  // Views of a file's bytes are read-only: writing would change the file's mapping.
  array.attr("setflags")(py::arg("write") = false);
  return array;
}

py::array copy_of(const Tensor& tensor) {
  // Without a base pybind11 copies the bytes; ascontiguousarray then
  // orders the copy by the tensor's logical shape (a channels-last tensor
  // comes out as a C-contiguous NCHW array).
  py::array view(numpy_dtype(tensor.scalar_type()), shape_of(tensor), byte_strides_of(tensor), tensor.data());
  return py::module_::import("numpy").attr("ascontiguousarray")(view).cast<py::array>();
}

py::array bfloat16_as_float32(const py::array& bits) {
  const auto in = py::array_t<uint16_t, py::array::c_style | py::array::forcecast>::ensure(bits);
  py::array_t<float> out(std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
  const uint16_t* source = in.data();
  float* target = out.mutable_data();
  BFloat16 value;
  for (py::ssize_t i = 0; i < in.size(); ++i) {
    value.bits = source[i];
    target[i] = float(value);
  }
  return std::move(out);
}

py::array float_as_bfloat16(const py::array& values) {
  const auto in = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(values);
  py::array out(numpy_dtype(ScalarType::kBFloat16), std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
  const float* source = in.data();
  auto* target = static_cast<uint16_t*>(out.mutable_data());
  for (py::ssize_t i = 0; i < in.size(); ++i) target[i] = BFloat16(source[i]).bits;
  return out;
}

std::string describe(const Tensor& tensor) {
  std::string text = std::string(to_string(tensor.scalar_type())) + "[";
  for (size_t d = 0; d < tensor.sizes().size(); ++d) text += (d ? ", " : "") + std::to_string(tensor.sizes()[d]);
  return text + "]";
}

bool dtype_matches(const py::array& array, ScalarType type) {
  if (type == ScalarType::kBFloat16) return array.dtype().equal(py::dtype::of<uint16_t>());
  return array.dtype().equal(numpy_dtype(type));
}

}  // namespace etkit::python
