// Bundles written by our writer, from random inputs and outputs computed by
// libtorch, verify at the default tolerances for the corpus programs.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstring>

#include "etkit/bundled/bundled_writer.h"
#include "etkit/bundled/verify.h"
#include "etkit/core/file_data.h"
#include "support/corpus.h"
#include "support/kernels.h"

namespace etkit::bundled {
namespace {

OwnedValue owned(const at::Tensor& t) {
  OwnedValue v;
  v.scalar_type = static_cast<ScalarType>(t.scalar_type());
  for (int64_t s : t.sizes()) v.sizes.push_back(int32_t(s));
  const at::Tensor c = t.contiguous();
  v.data.resize(size_t(c.numel() * c.element_size()));
  std::memcpy(v.data.data(), c.data_ptr(), v.data.size());
  return v;
}

using Reference = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

void check(const char* file, std::vector<std::vector<int64_t>> input_shapes, Reference reference) {
  const auto program = test::read_file(test::corpus(file));
  OwnedTestSuite suite{"forward", {}};
  for (int c = 0; c < 4; ++c) {
    std::vector<at::Tensor> inputs;
    OwnedTestCase test_case;
    for (const auto& shape : input_shapes) {
      inputs.push_back(at::randn(shape) * 3);
      test_case.inputs.push_back(owned(inputs.back()));
    }
    test_case.expected_outputs.push_back(owned(reference(inputs)));
    suite.cases.push_back(std::move(test_case));
  }
  auto bytes = write_bundled_program(ByteSpan{program.data(), program.size()}, {suite});
  ASSERT_TRUE(bytes.ok()) << file << ": " << bytes.error().message();
  auto data = FileData::copy_of(ByteSpan{bytes->data(), bytes->size()}, "bundle.bpte");
  auto bundle = BundledProgram::load(data, "bundle.bpte");
  ASSERT_TRUE(bundle.ok());
  auto loaded = bundle->load_program();
  ASSERT_TRUE(loaded.ok());
  auto report = verify(*bundle, *loaded, test::with_kernels(), VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->passed, 4u) << file;
}

TEST(BundleFromLibtorch, CorpusProgramsVerify) {
  check("upstream/pte/add.pte", {{1}, {1}}, [](auto& in) { return at::add(in[0], in[1]); });
  check("upstream/pte/module_linear_inline_constants.pte", {{2, 2}},
        [](auto& in) { return in[0] * 3 + 2; });
  check("upstream/pte/softmax.pte", {{2, 4096}}, [](auto& in) { return at::_softmax(in[0], 1, false); });
  check("upstream/pte/maxpool2d.pte", {{1, 64, 112, 112}},
        [](auto& in) { return at::max_pool2d(in[0], {3, 3}, {2, 2}, {1, 1}); });
}

}  // namespace
}  // namespace etkit::bundled
