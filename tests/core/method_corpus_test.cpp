// The upstream corpus programs run as ../shared/corpus/README.md says, and
// their outputs match libtorch on the same inputs.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "etkit/core/flat_tensor.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "kernels/op_runner.h"
#include "support/corpus.h"
#include "support/kernels.h"

namespace etkit {
namespace {

Program load(const std::string& relative) {
  return test::checked(Program::load_file(test::corpus(relative)), relative);
}

Tensor view_of(const at::Tensor& t) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  return test::checked(Tensor::make(static_cast<ScalarType>(t.scalar_type()),
                                    Span<const int64_t>(sizes.data(), sizes.size()), {}, t.data_ptr(),
                                    t.numel() * t.element_size()),
                       "a view of an ATen tensor");
}

at::Tensor output_of(const Method& method, size_t index) {
  const Tensor& t = method.output(index).unchecked_tensor();
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  return at::from_blob(t.data(), sizes, at::TensorOptions().dtype(static_cast<at::ScalarType>(t.scalar_type())))
      .clone();
}

at::Tensor run(const Program& program, const std::vector<at::Tensor>& inputs,
               const MethodOptions& options = test::with_kernels()) {
  auto method = Method::load(program, "forward", options);
  EXPECT_TRUE(method.ok()) << method.error().message();
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status status = (*method)->set_input(i, view_of(inputs[i]));
    EXPECT_TRUE(status.ok()) << status.error().message();
  }
  Status status = (*method)->execute();
  EXPECT_TRUE(status.ok()) << status.error().message();
  return output_of(**method, 0);
}

TEST(MethodCorpus, AddProgramsMatchAten) {
  for (const char* file : {"upstream/pte/add.pte", "upstream/pte/add_apple_tests.pte"}) {
    at::Tensor a = at::randn({1}), b = at::randn({1});
    EXPECT_TRUE(test::tensors_close(run(load(file), {a, b}), at::add(a, b))) << file;
  }
}

TEST(MethodCorpus, InlineConstantsComputeThreeXPlusTwo) {
  // ModuleLinear: y = a * x + b with a = 3, b = 2 stored inline.
  at::Tensor x = at::randn({2, 2});
  EXPECT_TRUE(test::tensors_close(run(load("upstream/pte/module_linear_inline_constants.pte"), {x}),
                                  x * 3 + 2, 1e-6, 1e-6));
}

TEST(MethodCorpus, SoftmaxMatchesAten) {
  at::Tensor x = at::randn({2, 4096}) * 4;
  EXPECT_TRUE(test::tensors_close(run(load("upstream/pte/softmax.pte"), {x}), at::_softmax(x, 1, false),
                                  1e-5, 1e-7));
}

TEST(MethodCorpus, MaxPoolMatchesAtenAndReturnsOnlyValues) {
  Program program = load("upstream/pte/maxpool2d.pte");
  at::Tensor x = at::randn({1, 64, 112, 112});
  auto method = Method::load(program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  EXPECT_EQ((*method)->output_count(), 1u);
  ASSERT_TRUE((*method)->set_input(0, view_of(x)).ok());
  ASSERT_TRUE((*method)->execute().ok());
  // kernel 3, stride 2, padding 1 as stored in the program's values.
  EXPECT_TRUE(test::tensors_close(output_of(**method, 0), at::max_pool2d(x, {3, 3}, {2, 2}, {1, 1})));
}

TEST(MethodCorpus, ExternalConstantsNeedTheirPtd) {
  Program program = load("upstream/ptd/add_mul_external.pte");
  auto without = Method::load(program, "forward", test::with_kernels());
  ASSERT_FALSE(without.ok());
  EXPECT_NE(std::string(without.error().message()).find("external constant 'a' is not in any data file"),
            std::string::npos);
  auto data = FlatTensor::load_file(test::corpus("upstream/ptd/add_mul_external.ptd"));
  ASSERT_TRUE(data.ok());
  MethodOptions options;
  options.kernels = &all_kernels();
  options.data_files.push_back(&*data);
  // [[1, 2], [3, 4]] -> [[5, 8], [11, 14]] per the corpus README.
  at::Tensor x = at::tensor({1.f, 2.f, 3.f, 4.f}).view({2, 2});
  EXPECT_TRUE(test::tensors_close(run(program, {x}, options),
                                  at::tensor({5.f, 8.f, 11.f, 14.f}).view({2, 2})));
}

TEST(MethodCorpus, CustomOpProgramsListEveryMissingKernel) {
  // Without the cortex_m:: kernels (an empty registry here), loading lists
  // every operator that has none.
  KernelRegistry empty;
  MethodOptions without_kernels;
  without_kernels.kernels = &empty;
  auto method = Method::load(load("upstream/pte/keyword_spotting_cortex_m.pte"), "forward", without_kernels);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::kMissingKernel);
  const std::string message = method.error().message();
  EXPECT_NE(message.find("no kernel for 8 operators"), std::string::npos) << message;
  for (const char* op : {"cortex_m::quantize_per_tensor.out", "cortex_m::quantized_depthwise_conv2d.out",
                         "cortex_m::quantized_conv2d.out", "cortex_m::pad.out",
                         "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_linear.out"}) {
    EXPECT_NE(message.find(op), std::string::npos) << op;
  }
  auto cadence = Method::load(load("upstream/pte/cadence_conv2d_quantized.pte"), "forward", test::with_kernels());
  ASSERT_FALSE(cadence.ok());
  EXPECT_NE(std::string(cadence.error().message()).find("cadence::quantized_conv2d_nchw.per_tensor_out"),
            std::string::npos);
}

TEST(MethodCorpus, KeywordSpottingRunsOnTheCortexMKernels) {
  // The Arduino model: float MFCC features in, 12 keyword scores out. The
  // scores are dequantized int8 values: multiples of the output scale
  // (0.154293…) around the zero point 23, within int8's range.
  Program program = load("upstream/pte/keyword_spotting_cortex_m.pte");
  auto method = Method::load(program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  at::Tensor features = at::linspace(-200, 200, 490).reshape({1, 1, 49, 10});
  const at::Tensor scores = run(program, {features});
  ASSERT_EQ(scores.sizes(), (at::IntArrayRef{1, 12}));
  const double scale = 0.154293164611;
  for (int64_t i = 0; i < 12; ++i) {
    const double q = scores[0][i].item<float>() / scale + 23;
    EXPECT_NEAR(q, std::round(q), 1e-3) << i;
    EXPECT_GE(std::round(q), -128);
    EXPECT_LE(std::round(q), 127);
  }
}

TEST(MethodCorpus, QnnMethodsNeedTheBackendConstantMethodsRun) {
  Program program = load("upstream/pte/stories260k_qnn_multimethod.pte");
  size_t constant_methods = 0, unavailable = 0;
  for (const char* name : {"kv_forward", "prefill_forward"}) {
    auto method = Method::load(program, name, test::with_kernels());
    ASSERT_FALSE(method.ok()) << name;
    EXPECT_EQ(method.error().code(), ErrorCode::kMissingBackend);
    EXPECT_NE(std::string(method.error().message()).find("backend QnnBackend is not available"),
              std::string::npos);
    ++unavailable;
  }
  for (const MethodSummary& summary : summarize(program).methods) {
    if (summary.instruction_count != 0) continue;
    auto method = Method::load(program, summary.name, test::with_kernels());
    ASSERT_TRUE(method.ok()) << summary.name << ": " << method.error().message();
    ASSERT_TRUE((*method)->execute().ok());
    EXPECT_GE((*method)->output_count(), 1u);
    ++constant_methods;
  }
  EXPECT_EQ(unavailable, 2u);
  EXPECT_EQ(constant_methods, 27u);
}

}  // namespace
}  // namespace etkit
