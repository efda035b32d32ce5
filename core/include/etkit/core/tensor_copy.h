#pragma once
// The copies the runtime itself makes: an input given in another dim order
// copied into the program's own layout, and float16/bfloat16 tensors staged
// as float32 around a kernel. Kernels have their own, faster engine
// (etkit/kernels/copy_util.h) built on these.

#include "etkit/core/result.h"
#include "etkit/core/tensor.h"

namespace etkit {

/// Copies `in` into `out` element by element in logical (row-major) order
/// even when their shapes or dim orders differ (same dtype; numel must
/// match).
void copy_logical_order(const Tensor& in, Tensor& out);

/// Converts between float32 and float16 or bfloat16: `out` is resized to
/// `in`'s sizes (within its capacity) and both share one dim order.
Status convert_float_staging(const Tensor& in, Tensor& out);

}  // namespace etkit
