#pragma once
// Calls one registered etkit kernel on ATen tensors, so kernel tests can
// compare against libtorch (the oracle) on identical inputs.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "etkit/core/kernel_registry.h"
#include "etkit/core/parallel.h"
#include "etkit/core/tensor.h"
#include "etkit/core/value.h"

namespace etkit::test {

/// Seed for randomized kernel tests: ETKIT_TEST_SEED, or a fixed default.
/// Failing tests print it so a reviewer can rerun with the same one.
uint64_t kernel_test_seed();

class OpRunner {
 public:
  /// `op` is the registry name, e.g. "aten::add.out".
  explicit OpRunner(std::string op);

  OpRunner& tensor(const at::Tensor& t);        ///< input tensor (dense layout)
  OpRunner& optional_tensor(const at::Tensor* t);  ///< tensor or None
  OpRunner& integer(int64_t v);
  OpRunner& real(double v);
  OpRunner& boolean(bool v);
  OpRunner& none();
  OpRunner& string(const std::string& s);
  OpRunner& ints(const std::vector<int64_t>& v);
  OpRunner& doubles(const std::vector<double>& v);
  OpRunner& tensors(const std::vector<at::Tensor>& v);
  /// A Tensor?[] argument: null items are None.
  OpRunner& optional_tensors(const std::vector<const at::Tensor*>& v);
  /// An out tensor with room for `capacity_sizes` of `dtype`, in
  /// `format`'s layout; the kernel resizes it.
  OpRunner& out(at::ScalarType dtype, at::IntArrayRef capacity_sizes,
                at::MemoryFormat format = at::MemoryFormat::Contiguous);
  /// An out tensor that is not an argument itself, only an item of the
  /// list outs_as_list() passes (e.g. split's `Tensor[] out`).
  OpRunner& list_out(at::ScalarType dtype, at::IntArrayRef capacity_sizes);
  /// The list of all outs so far, as a returned TensorList argument.
  OpRunner& outs_as_list();
  /// Repeats the last out as the returned value (upstream passes it twice).
  OpRunner& returned();
  /// A tensor the kernel updates in place (self of index_put_, copy_):
  /// starts as a copy of `initial` and is out `k` in order with the outs.
  OpRunner& inout(const at::Tensor& initial);
  /// Passes argument `index` again (the returned self of in-place ops).
  OpRunner& returns_arg(size_t index);

  /// Runs the kernel over `runner`'s workers (each with its scratch), as
  /// Method does with MethodOptions::parallel; null: one thread.
  OpRunner& workers(const ParallelRunner* runner);

  /// Runs the kernel; an error message, or "" on success.
  std::string run();
  /// Out `k` after run(), copied into a new ATen tensor with its final shape.
  at::Tensor result(size_t k = 0) const;
  /// The Value at argument `index` after run() (for scalar prim ops).
  const Value& arg(size_t index) const { return *args_[index]; }

 private:
  Tensor wrap(const at::Tensor& t);
  std::string op_;
  std::deque<at::Tensor> keep_;       // ATen storage kept alive
  std::deque<Tensor> tensors_;        // etkit views
  std::deque<Value> values_;          // argument values
  std::deque<Value> boxed_;           // IntList items
  std::deque<std::vector<Value*>> int_lists_;
  std::deque<std::vector<Tensor*>> tensor_lists_;
  OpRunner& tensor_list(const std::vector<const at::Tensor*>& v, bool optional);
  std::deque<std::vector<double>> double_lists_;
  std::deque<std::string> strings_;
  std::vector<Value*> args_;
  std::vector<Tensor*> outs_;
  std::vector<uint8_t> scratch_;
  const ParallelRunner* runner_ = nullptr;
};

/// Random tensor of `dtype`: normal floats, or integers in [low, high).
at::Tensor random_tensor(std::mt19937_64& rng, at::IntArrayRef sizes, at::ScalarType dtype,
                         int64_t low = -10, int64_t high = 10);

/// Checks `actual` against `expected`: same dtype and shape, and values
/// within |a - e| <= atol + rtol * |e| (NaN equal to NaN, infinities equal).
::testing::AssertionResult tensors_close(const at::Tensor& actual, const at::Tensor& expected,
                                         double rtol = 0, double atol = 0);

}  // namespace etkit::test
