// Kernels over the runtime's workers give the one-thread bits: the blocked
// GEMM split by columns or rows (odd sizes, a one-row product, beta != 0)
// and with 512-bit tiles or 256-bit ones,
// and whole sample programs (convolutions, depthwise convolutions, linears,
// attention) run with 1 to 5 workers, compared byte for byte; convolution
// columns packed by each worker against the one-thread im2col; large
// element-wise maps, normalizations, reductions, resamplings and
// transposes over the workers against one thread and ATen.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/kernels/conv_columns.h"
#include "etkit/kernels/gemm.h"
#include "op_runner.h"
#include "support/corpus.h"
#include "support/kernels.h"

namespace etkit {
namespace {

// Each task on a thread of its own: the most concurrency a split can meet.
void run_on_threads(void*, size_t tasks, void (*task)(void*, size_t), void* context) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < tasks; ++i) threads.emplace_back(task, context, i);
  for (std::thread& thread : threads) thread.join();
}

ParallelRunner runner_of(size_t workers) { return ParallelRunner{workers, nullptr, &run_on_threads}; }

struct Scratch {
  explicit Scratch(size_t workers) : bytes(workers * kKernelScratchBytes + 64) {}
  Span<uint8_t> all(size_t workers) {
    auto base = (reinterpret_cast<uintptr_t>(bytes.data()) + 63) & ~uintptr_t{63};
    return Span<uint8_t>(reinterpret_cast<uint8_t*>(base), workers * kKernelScratchBytes);
  }
  std::vector<uint8_t> bytes;
};

std::vector<float> values(size_t count, float phase) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = std::sin(float(i) * 0.37f + phase) * 2.0f;
  return v;
}

// C = 0.5 A B + beta C; `transposed_b`: B stored as [n, k] (a linear
// layer's weight), read through a view with contiguous columns;
// `transposed_a`: A stored as [k, m] (gemm packs it; a row-major A is read in
// place where the 512-bit tiles run).
std::vector<float> product(int64_t m, int64_t n, int64_t k, float beta, const ParallelRunner* runner,
                           bool transposed_b = false, bool transposed_a = false) {
  const std::vector<float> a = values(size_t(m * k), 0.1f), b = values(size_t(k * n), 0.7f);
  std::vector<float> c = values(size_t(m * n), 1.3f);
  const size_t workers = runner != nullptr ? runner->workers : 1;
  Scratch scratch(workers);
  const Span<uint8_t> all = scratch.all(workers);
  const KernelContext context{"gemm", Span<uint8_t>(all.data(), kKernelScratchBytes), runner, all};
  kernels::gemm(transposed_a ? kernels::MatrixView<const float>{a.data(), m, k, 1, m}
                             : kernels::MatrixView<const float>{a.data(), m, k, k, 1},
                transposed_b ? kernels::MatrixView<const float>{b.data(), k, n, 1, k}
                             : kernels::MatrixView<const float>{b.data(), k, n, n, 1},
                kernels::MatrixView<float>{c.data(), m, n, n, 1},
                0.5f, beta, context);
  return c;
}

TEST(ParallelKernels, GemmOverWorkersIsTheOneThreadProductBitForBit) {
  // Columns split (wide), rows split (tall and narrow), one row (a batch-1
  // linear: its own summation path), and sizes that fit no panel evenly.
  const std::vector<std::array<int64_t, 3>> shapes = {{37, 211, 300}, {301, 17, 129}, {1, 1003, 257}, {6, 64, 1024},
                                                             {25, 17, 1000}};  // 5 workers: a one-row part
  for (const auto& [m, n, k] : shapes) {
    for (float beta : {0.0f, 1.0f, 0.25f}) {
      const std::vector<float> one = product(m, n, k, beta, nullptr);
      for (size_t workers : {2u, 3u, 5u}) {
        const ParallelRunner runner = runner_of(workers);
        const std::vector<float> many = product(m, n, k, beta, &runner);
        EXPECT_EQ(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)), 0)
            << m << "x" << n << "x" << k << " beta " << beta << " on " << workers << " workers";
      }
    }
  }
}

// C started from per-row values (RowStart: a convolution's bias) is C filled
// with those values, then the beta-1 product, bit for bit, on any number
// of workers and whatever C held (NaN or 77 here, never read); k == 0 and
// alpha == 0 leave the start values alone.
template <typename T>
std::vector<T> started_product(int64_t m, int64_t n, int64_t k, T alpha, int64_t start_stride, bool fill_first,
                               const ParallelRunner* runner) {
  std::vector<T> a(size_t(m * k)), b(size_t(k * n)), starts(size_t(std::max<int64_t>(1, m * start_stride)));
  const std::vector<float> va = values(a.size(), 0.1f), vb = values(b.size(), 0.7f), vs = values(starts.size(), 2.9f);
  // Integers from the same curves, scaled to span a few hundred.
  const auto convert = [](float v) { return std::is_floating_point_v<T> ? T(v) : T(std::lround(v * 100.0f)); };
  for (size_t i = 0; i < a.size(); ++i) a[i] = convert(va[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = convert(vb[i]);
  for (size_t i = 0; i < starts.size(); ++i) starts[i] = convert(vs[i]);
  std::vector<T> c(size_t(m * n), std::is_floating_point_v<T> ? std::numeric_limits<T>::quiet_NaN() : T(77));
  const size_t workers = runner != nullptr ? runner->workers : 1;
  Scratch scratch(workers);
  const Span<uint8_t> all = scratch.all(workers);
  const KernelContext context{"gemm", Span<uint8_t>(all.data(), kKernelScratchBytes), runner, all};
  const kernels::MatrixView<const T> av{a.data(), m, k, k, 1}, bv{b.data(), k, n, n, 1};
  const kernels::MatrixView<T> cv{c.data(), m, n, n, 1};
  if (fill_first) {
    for (int64_t i = 0; i < m; ++i)
      std::fill(c.begin() + i * n, c.begin() + (i + 1) * n, starts[size_t(i * start_stride)]);
    kernels::gemm(av, bv, cv, alpha, T(1), context);
  } else {
    kernels::gemm(av, bv, cv, alpha, kernels::RowStart<T>{starts.data(), start_stride}, context);
  }
  return c;
}

template <typename T>
void expect_started_products_are_filled_products() {
  const std::vector<std::array<int64_t, 3>> shapes = {{37, 211, 300}, {301, 17, 129}, {1, 1003, 257}, {6, 64, 1024},
                                                      {80, 600, 20}, {7, 9, 0}};
  for (const auto& [m, n, k] : shapes) {
    for (const T alpha : {T(1), T(0)}) {
      for (const int64_t stride : {int64_t{1}, int64_t{0}, int64_t{3}}) {
        const std::vector<T> filled = started_product<T>(m, n, k, alpha, stride, true, nullptr);
        for (size_t workers : {1u, 2u, 5u}) {
          const ParallelRunner runner = runner_of(workers);
          const std::vector<T> started = started_product<T>(m, n, k, alpha, stride, false, &runner);
          EXPECT_EQ(std::memcmp(filled.data(), started.data(), filled.size() * sizeof(T)), 0)
              << m << "x" << n << "x" << k << " alpha " << double(alpha) << " start stride " << stride << " on "
              << workers << " workers";
        }
      }
    }
  }
}

TEST(ParallelKernels, GemmStartedFromRowValuesIsTheFilledProductBitForBit) {
  expect_started_products_are_filled_products<float>();
  expect_started_products_are_filled_products<double>();
  expect_started_products_are_filled_products<int32_t>();
}

// An integer product started from row values is the exact sum, wrapped.
TEST(ParallelKernels, IntegerGemmStartedFromRowValuesWrapsTheExactSum) {
  const int8_t a[2 * 3] = {100, -100, 7, 1, 2, 3};
  const int8_t b[3 * 2] = {100, 1, 100, 2, -128, 3};
  const int8_t starts[2] = {120, -5};
  int8_t c[2 * 2] = {};
  const KernelContext context{"gemm", Span<uint8_t>(), nullptr, Span<uint8_t>()};
  kernels::gemm(kernels::MatrixView<const int8_t>{a, 2, 3, 3, 1}, kernels::MatrixView<const int8_t>{b, 3, 2, 2, 1},
                kernels::MatrixView<int8_t>{c, 2, 2, 2, 1}, int8_t{1}, kernels::RowStart<int8_t>{starts, 1}, context);
  // c00 = 100*100 - 100*100 + 7*-128 + 120 = -776, which wraps to -8 in int8;
  // c01 = 100 - 200 + 21 + 120 = 41; c10 = 100 + 200 - 384 - 5 = -89; c11 = 1 + 4 + 9 - 5 = 9.
  EXPECT_EQ(c[0], int8_t(-8));
  EXPECT_EQ(c[1], int8_t(41));
  EXPECT_EQ(c[2], int8_t(-89));
  EXPECT_EQ(c[3], int8_t(9));
}

// One row times a weight stored [n, k] (a batch-1 linear): a dot product
// per column, the same bits on any number of workers, and each within a
// few float roundings of the double-precision sum.
TEST(ParallelKernels, OneRowTimesTransposedWeightsIsExactOnAnySplit) {
  for (const auto& [n, k] : std::vector<std::array<int64_t, 2>>{{1003, 257}, {64, 77}, {40, 7}, {5, 32}}) {
    const std::vector<float> one = product(1, n, k, 0.25f, nullptr, true);
    for (size_t workers : {2u, 3u, 5u}) {
      const ParallelRunner runner = runner_of(workers);
      const std::vector<float> many = product(1, n, k, 0.25f, &runner, true);
      EXPECT_EQ(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)), 0)
          << n << "x" << k << " on " << workers << " workers";
    }
    const std::vector<float> a = values(size_t(k), 0.1f), b = values(size_t(k * n), 0.7f);
    const std::vector<float> c0 = values(size_t(n), 1.3f);
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += double(a[size_t(p)]) * b[size_t(j * k + p)];
        magnitude += std::abs(double(a[size_t(p)]) * b[size_t(j * k + p)]);
      }
      const double expected = 0.5 * sum + 0.25 * c0[size_t(j)];
      EXPECT_NEAR(one[size_t(j)], expected, 1e-6 * (magnitude + std::abs(c0[size_t(j)])) + 1e-7) << n << "x" << k;
    }
  }
}

// On a core with AVX-512 float gemm computes two 6 x 16 tiles at once in
// 512-bit registers, reading a row-major A in place and packing any other;
// each element is the same chain of fused multiply-adds as with 256-bit
// tiles on packed panels, so the bits are the same (partial tiles, strided
// C rows and beta included; a partial row tile reads no row past A's, which
// the sanitizers check).
// A suite of its own: ctest runs kernel_tests per suite, and reports a
// suite as skipped only when all its tests were.
TEST(WideTiles, GiveTheBitsOfEightWideTiles) {
  if (!kernels::gemm_uses_wide_tiles()) GTEST_SKIP() << "this core has no AVX-512: gemm runs 8-wide tiles only";
  // The last three: a block's last panel of 1, 8 and 4 columns (the narrow
  // tail tiles), under twelve rows and past them.
  const std::vector<std::array<int64_t, 3>> shapes = {{37, 211, 300}, {6, 64, 1024}, {64, 96, 33}, {13, 31, 7},
                                                      {200, 512, 600}, {13, 49, 200}, {9, 40, 50}, {5, 20, 17}};
  for (const auto& [m, n, k] : shapes) {
    for (float beta : {0.0f, 0.25f}) {
      for (bool transposed_a : {false, true}) {
        const ParallelRunner runner = runner_of(3);
        const std::vector<float> wide = product(m, n, k, beta, &runner, false, transposed_a);
        kernels::gemm_allow_wide_tiles(false);
        const std::vector<float> narrow = product(m, n, k, beta, &runner, false, transposed_a);
        kernels::gemm_allow_wide_tiles(true);
        EXPECT_EQ(std::memcmp(wide.data(), narrow.data(), wide.size() * sizeof(float)), 0)
            << m << "x" << n << "x" << k << " beta " << beta << (transposed_a ? " A stored [k, m]" : "");
      }
    }
  }
}

// The first output's bytes of `sample` on `workers` workers, every input
// filled with the same values.
std::vector<uint8_t> sample_output(const std::string& sample, size_t workers) {
  const Program program =
      test::checked(Program::load_file(std::string(ETKIT_SOURCE_DIR) + "/samples/" + sample), sample);
  const ParallelRunner runner = runner_of(workers);
  MethodOptions options = test::with_kernels();
  if (workers > 1) options.parallel = &runner;
  std::unique_ptr<Method> method = test::checked(Method::load(program, "forward", options), sample);
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < method->input_count(); ++i) {
    const Tensor& spec = method->input(i).unchecked_tensor();
    inputs.emplace_back(spec.nbytes());
    if (spec.scalar_type() == ScalarType::kFloat) {
      const std::vector<float> v = values(size_t(spec.numel()), float(i));
      std::memcpy(inputs.back().data(), v.data(), spec.nbytes());
    } else {
      for (size_t b = 0; b < inputs.back().size(); b += 8) inputs.back()[b] = uint8_t(b % 6);  // int64 ids below 6 (deeplab_head gathers 6 labels)
    }
    Tensor view = test::checked(Tensor::make(spec.scalar_type(), spec.sizes(), spec.dim_order(), inputs.back().data(),
                                             spec.nbytes()),
                                "input view");
    EXPECT_TRUE(method->set_input(i, view).ok());
  }
  const Status ran = method->execute();
  EXPECT_TRUE(ran.ok()) << sample << ": " << ran.error().message();
  const Tensor& out = method->output(0).unchecked_tensor();
  const auto* bytes = static_cast<const uint8_t*>(out.data());
  return std::vector<uint8_t>(bytes, bytes + out.nbytes());
}

TEST(ParallelKernels, SamplesGiveTheSameBytesOnAnyNumberOfWorkers) {
  for (const char* sample : {"resnet18/resnet18.pte", "mobilenet_v2/mobilenet_v2.pte", "deeplab_head/deeplab_head.pte",
                             "nano_gpt/nano_gpt.pte"}) {
    const std::vector<uint8_t> one = sample_output(sample, 1);
    ASSERT_FALSE(one.empty()) << sample;
    for (size_t workers : {2u, 3u, 5u}) EXPECT_EQ(sample_output(sample, workers), one) << sample << " on " << workers;
  }
}

// The convolutions' column panels packed from the image by each worker
// (conv_columns.h) hold what the one-thread im2col copied: the same bytes.
TEST(ParallelKernels, ConvolutionColumnsPackedByEachWorkerGiveTheIm2colBytes) {
  kernels::conv_allow_column_packer(false);
  const std::vector<uint8_t> im2col = sample_output("resnet18/resnet18.pte", 1);
  kernels::conv_allow_column_packer(true);
  ASSERT_FALSE(im2col.empty());
  for (size_t workers : {1u, 3u}) EXPECT_EQ(sample_output("resnet18/resnet18.pte", workers), im2col) << workers;
}

// A kernel case: its arguments and outs, and ATen's results.
struct KernelCase {
  const char* op;
  std::function<void(test::OpRunner&)> arguments;  // every argument, the outs included
  std::vector<at::Tensor> expected;
  double tolerance = 1e-6;
};

// Runs `c` on one thread and over 3 workers: every out is ATen's (within
// the case's tolerance) and the bytes are one thread's.
void expect_one_thread_bytes_over_workers(const KernelCase& c) {
  std::vector<at::Tensor> runs[2];
  for (size_t run = 0; run < 2; ++run) {
    const ParallelRunner runner = runner_of(3);
    test::OpRunner op(c.op);
    c.arguments(op);
    op.workers(run == 1 ? &runner : nullptr);
    ASSERT_EQ(op.run(), "") << c.op;
    for (size_t k = 0; k < c.expected.size(); ++k) runs[run].push_back(op.result(k));
  }
  for (size_t k = 0; k < c.expected.size(); ++k) {
    const at::Tensor& one = runs[0][k];
    if (one.is_floating_point()) {
      EXPECT_TRUE(test::tensors_close(one, c.expected[k], c.tolerance, c.tolerance)) << c.op << " out " << k;
    } else {
      EXPECT_TRUE(one.equal(c.expected[k])) << c.op << " out " << k;
    }
    ASSERT_EQ(one.sizes(), runs[1][k].sizes()) << c.op;
    EXPECT_EQ(std::memcmp(one.data_ptr(), runs[1][k].data_ptr(), one.nbytes()), 0) << c.op << " out " << k;
  }
}

// Element-wise maps (two tensors, a broadcast, a tensor and a scalar, one
// tensor), inference batch norm, softmax (along the last dim and another),
// layer norm and group norm, large enough (over 2^16 values) to be split
// among the workers.
TEST(ParallelKernels, LargeElementwiseMapsAndNormalizationsOverWorkersGiveOneThreadBytes) {
  at::manual_seed(int64_t(test::kernel_test_seed()));
  const at::Tensor x = at::randn({2, 48, 33, 37}), y = at::randn({2, 48, 33, 37});
  const at::Tensor mean = at::randn({48}), var = at::rand({48}) + 0.5, w = at::randn({48}), b = at::randn({48});
  const at::Tensor row_w = at::randn({37}), row_b = at::randn({37}), row = at::randn({48, 1, 37});
  auto [normalized, row_mean, row_rstd] = at::native_layer_norm(x, {37}, row_w, row_b, 1e-5);
  auto [grouped, group_mean, group_rstd] = at::native_group_norm(x, w, b, 2, 48, 33 * 37, 6, 1e-5);
  const auto out_like_x = [&](test::OpRunner& o) { o.out(at::kFloat, x.sizes()).returned(); };
  const KernelCase cases[] = {
      {"aten::add.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).tensor(y).integer(1)); }, {at::add(x, y)}},
      {"aten::mul.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).tensor(row)); }, {at::mul(x, row)}},
      {"aten::mul.Scalar_out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).real(1.5)); }, {at::mul(x, 1.5)}},
      {"aten::sigmoid.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x)); }, {at::sigmoid(x)}},
      // libtorch 1.13 predates _native_batch_norm_legit_no_training:
      // inference native_batch_norm is the same computation.
      {"aten::_native_batch_norm_legit_no_training.out",
       [&](test::OpRunner& o) {
         o.tensor(x).tensor(w).tensor(b).tensor(mean).tensor(var).real(0.1).real(1e-5)
             .out(at::kFloat, x.sizes()).out(at::kFloat, {0}).out(at::kFloat, {0}).outs_as_list();
       },
       {std::get<0>(at::native_batch_norm(x, w, b, mean, var, false, 0.1, 1e-5))}, 1e-5},
      {"aten::_softmax.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).integer(3).boolean(false)); },
       {at::_softmax(x, 3, false)}, 1e-5},
      {"aten::_softmax.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).integer(1).boolean(false)); },
       {at::_softmax(x, 1, false)}, 1e-5},
      {"aten::_log_softmax.out", [&](test::OpRunner& o) { out_like_x(o.tensor(x).integer(2).boolean(false)); },
       {at::_log_softmax(x, 2, false)}, 1e-5},
      {"aten::native_layer_norm.out",
       [&](test::OpRunner& o) {
         o.tensor(x).ints({37}).tensor(row_w).tensor(row_b).real(1e-5)
             .out(at::kFloat, x.sizes()).out(at::kFloat, row_mean.sizes()).out(at::kFloat, row_rstd.sizes())
             .outs_as_list();
       },
       {normalized, row_mean, row_rstd}, 1e-5},
      {"aten::native_group_norm.out",
       [&](test::OpRunner& o) {
         o.tensor(x).tensor(w).tensor(b).integer(2).integer(48).integer(33 * 37).integer(6).real(1e-5)
             .out(at::kFloat, x.sizes()).out(at::kFloat, {2, 6}).out(at::kFloat, {2, 6}).outs_as_list();
       },
       {grouped, group_mean, group_rstd}, 1e-5},
  };
  for (const KernelCase& c : cases) expect_one_thread_bytes_over_workers(c);
}

// Reductions (over the last dim, over the planes, over the channels, to an
// index, and the two-pass variance), both resamplings, max pooling and
// transposes (one per sample, and one of a whole matrix), on inputs of over
// 2^16 values: their outputs split among the workers.
TEST(ParallelKernels, LargeReductionsResamplingsAndTransposesOverWorkersGiveOneThreadBytes) {
  at::manual_seed(int64_t(test::kernel_test_seed()));
  const at::Tensor x = at::randn({2, 48, 33, 37});
  const at::Tensor ints = at::randint(-1000, 1000, {2, 48, 33, 37}, at::kLong);
  const at::Tensor matrix = at::randn({517, 300});
  auto [max_values, max_indices] = at::max(x, 1, false);
  auto [pooled, pooled_indices] = at::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false);
  const KernelCase cases[] = {
      {"aten::sum.IntList_out",
       [&](test::OpRunner& o) { o.tensor(x).ints({3}).boolean(false).none().out(at::kFloat, {2, 48, 33}).returned(); },
       {at::sum(x, {3})}, 1e-5},
      {"aten::sum.IntList_out",
       [&](test::OpRunner& o) { o.tensor(ints).ints({1}).boolean(false).none().out(at::kLong, {2, 33, 37}).returned(); },
       {at::sum(ints, {1})}},
      {"aten::mean.out",
       [&](test::OpRunner& o) { o.tensor(x).ints({2, 3}).boolean(true).none().out(at::kFloat, {2, 48, 1, 1}).returned(); },
       {at::mean(x, {2, 3}, true)}},
      {"aten::amax.out", [&](test::OpRunner& o) { o.tensor(x).ints({1}).boolean(false).out(at::kFloat, {2, 33, 37}).returned(); },
       {at::amax(x, {1})}},
      {"aten::argmax.out", [&](test::OpRunner& o) { o.tensor(x).integer(3).boolean(true).out(at::kLong, {2, 48, 33, 1}).returned(); },
       {at::argmax(x, 3, true)}},
      {"aten::var.correction_out",
       [&](test::OpRunner& o) { o.tensor(x).ints({0, 2}).integer(1).boolean(false).out(at::kFloat, {48, 37}).returned(); },
       {at::var(x, at::IntArrayRef{0, 2}, int64_t(1), false)}, 1e-5},
      {"aten::max.dim_max",
       [&](test::OpRunner& o) {
         o.tensor(x).integer(1).boolean(false).out(at::kFloat, {2, 33, 37}).out(at::kLong, {2, 33, 37}).outs_as_list();
       },
       {max_values, max_indices}},
      {"aten::upsample_bilinear2d.vec_out",
       [&](test::OpRunner& o) { o.tensor(x).ints({50, 41}).boolean(false).none().out(at::kFloat, {2, 48, 50, 41}).returned(); },
       {at::upsample_bilinear2d(x, at::IntArrayRef{50, 41}, false, c10::nullopt)}, 1e-5},
      {"aten::permute_copy.out", [&](test::OpRunner& o) { o.tensor(x).ints({0, 2, 3, 1}).out(at::kFloat, {2, 33, 37, 48}).returned(); },
       {x.permute({0, 2, 3, 1}).contiguous()}, 0},
      {"aten::permute_copy.out", [&](test::OpRunner& o) { o.tensor(matrix).ints({1, 0}).out(at::kFloat, {300, 517}).returned(); },
       {matrix.t().contiguous()}, 0},
      {"aten::max_pool2d_with_indices.out",
       [&](test::OpRunner& o) {
         o.tensor(x).ints({3, 3}).ints({2, 2}).ints({1, 1}).ints({1, 1}).boolean(false)
             .out(at::kFloat, pooled.sizes()).out(at::kLong, pooled_indices.sizes()).outs_as_list();
       },
       {pooled, pooled_indices}},
      {"aten::upsample_nearest2d.vec_out",
       [&](test::OpRunner& o) { o.tensor(x).ints({66, 50}).none().out(at::kFloat, {2, 48, 66, 50}).returned(); },
       {at::upsample_nearest2d(x, {66, 50}, c10::nullopt, c10::nullopt)}},
  };
  for (const KernelCase& c : cases) expect_one_thread_bytes_over_workers(c);
}

}  // namespace
}  // namespace etkit
