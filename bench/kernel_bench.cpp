// etkit kernels vs libtorch (single thread) on the same inputs, in one run.
// Prints median milliseconds per call and the ratio etkit / libtorch; for
// matrix products and convolutions also etkit's GFLOP/s and its share of
// the core's FMA peak, measured first (fma_peak.h).
//
//   kernel_bench [--quick] [--eight-wide] [--only products|convolutions|portable|transposes|attention]
//
// --eight-wide runs the GEMM's 256-bit tiles on a core with AVX-512: what a
// core without it runs, measured here.

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "etkit/kernels/conv_columns.h"
#include "etkit/kernels/gemm.h"
#include "fma_peak.h"
#include "kernels/op_runner.h"
#include "median_time.h"

namespace {

using etkit::bench::median_ms;

double g_peak_gflops = 0;  // the core's measured FMA peak (main)

int repeats_for(double estimate_ms) {
  return std::max(5, std::min(200, int(300.0 / std::max(estimate_ms, 0.01))));
}

void report(const std::string& op, const std::string& shape, etkit::test::OpRunner& runner,
            const std::function<void()>& reference, double flops = 0) {
  std::string error = runner.run();
  if (!error.empty()) {
    std::printf("%-12s %-34s error: %s\n", op.c_str(), shape.c_str(), error.c_str());
    return;
  }
  const double rough = median_ms([&] { (void)runner.run(); }, 3);
  const int repeats = repeats_for(rough);
  const double ours = median_ms([&] { (void)runner.run(); }, repeats);
  const double theirs = median_ms(reference, repeats);
  std::printf("%-12s %-34s %10.4f %10.4f %7.2f", op.c_str(), shape.c_str(), ours, theirs, ours / theirs);
  if (flops > 0) {
    const double gflops = flops / (ours * 1e6);
    std::printf(" %9.1f", gflops);
    if (g_peak_gflops > 0) std::printf(" %6.0f%%", 100 * gflops / g_peak_gflops);
  }
  std::printf("\n");
}

// mm, addmm (linear layers) and bmm.
void bench_matrix_products(bool quick) {
  using etkit::test::OpRunner;

  for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{256, 256, 256}, {512, 512, 512}, {128, 768, 3072}, {1, 1280, 1000}}) {
    if (quick && m > 256) continue;
    at::Tensor a = at::randn({m, k}), b = at::randn({k, n}), out = at::empty({m, n});
    OpRunner runner("aten::mm.out");
    runner.tensor(a).tensor(b).out(at::kFloat, {m, n}).returned();
    report("mm", std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n), runner,
           [&] { at::mm_out(out, a, b); }, 2.0 * m * k * n);
  }
  {
    // Linear layers as the edge dialect lowers them: addmm(bias, x, w^T).
    for (auto [m, k, n] : std::vector<std::array<int64_t, 3>>{{64, 768, 768}, {1, 1280, 1000}, {64, 128, 512}}) {
      at::Tensor x = at::randn({m, k}), wt = at::randn({k, n}), bias = at::randn({n}), out = at::empty({m, n});
      OpRunner runner("aten::addmm.out");
      runner.tensor(bias).tensor(x).tensor(wt).integer(1).integer(1).out(at::kFloat, {m, n}).returned();
      report("addmm", std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n), runner,
             [&] { at::addmm_out(out, bias, x, wt); }, 2.0 * m * k * n);
    }
  }
  for (auto [batch, m, k, n] : std::vector<std::array<int64_t, 4>>{{8, 64, 32, 64}, {4, 64, 64, 32}, {12, 128, 64, 128}}) {
    at::Tensor a = at::randn({batch, m, k}), b = at::randn({batch, k, n}), out = at::empty({batch, m, n});
    OpRunner runner("aten::bmm.out");
    runner.tensor(a).tensor(b).out(at::kFloat, {batch, m, n}).returned();
    report("bmm", std::to_string(batch) + "x" + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n),
           runner, [&] { at::bmm_out(out, a, b); }, 2.0 * batch * m * k * n);
  }
}

// Convolutions of ResNet and MobileNetV2, softmax and layer norm.
void bench_convolutions_and_norms(bool quick) {
  using etkit::test::OpRunner;
  struct Conv {
    const char* name;
    std::vector<int64_t> input, weight;
    int64_t stride, padding, groups;
  };
  const std::vector<Conv> convs = {
      {"resnet stem", {1, 3, 224, 224}, {64, 3, 7, 7}, 2, 3, 1},
      {"resnet 3x3", {1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1},
      {"resnet 3x3/2", {1, 128, 28, 28}, {256, 128, 3, 3}, 2, 1, 1},
      {"mbv2 1x1", {1, 32, 112, 112}, {16, 32, 1, 1}, 1, 0, 1},
      {"mbv2 dw3x3", {1, 96, 112, 112}, {96, 1, 3, 3}, 2, 1, 96},
      {"mbv2 dw3x3/1", {1, 144, 56, 56}, {144, 1, 3, 3}, 1, 1, 144},
      {"mbv2 1x1 exp", {1, 24, 56, 56}, {144, 24, 1, 1}, 1, 0, 1},
      {"tutorial", {1, 1, 28, 28}, {16, 1, 3, 3}, 1, 1, 1},
  };
  for (const Conv& c : convs) {
    if (quick && c.input[2] > 56) continue;
    at::Tensor x = at::randn(c.input), w = at::randn(c.weight), bias = at::randn({c.weight[0]});
    at::Tensor reference = at::convolution(x, w, bias, {c.stride, c.stride}, {c.padding, c.padding}, {1, 1},
                                           false, {0, 0}, c.groups);
    OpRunner runner("aten::convolution.out");
    runner.tensor(x).tensor(w).tensor(bias).ints({c.stride, c.stride}).ints({c.padding, c.padding})
        .ints({1, 1}).boolean(false).ints({0, 0}).integer(c.groups).out(at::kFloat, reference.sizes()).returned();
    // Multiply-adds: every output element takes (input channels per group) x kernel taps.
    const double flops = 2.0 * double(reference.numel()) * double(c.weight[1] * c.weight[2] * c.weight[3]);
    const auto libtorch = [&] {
      (void)at::convolution(x, w, bias, {c.stride, c.stride}, {c.padding, c.padding}, {1, 1}, false, {0, 0},
                            c.groups);
    };
    report("conv2d", c.name, runner, libtorch, flops);
    if (c.groups == 1 && c.weight[0] > 1 && !(c.weight[2] == 1 && c.stride == 1)) {
      // The same product with its columns written out by im2col first (what
      // packing them from the image saves).
      etkit::kernels::conv_allow_column_packer(false);
      report("conv2d", std::string(c.name) + " im2col", runner, libtorch, flops);
      etkit::kernels::conv_allow_column_packer(true);
    }
  }
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{2, 4096}, {12, 64, 64}, {1, 1000}}) {
    at::Tensor x = at::randn(shape), out = at::empty(shape);
    OpRunner runner("aten::_softmax.out");
    runner.tensor(x).integer(-1).boolean(false).out(at::kFloat, shape).returned();
    report("softmax", std::to_string(at::IntArrayRef(shape).vec().size()) + "-D " + std::to_string(x.numel()),
           runner, [&] { at::_softmax_out(out, x, -1, false); });
  }
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{64, 768}, {64, 128}}) {
    at::Tensor x = at::randn(shape), w = at::randn({shape[1]}), b = at::randn({shape[1]});
    OpRunner runner("aten::native_layer_norm.out");
    runner.tensor(x).ints({shape[1]}).tensor(w).tensor(b).real(1e-5).out(at::kFloat, shape)
        .out(at::kFloat, {shape[0], 1}).out(at::kFloat, {shape[0], 1}).outs_as_list();
    report("layer_norm", std::to_string(shape[0]) + "x" + std::to_string(shape[1]), runner,
           [&] { (void)at::native_layer_norm(x, {shape[1]}, w, b, 1e-5); });
  }
}

void bench_scan_and_select_ops();

void bench_portable_ops() {
  using etkit::test::OpRunner;
  // Ops added with upstream's full portable list, where models spend time:
  // decoders' upsampling, padding and pixel shuffles, sampling, and the
  // cumsum, gather and topk of audio, detection and language models.
  for (auto [c, h, w, oh, ow] : std::vector<std::array<int64_t, 5>>{{21, 64, 64, 256, 256}, {64, 56, 56, 112, 112}}) {
    at::Tensor x = at::randn({1, c, h, w}), out = at::empty({1, c, oh, ow});
    OpRunner runner("aten::upsample_bilinear2d.vec_out");
    runner.tensor(x).ints({oh, ow}).boolean(false).none().out(at::kFloat, {1, c, oh, ow}).returned();
    report("upsample_bl", std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) + " to " +
           std::to_string(oh) + "x" + std::to_string(ow), runner,
           [&] { at::upsample_bilinear2d_out(out, x, {oh, ow}, false); });
  }
  {
    at::Tensor x = at::randn({1, 3, 256, 256});
    OpRunner runner("aten::_upsample_bilinear2d_aa.out");
    runner.tensor(x).ints({100, 100}).boolean(false).none().none().out(at::kFloat, {1, 3, 100, 100}).returned();
    report("upsample_aa", "3x256x256 to 100x100", runner,
           [&] { (void)at::_upsample_bilinear2d_aa(x, {100, 100}, false); });
  }
  {
    at::Tensor x = at::randn({1, 64, 128, 128});
    OpRunner runner("aten::reflection_pad2d.out");
    runner.tensor(x).ints({1, 1, 1, 1}).out(at::kFloat, {1, 64, 130, 130}).returned();
    report("reflect_pad", "64x128x128 pad 1", runner, [&] { (void)at::reflection_pad2d(x, {1, 1, 1, 1}); });
    OpRunner shuffle("aten::pixel_shuffle.out");
    shuffle.tensor(x).integer(2).out(at::kFloat, {1, 16, 256, 256}).returned();
    report("pixel_shuf", "64x128x128 r 2", shuffle, [&] { (void)at::pixel_shuffle(x, 2).contiguous(); });
  }
  {
    at::Tensor x = at::randn({1, 16, 64, 64}), grid = at::rand({1, 64, 64, 2}) * 2 - 1;
    OpRunner runner("aten::grid_sampler_2d.out");
    runner.tensor(x).tensor(grid).integer(0).integer(0).boolean(false).out(at::kFloat, {1, 16, 64, 64}).returned();
    report("grid_sample", "16x64x64 bilinear", runner, [&] { (void)at::grid_sampler_2d(x, grid, 0, 0, false); });
  }
  bench_scan_and_select_ops();
}

// Cumsum, gather and topk, as audio, detection and language models run them.
void bench_scan_and_select_ops() {
  using etkit::test::OpRunner;
  for (auto [rows, cols, dim] : std::vector<std::array<int64_t, 3>>{{64, 4096, 1}, {4096, 64, 0}}) {
    at::Tensor x = at::randn({rows, cols}), out = at::empty({rows, cols});
    OpRunner runner("aten::cumsum.out");
    runner.tensor(x).integer(dim).none().out(at::kFloat, {rows, cols}).returned();
    report("cumsum", std::to_string(rows) + "x" + std::to_string(cols) + " dim " + std::to_string(dim), runner,
           [&] { at::cumsum_out(out, x, dim); });
  }
  {
    at::Tensor x = at::randn({64, 1000}), index = at::randint(0, 1000, {64, 100}), out = at::empty({64, 100});
    OpRunner runner("aten::gather.out");
    runner.tensor(x).integer(1).tensor(index).boolean(false).out(at::kFloat, {64, 100}).returned();
    report("gather", "64x1000 dim 1, 100 per row", runner, [&] { at::gather_out(out, x, 1, index); });
    at::Tensor scores = at::randn({1, 21, 256, 256}), labels = at::randint(0, 21, {1, 1, 256, 256});
    at::Tensor picked = at::empty({1, 1, 256, 256});
    OpRunner per_pixel("aten::gather.out");
    per_pixel.tensor(scores).integer(1).tensor(labels).boolean(false).out(at::kFloat, {1, 1, 256, 256}).returned();
    report("gather", "21x256x256 dim 1 per pixel", per_pixel, [&] { at::gather_out(picked, scores, 1, labels); });
  }
  for (auto [rows, cols, k] : std::vector<std::array<int64_t, 3>>{{64, 1000, 5}, {1, 32000, 40}}) {
    at::Tensor x = at::randn({rows, cols}), values = at::empty({rows, k}), indices = at::empty({rows, k}, at::kLong);
    OpRunner runner("aten::topk.values");
    runner.tensor(x).integer(k).integer(-1).boolean(true).boolean(true).out(at::kFloat, {rows, k})
        .out(at::kLong, {rows, k}).outs_as_list();
    report("topk", std::to_string(rows) + "x" + std::to_string(cols) + " k " + std::to_string(k), runner,
           [&] { at::topk_out(values, indices, x, k, -1, true, true); });
  }
}

// The NCHW <-> NHWC transposes the XNNPACK delegate runs on the portable
// permute inside its calls, against a memcpy of the same bytes (the
// speed of memory), and against libtorch's contiguous() of the permute.
void bench_transposes() {
  using etkit::test::OpRunner;
  std::printf("%-12s %-34s %10s %10s %7s\n", "op", "shape", "etkit ms", "memcpy ms", "ratio");
  // 1x1000x1x1280: a classifier's 1000x1280 weight transposed (permute_copy
  // before addmm in exported programs), each run.
  for (auto sizes : std::vector<std::array<int64_t, 4>>{{1, 1, 1024, 1024}, {1, 3, 224, 224}, {1, 64, 56, 56},
                                                        {1, 1000, 1, 1280}}) {
    for (bool to_nhwc : {true, false}) {
      const std::vector<int64_t> perm = to_nhwc ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 3, 1, 2};
      const at::Tensor x = to_nhwc ? at::randn({sizes[0], sizes[1], sizes[2], sizes[3]})
                                   : at::randn({sizes[0], sizes[2], sizes[3], sizes[1]});
      const at::Tensor expected = x.permute(perm).contiguous();
      OpRunner runner("aten::permute_copy.out");
      runner.tensor(x).ints(perm).out(at::kFloat, expected.sizes()).returned();
      std::vector<float> copy(size_t(x.numel()));
      const std::string shape = std::to_string(sizes[0]) + "x" + std::to_string(sizes[1]) + "x" +
                                std::to_string(sizes[2]) + "x" + std::to_string(sizes[3]) +
                                (to_nhwc ? " NCHW to NHWC" : " NHWC to NCHW");
      report("permute", shape, runner, [&] { std::memcpy(copy.data(), x.data_ptr<float>(), copy.size() * 4); });
      if (!runner.result().equal(expected)) std::printf("permute %s: result differs from libtorch\n", shape.c_str());
    }
  }
}

}  // namespace

// llama::custom_sdpa at a context of 512 (8 query heads over 2 key/value
// heads, head size 64): one decode step and a causal prefill, against the
// same attention in libtorch ops (heads already repeated for libtorch, and
// its causal mask built outside the timing: only the attention is timed).
void bench_attention() {
  constexpr int64_t kContext = 512, kHeads = 8, kKvHeads = 2, kDim = 64;
  for (const int64_t seq : {int64_t(1), kContext}) {
    const int64_t start = kContext - seq;
    const at::Tensor q = at::randn({1, seq, kHeads, kDim});
    const at::Tensor k = at::randn({1, kContext, kKvHeads, kDim}), v = at::randn({1, kContext, kKvHeads, kDim});
    etkit::test::OpRunner runner("llama::custom_sdpa.out");
    runner.tensor(q).tensor(k).tensor(v).integer(start).none().real(0.0).boolean(true).none()
        .out(at::kFloat, q.sizes()).returned();
    const at::Tensor qt = q.transpose(1, 2).contiguous();
    const at::Tensor kt = k.repeat_interleave(kHeads / kKvHeads, 2).transpose(1, 2).contiguous();
    const at::Tensor vt = v.repeat_interleave(kHeads / kKvHeads, 2).transpose(1, 2).contiguous();
    const at::Tensor mask = at::full({seq, kContext}, -INFINITY).triu(start + 1);
    const double scale = 1.0 / std::sqrt(double(kDim));
    report("custom_sdpa", (seq == 1 ? "decode 1 x ctx 512, 8/2 heads" : "prefill 512 causal, 8/2 heads"), runner,
           [&] {
             at::Tensor scores = at::matmul(qt, kt.transpose(-1, -2)).mul_(scale);
             if (seq > 1) scores.add_(mask);
             (void)at::matmul(at::softmax(scores, -1), vt).transpose(1, 2).contiguous();
           });
  }
}

int main(int argc, char** argv) {
  bool quick = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--eight-wide") == 0) etkit::kernels::gemm_allow_wide_tiles(false);
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
  }
  const std::vector<std::pair<std::string, std::function<void()>>> sections = {
      {"products", [&] { bench_matrix_products(quick); }},
      {"convolutions", [&] { bench_convolutions_and_norms(quick); }},
      {"portable", [] { bench_portable_ops(); }},
      {"transposes", [] { bench_transposes(); }},
      {"attention", [] { bench_attention(); }}};
  at::set_num_threads(1);
  const etkit::bench::FmaPeak peak = etkit::bench::fma_peak_gflops();
  g_peak_gflops = peak.best();
  std::printf("core FMA peak, one thread: %.1f GFLOP/s 8-wide (AVX2), %.1f 16-wide (AVX-512; 0: none); "
              "\"of peak\" is of the higher; etkit's GEMM %s\n",
              peak.avx2, peak.avx512,
              etkit::kernels::gemm_uses_wide_tiles() ? "runs 16-wide tiles here" : "runs 8-wide tiles here");
  std::printf("%-12s %-34s %10s %10s %7s %9s %7s\n", "op", "shape", "etkit ms", "torch ms", "ratio", "GFLOP/s",
              "of peak");
  for (const auto& [name, run] : sections) {
    if (only.empty() || only == name) run();
  }
  return 0;
}
