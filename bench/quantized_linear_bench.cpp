// A dynamically quantized linear (8da4w: qd8 activations, blockwise qb4w
// weights, group 32, as upstream's XNNPACK flow serializes it) through
// etkit's XNNPACK backend, against a float32 linear on etkit's kernels,
// one thread: the decode-time GEMV (1 x 2048 times 2048 x 2048) and a
// short prefill (32 rows). Prints median milliseconds and the ratio.
//
//   quantized_linear_bench

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "etkit/core/backend.h"
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#include "etkit/kernels/all_kernels.h"
#include "kernels/op_runner.h"
#include "median_time.h"
#include "support/xnn_payload_builder.h"

namespace {

using namespace etkit;

using etkit::bench::median_ms;

std::vector<uint8_t> linear_8da4w(int64_t rows, int64_t k, int64_t n) {
  const int64_t group = 32;
  at::Tensor nibbles = at::randint(0, 256, {n * k / 2}, at::kByte);
  std::vector<uint16_t> scales(size_t(n * k / group), 0x3BA0);  // bf16 ~0.0049
  at::Tensor bias = at::randn({n});
  test::PayloadBuilder p;
  const int x = p.value("fp32", {rows, k}, 0, 1);
  const int xq = p.value("qdint8", {rows, k}, 0, 0, {{"num_nonbatch_dims", 1}}, "PerTokenDynamicQuant");
  const int data = p.constant(nibbles.data_ptr(), size_t(nibbles.numel()));
  const int scale_data = p.constant(scales.data(), scales.size() * 2);
  const int w = p.value("qbint4", {n, k}, data, 0,
                        {{"channel_dim", 0}, {"group_size", group}, {"scale_buffer_idx", scale_data},
                         {"num_scales", scales.size()}},
                        "PerChannelGroupQuant");
  const int b = p.value("fp32", {n}, p.constant(bias.data_ptr(), size_t(n) * 4));
  const int y = p.value("fp32", {rows, n}, 0, 2);
  p.convert(x, xq, 1);
  p.fully_connected(xq, w, b, y, 2);
  return p.finish();
}

void bench_linear(int64_t rows, int64_t k, int64_t n) {
  const std::vector<uint8_t> payload = linear_8da4w(rows, k, n);
  xnnpack::XnnpackOptions options;
  options.threads = 1;
  xnnpack::XnnpackBackend backend(options);
  BackendInitContext context;
  context.kernels = &all_kernels();
  auto handle = backend.init(context, ByteSpan{payload.data(), payload.size()}, {});
  if (!handle.ok()) {
    std::printf("init failed: %s\n", handle.error().message());
    return;
  }
  at::Tensor x = at::randn({rows, k}), y = at::zeros({rows, n});
  const int64_t x_sizes[2] = {rows, k}, y_sizes[2] = {rows, n};
  Tensor in = *Tensor::make(ScalarType::kFloat, Span<const int64_t>(x_sizes, 2), {}, x.data_ptr(), size_t(x.nbytes()));
  Tensor out = *Tensor::make(ScalarType::kFloat, Span<const int64_t>(y_sizes, 2), {}, y.data_ptr(), size_t(y.nbytes()));
  Value in_value = Value::from_tensor(&in), out_value = Value::from_tensor(&out);
  Value* args[] = {&in_value, &out_value};
  BackendExecutionContext execution;
  const double quantized = median_ms([&] { (void)backend.execute(execution, *handle, Span<Value*>(args, 2)); }, 50);
  backend.destroy(*handle);

  at::Tensor w = at::randn({k, n});
  test::OpRunner mm("aten::mm.out");
  mm.tensor(x).tensor(w).out(at::kFloat, {rows, n}).returned();
  const double dense = median_ms([&] { (void)mm.run(); }, 50);
  std::printf("%-10s %5lld x %5lld x %5lld %12.4f %12.4f %8.2f\n", rows == 1 ? "GEMV" : "GEMM", (long long)rows,
              (long long)k, (long long)n, quantized, dense, quantized / dense);
}

}  // namespace

int main() {
  at::set_num_threads(1);
  at::manual_seed(1);
  std::printf("%-10s %-21s %12s %12s %8s\n", "shape", "rows x in x out", "8da4w ms", "fp32 ms", "ratio");
  bench_linear(1, 2048, 2048);
  bench_linear(32, 2048, 2048);
  return 0;
}
