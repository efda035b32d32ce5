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

#include <functional>
#include <set>

#include "dtype_cases.h"
#include "support/kernels.h"

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
                    result.outcome == DtypeOutcome::kRefusedLikeLibtorch;
    EXPECT_TRUE(ok) << c.op << " in " << c10::toString(dtype) << ": " << result.detail;
    if (result.outcome == DtypeOutcome::kRefusedLikeLibtorch) {
      // Integer-only ops (bitwise and shifts) are refused in every float dtype, as by ATen.
      EXPECT_TRUE(c.op.rfind("aten::bitwise_", 0) == 0) << "refused in " << c10::toString(dtype) << ": " << result.detail;
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
  // Every case in every dtype: refusing is allowed (docs/kernels.md's table
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

// Mixed dtypes promote as ATen's type-promotion rules say (float16 with
// bfloat16 gives float32, a 0-d tensor does not raise a dimensioned one of
// the same category, ...): every pair of dtypes through binary ops, against
// libtorch, which also decides which pairs are refused.
TEST(KernelDtypes, MixedDtypesPromoteAsATen) {
  std::mt19937_64 rng(test::kernel_test_seed());
  struct Binary {
    const char* op;
    std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> f;
    bool alpha;
  };
  const std::vector<Binary> ops = {
      {"aten::add.out", [](auto& a, auto& b) { return at::add(a, b); }, true},
      {"aten::sub.out", [](auto& a, auto& b) { return at::sub(a, b); }, true},  // refused for two bools
      {"aten::mul.out", [](auto& a, auto& b) { return at::mul(a, b); }, false},
      {"aten::div.out", [](auto& a, auto& b) { return at::div(a, b); }, false},
      {"aten::maximum.out", [](auto& a, auto& b) { return at::maximum(a, b); }, false},
      {"aten::lt.Tensor_out", [](auto& a, auto& b) { return at::lt(a, b); }, false},
  };
  const at::Tensor x = test::random_tensor(rng, {4, 1, 5}, at::kFloat);
  const at::Tensor y = test::random_tensor(rng, {3, 1}, at::kFloat).abs() + 0.5;
  const at::Tensor scalar = at::full({}, 1.75f);
  int compared = 0, refused = 0;
  for (const Binary& b : ops) {
    for (at::ScalarType da : test::table_dtypes()) {
      for (at::ScalarType db : test::table_dtypes()) {
        for (const at::Tensor& other : {y, scalar}) {
          const at::Tensor a = test::in_dtype(x, da), c = test::in_dtype(other, db);
          SCOPED_TRACE(std::string(b.op) + " of " + c10::toString(da) + " and " + c10::toString(db) +
                       (other.dim() == 0 ? " (0-d)" : ""));
          at::Tensor expected;
          try {
            expected = b.f(a, c);
          } catch (const std::exception&) {
          }
          OpRunner op(b.op);
          op.tensor(a).tensor(c);
          if (b.alpha) op.integer(1);
          op.out(expected.defined() ? expected.scalar_type() : da, {4, 3, 5}).returned();
          const std::string error = op.run();
          if (!expected.defined()) {
            EXPECT_NE(error, "") << "libtorch refuses it";
            ++refused;
            continue;
          }
          ASSERT_EQ(error, "");
          const double tol = test::tolerance(expected.scalar_type());
          EXPECT_TRUE(test::tensors_close(op.result(), expected, tol, tol));
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(refused, 0);  // sub of two bools
}

TEST(KernelDtypes, EveryRegisteredTensorKernelHasACase) {
  std::mt19937_64 rng(test::kernel_test_seed());
  std::set<std::string> covered;
  for (const DtypeCase& c : test::dtype_cases(rng)) covered.insert(c.op);
  const test::UncoveredKernels& uncovered = test::uncovered_kernels();
  for (const std::string& name : all_kernels().names()) {
    bool excused = std::count(uncovered.names.begin(), uncovered.names.end(), name) > 0;
    for (const std::string& prefix : uncovered.prefixes) excused = excused || name.rfind(prefix, 0) == 0;
    EXPECT_TRUE(covered.count(name) > 0 || excused) << name << " has no dtype case";
    EXPECT_FALSE(covered.count(name) > 0 && excused) << name << " is both covered and excused";
  }
  for (const std::string& op : covered) {
    EXPECT_NE(all_kernels().find(op), nullptr) << op << " is not registered";
  }
}

}  // namespace
}  // namespace etkit
