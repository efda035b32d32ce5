#pragma once
// One call of every registered tensor kernel, runnable in any dtype and
// checked against libtorch: the low-precision tests run each case in
// float16 and bfloat16, the dtype-coverage test in every dtype, and the
// op × dtype table of docs/kernels.md is printed from the same runs
// (kernel_dtype_table).
//
// A case's float32 inputs take the dtype under test (integers: the values
// times 3, rounded; bool: value > 0); inputs of any other dtype (int64
// indices, bool masks, float64 sources) keep theirs.

#include <ATen/ATen.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "op_runner.h"

namespace etkit::test {

using Tensors = std::vector<at::Tensor>;

struct DtypeCase {
  std::string op;
  /// Passes the inputs (already in the dtype under test) and any scalars.
  std::function<void(OpRunner&, const Tensors&, at::ScalarType)> arguments;
  /// libtorch's result for the same inputs: the outs to compare.
  std::function<Tensors(const Tensors&, at::ScalarType)> reference;
  Tensors inputs;
  /// Debian's libtorch 1.13 accumulates bfloat16 matrix products, layer
  /// and group norm (measured: up to 0.031 off on unit-scale outputs) and (on CPUs without AVX-512, where oneDNN's bfloat16 path is
  /// not taken: measured on AMD EPYC, up to 0.125 off) convolutions in
  /// bfloat16; the reference there is the float32 computation rounded once
  /// (what later ATen and upstream's portable kernels do), and libtorch's
  /// result is checked within its own accumulation error.
  bool libtorch_bf16_accumulates_low = false;
  /// Passes the outs when they are not one out per reference tensor
  /// followed by the returned value (or the out list, for several).
  std::function<void(OpRunner&, const Tensors& expected, at::ScalarType)> outs;
};

/// A case's input in `dtype` (float32 values only; see the file comment).
at::Tensor in_dtype(const at::Tensor& t, at::ScalarType dtype);

/// Relative and absolute tolerance for results of `dtype`.
double tolerance(at::ScalarType dtype);

/// Every case, with random inputs drawn from `rng`.
std::vector<DtypeCase> dtype_cases(std::mt19937_64& rng);

/// Registered kernels without a dtype case, each with the reason.
struct UncoveredKernels {
  std::vector<std::string> prefixes;  // e.g. "executorch_prim::"
  std::vector<std::string> names;
  std::string reason(const std::string& op) const;
};
const UncoveredKernels& uncovered_kernels();

enum class DtypeOutcome {
  kMatchesLibtorch,         // ran; equal to libtorch's result in this dtype
  kMatchesFloat32Rounded,   // ran; libtorch 1.13 has no CPU kernel in this dtype (or
                            // accumulates bfloat16 in bfloat16): equal to the float32
                            // computation rounded (converted, for integers) to it
  kRunsUnchecked,           // ran; no libtorch kernel, and the float32 computation
                            // converted to this integer dtype differs (not exact there)
  kRefusedLikeLibtorch,     // refused; libtorch refuses it too
  kRefusedLibtorchRuns,     // refused; libtorch runs it (a coverage gap)
  kWrongResult,             // ran; the result differs (a bug)
};

struct DtypeResult {
  DtypeOutcome outcome;
  std::string detail;  // the refusal or the difference
};

/// Runs `c` in `dtype` and classifies the result.
DtypeResult run_dtype_case(const DtypeCase& c, at::ScalarType dtype);

/// The dtypes of the coverage table, in its column order.
const std::vector<at::ScalarType>& table_dtypes();

}  // namespace etkit::test
