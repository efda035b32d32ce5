#include <gtest/gtest.h>

#include "op_runner.h"

#include "../../core/src/low_precision_staging.h"

#include "../support/corpus.h"  // test::checked (header-only; the bench builds this file too)
#include "etkit/kernels/all_kernels.h"

#include <cstdlib>
#include <sstream>

namespace etkit::test {

uint64_t kernel_test_seed() {
  const char* seed = std::getenv("ETKIT_TEST_SEED");
  return seed ? std::strtoull(seed, nullptr, 10) : 20261122u;
}

OpRunner::OpRunner(std::string op) : op_(std::move(op)), scratch_(kKernelScratchBytes + 64) {}

Tensor OpRunner::wrap(const at::Tensor& t) {
  // Dim order from strides: dims sorted by decreasing stride (ties keep
  // their order), which is how ExecuTorch derives it.
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  std::vector<uint8_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint8_t a, uint8_t b) { return t.stride(a) > t.stride(b); });
  return test::checked(Tensor::make(static_cast<ScalarType>(t.scalar_type()), Span<const int64_t>(sizes.data(), sizes.size()),
                              Span<const uint8_t>(order.data(), order.size()), t.data_ptr(),
                              t.numel() * t.element_size()),
                 "a view of an ATen tensor");
}

OpRunner& OpRunner::tensor(const at::Tensor& t) {
  keep_.push_back(t);
  tensors_.push_back(wrap(keep_.back()));
  values_.push_back(Value::from_tensor(&tensors_.back()));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::optional_tensor(const at::Tensor* t) { return t ? tensor(*t) : none(); }
OpRunner& OpRunner::integer(int64_t v) {
  values_.push_back(Value::from_int(v));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::real(double v) {
  values_.push_back(Value::from_double(v));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::boolean(bool v) {
  values_.push_back(Value::from_bool(v));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::none() {
  values_.push_back(Value());
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::string(const std::string& s) {
  strings_.push_back(s);
  values_.push_back(Value::from_string(strings_.back()));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::ints(const std::vector<int64_t>& v) {
  int_lists_.emplace_back();
  for (int64_t x : v) {
    boxed_.push_back(Value::from_int(x));
    int_lists_.back().push_back(&boxed_.back());
  }
  values_.push_back(Value::from_int_list(
      Span<Value* const>(int_lists_.back().data(), int_lists_.back().size())));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::doubles(const std::vector<double>& v) {
  double_lists_.push_back(v);
  values_.push_back(Value::from_double_list(
      Span<const double>(double_lists_.back().data(), double_lists_.back().size())));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::tensors(const std::vector<at::Tensor>& v) {
  std::vector<const at::Tensor*> items;
  for (const auto& t : v) items.push_back(&t);
  return tensor_list(items, false);
}
OpRunner& OpRunner::optional_tensors(const std::vector<const at::Tensor*>& v) { return tensor_list(v, true); }
OpRunner& OpRunner::tensor_list(const std::vector<const at::Tensor*>& v, bool optional) {
  tensor_lists_.emplace_back();
  for (const at::Tensor* t : v) {
    if (t == nullptr) {  // None, in a Tensor?[]
      tensor_lists_.back().push_back(nullptr);
      continue;
    }
    keep_.push_back(*t);
    tensors_.push_back(wrap(keep_.back()));
    tensor_lists_.back().push_back(&tensors_.back());
  }
  values_.push_back(Value::from_tensor_list(
      Span<Tensor* const>(tensor_lists_.back().data(), tensor_lists_.back().size()), optional));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::out(at::ScalarType dtype, at::IntArrayRef capacity_sizes,
                        at::MemoryFormat format) {
  keep_.push_back(at::full(capacity_sizes, 7, at::TensorOptions().dtype(dtype))
                      .contiguous(format));  // junk contents: kernels must overwrite
  tensors_.push_back(wrap(keep_.back()));
  outs_.push_back(&tensors_.back());
  values_.push_back(Value::from_tensor(&tensors_.back()));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::list_out(at::ScalarType dtype, at::IntArrayRef capacity_sizes) {
  keep_.push_back(at::full(capacity_sizes, 7, at::TensorOptions().dtype(dtype)));
  tensors_.push_back(wrap(keep_.back()));
  outs_.push_back(&tensors_.back());
  return *this;
}

OpRunner& OpRunner::outs_as_list() {
  tensor_lists_.emplace_back(outs_);
  values_.push_back(Value::from_tensor_list(
      Span<Tensor* const>(tensor_lists_.back().data(), tensor_lists_.back().size()), false));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::inout(const at::Tensor& initial) {
  keep_.push_back(initial.clone().contiguous());
  tensors_.push_back(wrap(keep_.back()));
  outs_.push_back(&tensors_.back());
  values_.push_back(Value::from_tensor(&tensors_.back()));
  args_.push_back(&values_.back());
  return *this;
}
OpRunner& OpRunner::returns_arg(size_t index) {
  args_.push_back(args_.at(index));
  return *this;
}
OpRunner& OpRunner::returned() {
  args_.push_back(args_.back());
  return *this;
}

OpRunner& OpRunner::workers(const ParallelRunner* runner) {
  runner_ = runner;
  const size_t workers = runner != nullptr ? runner->workers : 1;
  scratch_.assign(workers * kKernelScratchBytes + 64, 0);
  return *this;
}

std::string OpRunner::run() {
  const KernelEntry* entry = all_kernels().find(op_);
  if (entry == nullptr) return "no kernel registered for " + op_;
  if (entry->signature.size() != args_.size()) {
    return "test passes " + std::to_string(args_.size()) + " args, signature " + entry->signature;
  }
  auto base = reinterpret_cast<uintptr_t>(scratch_.data());
  auto* aligned = reinterpret_cast<uint8_t*>((base + 63) & ~uintptr_t{63});
  KernelContext context{op_.c_str(), Span<uint8_t>(aligned, kKernelScratchBytes)};
  if (runner_ != nullptr) {
    context.parallel = runner_;
    context.worker_scratch = Span<uint8_t>(aligned, runner_->workers * kKernelScratchBytes);
  }
  const Span<Value*> args(args_.data(), args_.size());
  if (!detail::needs_low_precision_staging(args)) {
    Status status = entry->function(context, args);
    return status.ok() ? std::string() : std::string(status.error().message());
  }
  // float16/bfloat16: through float32 copies, exactly as Method runs them.
  uint64_t outs = 0;
  for (size_t a = 0; a < entry->signature.size() && a < 64; ++a) {
    if (entry->signature[a] == 'W' || entry->signature[a] == 'M') outs |= uint64_t(1) << a;
  }
  detail::LowPrecisionStaging staging = detail::plan_staging(args, outs);
  std::vector<uint8_t> arena(staging.bytes + 64);
  auto arena_base = reinterpret_cast<uintptr_t>(arena.data());
  auto* arena_aligned = reinterpret_cast<uint8_t*>((arena_base + 63) & ~uintptr_t{63});
  Status bound = detail::bind_staging(staging, Span<uint8_t>(arena_aligned, staging.bytes));
  if (!bound.ok()) return bound.error().message();
  Status status = detail::run_staged(entry->function, context, staging);
  return status.ok() ? std::string() : std::string(status.error().message());
}

at::Tensor OpRunner::result(size_t k) const {
  const Tensor& t = *outs_.at(k);
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  return at::from_blob(t.data(), sizes, strides,
                       at::TensorOptions().dtype(static_cast<at::ScalarType>(t.scalar_type())))
      .clone();
}

at::Tensor random_tensor(std::mt19937_64& rng, at::IntArrayRef sizes, at::ScalarType dtype,
                         int64_t low, int64_t high) {
  at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(at::kDouble));
  auto* p = t.data_ptr<double>();
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int64_t> uniform(low, high - 1);
  const bool floating = at::isFloatingType(dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    p[i] = floating ? normal(rng) : double(uniform(rng));
  }
  if (dtype == at::kBool) return t.gt(0);
  return t.to(dtype);
}

::testing::AssertionResult tensors_close(const at::Tensor& actual, const at::Tensor& expected,
                                         double rtol, double atol) {
  if (actual.scalar_type() != expected.scalar_type()) {
    return ::testing::AssertionFailure() << "dtype " << actual.scalar_type() << " vs expected "
                                         << expected.scalar_type();
  }
  if (actual.sizes() != expected.sizes()) {
    return ::testing::AssertionFailure() << "shape " << actual.sizes() << " vs expected "
                                         << expected.sizes();
  }
  if (actual.numel() == 0) return ::testing::AssertionSuccess();
  const at::Tensor a = actual.to(at::kDouble).contiguous();
  const at::Tensor e = expected.to(at::kDouble).contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = pa[i], y = pe[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;
    if (std::fabs(x - y) <= atol + rtol * std::fabs(y)) continue;
    return ::testing::AssertionFailure()
           << "element " << i << ": actual " << x << ", expected " << y << " (rtol " << rtol
           << ", atol " << atol << ", seed " << kernel_test_seed() << ")";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace etkit::test
