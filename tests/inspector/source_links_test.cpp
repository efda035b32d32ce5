// Runtime events linked to graph nodes through an ETRecord: a trace of the
// corpus toy model (forward(input, other) = input * other, f32[3, 2], as the
// corpus ETRecord's edge program says) carries that node's debug handle,
// op type and stack trace.

#include "etkit/inspector/source_links.h"

#include "etkit/inspector/event_text.h"
#include "etkit/inspector/numeric_gap.h"

#include <gtest/gtest.h>

#include "etkit/core/file_data.h"
#include "etkit/core/method.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"
#include "support/program_builder.h"
#include "support/kernels.h"

namespace etkit::inspector {
namespace {

// A run of the toy model on inputs of 2.0, traced with `debug` (program
// outputs or intermediates) into `debug_buffer`.
Result<etdump::ETDump> trace_of_toy_model(etdump::DebugLevel debug = etdump::DebugLevel::kNone,
                                          Span<uint8_t> debug_buffer = {}) {
  test::ProgramBuilder b;
  const int32_t input = b.tensor({3, 2}, 0), other = b.tensor({3, 2}, 32), out = b.tensor({3, 2}, 64);
  b.kernel_call("aten::mul", "out", {input, other, out, out});
  b.inputs({input, other});
  b.outputs({out});
  b.arena(96);
  auto program = b.load();
  if (!program.ok()) return program.error();
  etdump::ETDumpGenOptions gen_options;
  gen_options.debug_level = debug;
  gen_options.debug_buffer = debug_buffer;
  etdump::ETDumpGen gen(gen_options);
  MethodOptions options;
  options.kernels = &all_kernels();
  options.tracer = &gen;
  ETKIT_ASSIGN_OR_RETURN(auto method, Method::load(*program, "forward", options));
  std::vector<float> x(6, 2.0f);
  std::vector<int64_t> sizes = {3, 2};
  ETKIT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), 2), {},
                                                x.data(), x.size() * sizeof(float)));
  ETKIT_TRY(method->set_input(0, t));
  ETKIT_TRY(method->set_input(1, t));
  ETKIT_TRY(method->execute());
  ETKIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, gen.serialize());
  return etdump::ETDump::load(FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "toy.etdp"), "toy.etdp");
}

TEST(SourceLinks, ToyModelTraceCarriesTheCorpusRecordsNode) {
  auto trace = trace_of_toy_model();
  ASSERT_TRUE(trace.ok()) << trace.error().message();
  auto blocks = event_blocks(*trace);
  ASSERT_TRUE(blocks.ok());
  auto record = etrecord::Etrecord::load_file(test::corpus("upstream/etrecord/toy_model_v0.etrecord"));
  ASSERT_TRUE(record.ok()) << record.error().message();
  const LinkReport report = link_etrecord(*blocks, *record, "forward");
  EXPECT_EQ(report.unmatched, 0u);
  const Event* kernel = nullptr;
  for (const EventBlock& block : *blocks) {
    for (const Event& event : block.events) {
      if (event.name == "native_call_mul.out") kernel = &event;
      // Method-level events have no instruction and stay unlinked.
      if (event.name == "Method::execute") {
        EXPECT_TRUE(event.debug_handles.empty());
      }
    }
  }
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->debug_handles, std::vector<int64_t>{2});
  EXPECT_EQ(kernel->op_types, std::vector<std::string>{"aten.mul.Tensor"});
  ASSERT_EQ(kernel->stack_traces.size(), 1u);
  EXPECT_EQ(kernel->stack_traces[0].first, "aten_mul_tensor");
  EXPECT_NE(kernel->stack_traces[0].second.find("return input * other"), std::string::npos);
  for (const EventBlock& block : *blocks) {
    if (block.name == "Execute") {
      EXPECT_EQ(op_list(block), std::vector<std::string>{"aten.mul.Tensor"});
    }
  }
}

TEST(SourceLinks, RunOutputsAndIntermediatesOfTheToyModel) {
  // input * other with both 2.0: every element is 4.0, as output and as the
  // one instruction's intermediate.
  std::vector<uint8_t> buffer(4096);
  auto trace = trace_of_toy_model(etdump::DebugLevel::kIntermediateOutputs, Span<uint8_t>(buffer.data(), buffer.size()));
  ASSERT_TRUE(trace.ok()) << trace.error().message();
  const ByteSpan bytes{buffer.data(), buffer.size()};
  size_t execute = trace->block_count();
  for (size_t b = 0; b < trace->block_count(); ++b) {
    if (trace->block(b).name() == "Execute") execute = b;
  }
  ASSERT_LT(execute, trace->block_count());
  auto outputs = run_outputs(*trace, bytes, execute);
  ASSERT_TRUE(outputs.ok()) << outputs.error().message();
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ((*outputs)[0].sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ((*outputs)[0].values, std::vector<double>(6, 4.0));
  auto intermediates = recorded_outputs(*trace, bytes);
  ASSERT_TRUE(intermediates.ok());
  ASSERT_EQ(intermediates->size(), 1u);
  EXPECT_EQ((*intermediates)[0].instruction_id, 0);
  EXPECT_EQ((*intermediates)[0].values, std::vector<double>(6, 4.0));
  EXPECT_FALSE(run_outputs(*trace, bytes, trace->block_count()).ok());
}

// One short op name whatever the source: kernel event, operator, op type;
// names of other things unchanged. The label adds the innermost module.
TEST(EventText, ShortOpNamesAndLabels) {
  EXPECT_EQ(short_op_name("native_call_convolution.out"), "convolution");
  EXPECT_EQ(short_op_name("aten::convolution.out"), "convolution");
  EXPECT_EQ(short_op_name("aten.convolution.default"), "convolution");
  EXPECT_EQ(short_op_name("native_call_split_with_sizes_copy.out"), "split_with_sizes_copy");
  EXPECT_EQ(short_op_name("llama::sdpa_with_kv_cache.out"), "sdpa_with_kv_cache");
  EXPECT_EQ(short_op_name("quantized_decomposed::quantize_per_tensor.out"), "quantize_per_tensor");
  EXPECT_EQ(short_op_name("Method::execute"), "Method::execute");
  EXPECT_EQ(short_op_name("Program::load_method"), "Program::load_method");
  EXPECT_EQ(short_op_name("OPERATOR_CALL"), "OPERATOR_CALL");
  EXPECT_EQ(short_op_name("Convolution (NHWC, F32) GEMM #26"), "Convolution (NHWC, F32) GEMM #26");
  EXPECT_EQ(short_op_name("113"), "113");
  Event event;
  event.name = "native_call_convolution.out";
  EXPECT_EQ(op_label(event), "convolution");
  event.module_hierarchy.push_back(
      {"aten_convolution_default", {{"L__self__", "", "Net"}, {"L__self___features_3_conv_0", "features.3.conv.0",
                                                               "torch.nn.modules.conv.Conv2d"}}});
  EXPECT_EQ(op_label(event), "convolution · features.3.conv.0");
  event.module_hierarchy.front().second.resize(1);  // only the root module
  EXPECT_EQ(op_label(event), "convolution · <root>");
}

}  // namespace
}  // namespace etkit::inspector
