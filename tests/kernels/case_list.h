#pragma once
// Builds the list of dtype cases (dtype_cases.h): one call of an op with
// its libtorch reference, on float32 inputs that take the dtype under test.

#include "dtype_cases.h"

namespace etkit::test {

using Arguments = std::function<void(OpRunner&, const Tensors&, at::ScalarType)>;
using Reference = std::function<Tensors(const Tensors&, at::ScalarType)>;

class CaseList {
 public:
  explicit CaseList(std::mt19937_64& rng) : rng_(rng) {}

  at::Tensor r(at::IntArrayRef sizes) { return random_tensor(rng_, sizes, at::kFloat); }
  /// Away from zero (|x| >= 0.4, so integer versions are non-zero):
  /// divisors of floor division and remainder, which ATen refuses to
  /// divide by integer zero.
  at::Tensor nonzero(at::IntArrayRef sizes) {
    at::Tensor x = r(sizes);
    return at::where(x.ge(0), x.abs() + 0.4, -(x.abs() + 0.4));
  }
  /// In [0, 1): exponents (integer versions 0..3).
  at::Tensor unit(at::IntArrayRef sizes) { return at::rand(sizes, at::TensorOptions().dtype(at::kFloat)); }

  DtypeCase& add(std::string op, Arguments arguments, Reference reference, Tensors inputs) {
    all_.push_back({std::move(op), std::move(arguments), std::move(reference), std::move(inputs)});
    return all_.back();
  }
  void unary(std::string op, std::function<at::Tensor(const at::Tensor&)> f) {
    add(std::move(op), [](OpRunner& o, const Tensors& t, auto) { o.tensor(t[0]); },
        [f](const Tensors& t, auto) { return Tensors{f(t[0])}; }, {r({5, 7}) * 2});
  }
  void binary(std::string op, std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> f,
              std::function<void(OpRunner&)> scalars = nullptr, bool nonzero_other = false) {
    // Broadcast: [4, 1, 5] with [3, 1].
    at::Tensor other = nonzero_other ? nonzero({3, 1}) : r({3, 1});
    add(std::move(op),
        [scalars](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]).tensor(t[1]);
          if (scalars) scalars(o);
        },
        [f](const Tensors& t, auto) { return Tensors{f(t[0], t[1])}; }, {r({4, 1, 5}), other});
  }
  void with_scalar(std::string op, std::function<at::Tensor(const at::Tensor&)> f,
                   std::function<void(OpRunner&)> scalars) {
    add(std::move(op),
        [scalars](OpRunner& o, const Tensors& t, auto) {
          o.tensor(t[0]);
          scalars(o);
        },
        [f](const Tensors& t, auto) { return Tensors{f(t[0])}; }, {r({4, 6}) * 2});
  }

  DtypeCase& last() { return all_.back(); }
  std::vector<DtypeCase> take() { return std::move(all_); }

 private:
  std::mt19937_64& rng_;
  std::vector<DtypeCase> all_;
};

// The cases of the op families, one function each.
void math_op_cases(CaseList& l);          // dtype_cases_math.cpp
void reduction_op_cases(CaseList& l);     // dtype_cases_math.cpp
void view_and_copy_cases(CaseList& l);    // dtype_cases_tensor.cpp
void index_and_scatter_cases(CaseList& l);  // dtype_cases_tensor.cpp
void creation_op_cases(CaseList& l);      // dtype_cases_tensor.cpp
void nn_op_cases(CaseList& l);            // dtype_cases_nn.cpp

}  // namespace etkit::test
