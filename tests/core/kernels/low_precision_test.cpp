// float16 and bfloat16 through the float32 kernels (core's low-precision
// staging), for every registered tensor kernel (dtype_cases.cpp), against
// libtorch in the same dtype. Where libtorch 1.13 has no CPU kernel for the
// dtype (it throws), the reference is the op computed in float32 and
// rounded to the dtype, which is what ATen's CPU kernels do where they
// exist. Results may differ from libtorch by one unit in the last place:
// its kernels accumulate in another order before the one rounding.
//
// Debian's libtorch 1.13 is the exception for bfloat16 matrix multiplies,
// layer and group norm, and convolutions on CPUs without AVX-512 (measured
// on AMD EPYC): they do not accumulate in float32 (measured: up to 0.125
// off the float32 result rounded, on 64-term dot products of N(0, 1)
// values), where later ATen releases and upstream's portable kernels do.
// Those cases are checked against the float32 computation rounded to
// bfloat16, and against libtorch within its own accumulation error.

#include <gtest/gtest.h>

#include <set>

#include "dtype_cases.h"

namespace etkit {
namespace {

using test::DtypeCase;
using test::DtypeOutcome;
using test::OpRunner;

void expect_every_op_runs(at::ScalarType dtype) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (const DtypeCase& c : test::dtype_cases(rng)) {
    const test::DtypeResult result = test::run_dtype_case(c, dtype);
    const bool ok = result.outcome == DtypeOutcome::kMatchesLibtorch ||
                    result.outcome == DtypeOutcome::kMatchesFloat32Rounded ||
                    // Integer-only ops (bitwise_not) are refused in every float dtype, as by ATen.
                    result.outcome == DtypeOutcome::kRefusedLikeLibtorch;
    EXPECT_TRUE(ok) << c.op << " in " << c10::toString(dtype) << ": " << result.detail;
    if (result.outcome == DtypeOutcome::kRefusedLikeLibtorch) {
      EXPECT_EQ(c.op, "aten::bitwise_not.out") << "refused in " << c10::toString(dtype) << ": " << result.detail;
    }
  }
}

TEST(LowPrecision, EveryOpInBFloat16AgainstLibtorchOrFloat32Rounded) { expect_every_op_runs(at::kBFloat16); }

TEST(LowPrecision, EveryOpInFloat16AgainstLibtorchOrFloat32Rounded) { expect_every_op_runs(at::kHalf); }

TEST(LowPrecision, Float32KernelsAreNotStaged) {
  // The staging is for float16/bfloat16 only: a float32 call runs the
  // kernel directly (an out of the wrong dtype is still refused by it).
  OpRunner op("aten::mm.out");
  op.tensor(at::ones({2, 2})).tensor(at::ones({2, 2})).out(at::kFloat, {2, 2}).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_TRUE(test::tensors_close(op.result(), at::full({2, 2}, 2.0f)));
}

TEST(KernelDtypes, NoDtypeGivesAResultOtherThanLibtorchs) {
  // Every case in every dtype: refusing is allowed (the README's table
  // shows where), a different answer is not.
  std::mt19937_64 rng(test::kernel_test_seed());
  for (const DtypeCase& c : test::dtype_cases(rng)) {
    for (at::ScalarType dtype : test::table_dtypes()) {
      const test::DtypeResult result = test::run_dtype_case(c, dtype);
      EXPECT_NE(result.outcome, DtypeOutcome::kWrongResult) << c.op << " in " << c10::toString(dtype) << ": " << result.detail;
    }
  }
}

TEST(KernelDtypes, FloatAndDoubleRunWhereLibtorchDoes) {
  std::mt19937_64 rng(test::kernel_test_seed());
  for (const DtypeCase& c : test::dtype_cases(rng)) {
    for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
      const test::DtypeResult result = test::run_dtype_case(c, dtype);
      EXPECT_NE(result.outcome, DtypeOutcome::kRefusedLibtorchRuns) << c.op << " in " << c10::toString(dtype) << ": " << result.detail;
    }
  }
}

TEST(KernelDtypes, EveryRegisteredTensorKernelHasACase) {
  std::mt19937_64 rng(test::kernel_test_seed());
  std::set<std::string> covered;
  for (const DtypeCase& c : test::dtype_cases(rng)) covered.insert(c.op);
  const test::UncoveredKernels& uncovered = test::uncovered_kernels();
  for (const std::string& name : default_kernel_registry().names()) {
    bool excused = std::count(uncovered.names.begin(), uncovered.names.end(), name) > 0;
    for (const std::string& prefix : uncovered.prefixes) excused = excused || name.rfind(prefix, 0) == 0;
    EXPECT_TRUE(covered.count(name) > 0 || excused) << name << " has no dtype case";
    EXPECT_FALSE(covered.count(name) > 0 && excused) << name << " is both covered and excused";
  }
  for (const std::string& op : covered) {
    EXPECT_NE(default_kernel_registry().find(op), nullptr) << op << " is not registered";
  }
}

}  // namespace
}  // namespace etkit
