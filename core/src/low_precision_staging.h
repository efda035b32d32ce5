#pragma once
// Float16 and bfloat16 through the float32 kernels. ATen's CPU kernels
// compute these dtypes in float32 and round to the dtype once, at the end
// of each op (element-wise ops per element, reductions, matrix multiplies,
// convolutions, softmax and norms after accumulating in float). An
// instruction with float16 or bfloat16 tensors therefore runs its kernel on
// float32 copies of them and rounds its outputs back: the same result, and
// the float32 kernels' speed for float32 programs untouched. Everything is
// prepared at load (copies' memory in one arena shared by all
// instructions, which run one at a time); execute only converts.

#include <cstdint>
#include <vector>

#include "etkit/core/kernel_registry.h"
#include "etkit/core/tensor.h"
#include "etkit/core/value.h"

namespace etkit::detail {

struct LowPrecisionStaging {
  struct Pair {
    Tensor* original = nullptr;
    Tensor* staged = nullptr;
    bool out = false;
  };
  std::vector<Pair> pairs;
  std::vector<Value*> args;       // the kernel's arguments, staged where needed
  std::vector<Value> values;      // staged argument values
  std::vector<Tensor> tensors;    // staged tensors (float32, over the arena)
  std::vector<Tensor*> list_items;
  size_t bytes = 0;               // arena bytes this instruction needs
};

/// True when the arguments hold a float16 or bfloat16 tensor.
bool needs_low_precision_staging(Span<Value*> args);

/// Plans the staging of `args` (out arguments flagged in `out_args`);
/// tensors get their memory in `bind_staging`.
LowPrecisionStaging plan_staging(Span<Value*> args, uint64_t out_args);

/// Points the staged tensors at `arena` (at least `staging.bytes` long).
Status bind_staging(LowPrecisionStaging& staging, Span<uint8_t> arena);

/// Runs `kernel` on the staged arguments: converts every low-precision
/// tensor to float32, calls the kernel, rounds the outs back.
Status run_staged(KernelFunction kernel, KernelContext& context, LowPrecisionStaging& staging);

}  // namespace etkit::detail
