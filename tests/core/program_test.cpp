// Facts about the upstream corpus programs, as stated in
// ../shared/corpus/README.md and read by hand from the files — never copied
// from etkit's own output.

#include "etkit/core/program.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "etkit/core/file_data.h"
#include "etkit/core/program_summary.h"
#include "support/corpus.h"

namespace etkit {
namespace {

ProgramSummary summary_of(const std::string& relative) {
  auto program = Program::load_file(test::corpus(relative));
  EXPECT_TRUE(program.ok()) << program.error().message();
  if (!program.ok()) {
    return {};
  }
  return summarize(*program);
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(ProgramCorpus, AddHasNoExtendedHeaderAndOneAddKernel) {
  for (const char* file : {"upstream/pte/add.pte", "upstream/pte/add_apple_tests.pte"}) {
    ProgramSummary s = summary_of(file);
    ASSERT_EQ(s.methods.size(), 1u) << file;
    EXPECT_EQ(s.methods[0].name, "forward");
    EXPECT_EQ(s.methods[0].operators, std::vector<std::string>{"aten::add.out"});
  }
  EXPECT_FALSE(summary_of("upstream/pte/add.pte").has_extended_header);
}

TEST(ProgramCorpus, ArduinoAddKeepsConstantsInASegment) {
  ProgramSummary s = summary_of("upstream/pte/add_arduino.pte");
  EXPECT_TRUE(s.has_extended_header);
  EXPECT_EQ(s.constant_storage, "segment");
  EXPECT_GE(s.constant_segment, 0);
  EXPECT_EQ(s.segment_base_offset, 0x480u);
}

TEST(ProgramCorpus, LegacyInlineConstants) {
  ProgramSummary s = summary_of("upstream/pte/module_linear_inline_constants.pte");
  EXPECT_EQ(s.constant_storage, "inline");
  EXPECT_GT(s.constant_count, 0u);
  EXPECT_EQ(s.methods[0].operators,
            (std::vector<std::string>{"aten::mul.out", "aten::add.out"}));
}

TEST(ProgramCorpus, SoftmaxPlansA64KiBArena) {
  ProgramSummary s = summary_of("upstream/pte/softmax.pte");
  EXPECT_EQ(s.methods[0].operators, std::vector<std::string>{"aten::_softmax.out"});
  EXPECT_EQ(s.methods[0].planned_bytes, 64u * 1024u);
}

TEST(ProgramCorpus, MaxPoolWritesTwoOutsButReturnsOne) {
  ProgramSummary s = summary_of("upstream/pte/maxpool2d.pte");
  const MethodSummary& m = s.methods[0];
  EXPECT_EQ(m.operators, std::vector<std::string>{"aten::max_pool2d_with_indices.out"});
  EXPECT_EQ(m.outputs.size(), 1u);
  // "5.4 MiB planned arena"
  EXPECT_GT(m.planned_bytes, 5.35 * 1024 * 1024);
  EXPECT_LT(m.planned_bytes, 5.45 * 1024 * 1024);
}

TEST(ProgramCorpus, KeywordSpottingNamesItsCustomKernels) {
  ProgramSummary s = summary_of("upstream/pte/keyword_spotting_cortex_m.pte");
  const auto& ops = s.methods[0].operators;
  for (const char* op : {"cortex_m::quantized_conv2d.out", "cortex_m::quantized_depthwise_conv2d.out",
                         "cortex_m::quantized_linear.out", "cortex_m::quantized_avg_pool2d.out",
                         "cortex_m::pad.out", "dim_order_ops::_clone_dim_order.out"}) {
    EXPECT_TRUE(contains(ops, op)) << op;
  }
  const auto cortex = std::count_if(ops.begin(), ops.end(), [](const std::string& op) {
    return op.rfind("cortex_m::", 0) == 0;
  });
  EXPECT_EQ(cortex, 7);
}

TEST(ProgramCorpus, CadenceCustomOps) {
  for (const char* file : {"upstream/pte/cadence_conv2d_quantized.pte",
                           "upstream/pte/cadence_conv2d_layer5.pte"}) {
    ProgramSummary s = summary_of(file);
    ASSERT_EQ(s.methods.size(), 1u);
    EXPECT_TRUE(contains(s.methods[0].operators, "cadence::quantized_conv2d_nchw.per_tensor_out"))
        << file;
  }
}

TEST(ProgramCorpus, StoriesHas29MethodsTwoDelegatedToQnnInSegments) {
  ProgramSummary s = summary_of("upstream/pte/stories260k_qnn_multimethod.pte");
  ASSERT_EQ(s.methods.size(), 29u);
  size_t delegated = 0;
  size_t constant_methods = 0;
  for (const auto& m : s.methods) {
    if (!m.delegates.empty()) {
      ++delegated;
      ASSERT_EQ(m.delegates.size(), 1u);
      EXPECT_EQ(m.delegates[0].backend_id, "QnnBackend");
      EXPECT_EQ(m.delegates[0].location, "segment");
      EXPECT_GT(m.delegates[0].size, 0u);
    }
    if (m.instruction_count == 0) {
      ++constant_methods;
      EXPECT_FALSE(m.outputs.empty()) << m.name;  // returns its constant(s)
    }
  }
  EXPECT_EQ(delegated, 2u);
  EXPECT_EQ(constant_methods, 27u);
}

TEST(ProgramCorpus, StoriesSegmentsAreViewsIntoTheMappedFile) {
  const std::string path = test::corpus("upstream/pte/stories260k_qnn_multimethod.pte");
  auto file = FileData::load(path);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->is_mapped());
  const ByteSpan bytes = (*file)->bytes();
  auto program = Program::load(*file, bytes, path);
  ASSERT_TRUE(program.ok()) << program.error().message();
  ASSERT_GT(program->segment_count(), 0u);
  for (size_t i = 0; i < program->segment_count(); ++i) {
    const ByteSpan segment = program->segment(i);
    EXPECT_GE(segment.data, bytes.data);
    EXPECT_LE(segment.data + segment.size, bytes.data + bytes.size);
  }
}

TEST(ProgramCorpus, ExternalConstantsAreListedByKey) {
  ProgramSummary s = summary_of("upstream/ptd/add_mul_external.pte");
  ASSERT_EQ(s.external_tensors.size(), 2u);
  EXPECT_EQ(s.external_tensors[0].key, "a");
  EXPECT_EQ(s.external_tensors[1].key, "b");
  EXPECT_EQ(s.external_tensors[0].tensor.sizes, (std::vector<int64_t>{2, 2}));
}

TEST(ProgramCorpus, XnnpackMlpDelegatesToASegmentWithNamedWeights) {
  ProgramSummary s = summary_of("upstream-runtime/xnn_mlp.pte");
  const MethodSummary& m = s.methods[0];
  EXPECT_EQ(m.delegate_call_count, 1u);
  EXPECT_EQ(m.kernel_call_count, 0u);
  ASSERT_EQ(m.delegates.size(), 1u);
  EXPECT_EQ(m.delegates[0].backend_id, "XnnpackBackend");
  EXPECT_EQ(m.delegates[0].location, "segment");
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].tensor.scalar_type, ScalarType::kFloat);
  EXPECT_EQ(m.inputs[0].tensor.sizes, (std::vector<int64_t>{3, 16}));
  EXPECT_EQ(m.outputs[0].tensor.sizes, (std::vector<int64_t>{3, 10}));
  ASSERT_FALSE(s.named_data.empty());
  for (const auto& entry : s.named_data) {
    EXPECT_EQ(entry.key.size(), 64u) << "sha256 hex key expected: " << entry.key;
  }
}

TEST(ProgramCorpus, XnnpackDebugProgramMixesKernelsAndAnInlineDelegate) {
  ProgramSummary s = summary_of("upstream-runtime/xnn_dbg.pte");
  const MethodSummary& m = s.methods[0];
  EXPECT_EQ(m.operators, (std::vector<std::string>{"aten::add.out", "aten::mul.out"}));
  EXPECT_EQ(m.kernel_call_count, 2u);
  ASSERT_EQ(m.delegates.size(), 1u);
  EXPECT_EQ(m.delegates[0].location, "inline");
}

TEST(Program, RejectsWrongMagicAndShortInput) {
  auto bytes = test::read_file(test::corpus("upstream/pte/add.pte"));
  bytes[4] = 'X';
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "bad.pte");
  auto program = Program::load(file, file->bytes(), "bad.pte");
  ASSERT_FALSE(program.ok());
  EXPECT_STREQ(program.error().message(),
               "bad.pte: not a program: expected identifier 'ET12' at byte 4");
  auto tiny = FileData::copy_of(ByteSpan{bytes.data(), 5}, "tiny.pte");
  EXPECT_EQ(Program::load(tiny, tiny->bytes(), "tiny.pte").error().code(),
            ErrorCode::kTruncated);
}

TEST(Program, OtherFormatVersionIsUnsupported) {
  auto bytes = test::read_file(test::corpus("upstream/pte/add.pte"));
  bytes[7] = '1';  // "ET11"
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "old.pte");
  auto program = Program::load(file, file->bytes(), "old.pte");
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.error().code(), ErrorCode::kUnsupported);
  EXPECT_STREQ(program.error().message(), "old.pte: program format 'ET11' (etkit reads ET12)");
}

}  // namespace
}  // namespace etkit
