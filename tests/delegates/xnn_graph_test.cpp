// The XNNPACK payload reader on upstream's own payloads (the corpus README
// lists their nodes and debug handles) and on broken ones.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "etkit/core/file_data.h"
#include "etkit/core/program.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"
#include "support/corpus.h"

namespace etkit::xnnpack {
namespace {

using test::checked;
using test::corpus;

struct CorpusPayload {
  Program program;
  ByteSpan payload;
};

CorpusPayload load(const std::string& name, bool inline_payload) {
  Program program = checked(Program::load_file(corpus("upstream-runtime/" + name)), name);
  const ByteSpan payload = inline_payload ? program.inline_delegate_data(0) : program.segment(0);
  return {std::move(program), payload};
}

NamedDataLookup named_of(const Program& program) {
  return [&program](const std::string& key) { return program.named_data(key); };
}

std::vector<NodeKind> kinds(const XnnGraph& graph) {
  std::vector<NodeKind> out;
  for (const GraphNode& node : graph.nodes) out.push_back(node.kind);
  return out;
}

std::vector<uint32_t> handles(const XnnGraph& graph) {
  std::vector<uint32_t> out;
  for (const GraphNode& node : graph.nodes) out.push_back(node.debug_handle);
  return out;
}

TEST(XnnGraph, ReadsTheMlpWithWeightsAsNamedData) {
  CorpusPayload mlp = load("xnn_mlp.pte", false);
  XnnGraph graph = checked(read_xnn_graph(mlp.payload, named_of(mlp.program)), "xnn_mlp");
  EXPECT_TRUE(graph.has_header);
  EXPECT_EQ(kinds(graph), (std::vector<NodeKind>{NodeKind::kFullyConnected, NodeKind::kClamp,
                                                 NodeKind::kFullyConnected, NodeKind::kSoftmax}));
  EXPECT_EQ(handles(graph), (std::vector<uint32_t>{1, 2, 3, 4}));
  const GraphNode& clamp = graph.nodes[1];
  EXPECT_EQ(clamp.output_min, 0.0f);
  EXPECT_TRUE(std::isinf(clamp.output_max));
  ASSERT_EQ(graph.inputs.size(), 1u);
  ASSERT_EQ(graph.outputs.size(), 1u);
  EXPECT_EQ(graph.values[graph.inputs[0]].dims, (std::vector<size_t>{3, 16}));
  EXPECT_EQ(graph.values[graph.outputs[0]].dims, (std::vector<size_t>{3, 10}));
  // The first layer's weight is the 2048-byte named data entry (32 x 16
  // floats); the reader hands out the program's own bytes.
  const GraphValue& weight = graph.values[graph.nodes[0].inputs[1]];
  EXPECT_EQ(weight.dims, (std::vector<size_t>{32, 16}));
  const ByteSpan expected = checked(
      mlp.program.named_data("21ef17bb0299f7d989fb574f444eb7040506e9236dde24322f3c9b219ffd555d"),
      "named data");
  EXPECT_EQ(weight.constant.data, expected.data);
  EXPECT_EQ(weight.constant.size, 2048u);
  EXPECT_TRUE(unsupported_reason(graph).empty());
}

TEST(XnnGraph, ReadsTheInlinePayloadWithConstantsInside) {
  CorpusPayload dbg = load("xnn_dbg.pte", true);
  XnnGraph graph = checked(read_xnn_graph(dbg.payload, nullptr), "xnn_dbg");
  EXPECT_EQ(kinds(graph), (std::vector<NodeKind>{NodeKind::kMultiply, NodeKind::kSigmoid,
                                                 NodeKind::kSubtract, NodeKind::kClamp,
                                                 NodeKind::kFullyConnected, NodeKind::kHardswish}));
  EXPECT_EQ(handles(graph), (std::vector<uint32_t>{101, 102, 103, 104, 105, 106}));
  EXPECT_EQ(graph.nodes[3].output_min, -0.5f);
  EXPECT_EQ(graph.nodes[3].output_max, 0.5f);
  const GraphValue& bias = graph.values[graph.nodes[4].inputs[2]];
  EXPECT_EQ(bias.dims, (std::vector<size_t>{4}));
  EXPECT_GE(bias.constant.data, dbg.payload.data);
  EXPECT_LE(bias.constant.data + bias.constant.size, dbg.payload.data + dbg.payload.size);
  EXPECT_EQ(graph.inputs.size(), 2u);
}

TEST(XnnGraph, MissingNamedDataNamesTheKey) {
  CorpusPayload mlp = load("xnn_mlp.pte", false);
  auto graph = read_xnn_graph(mlp.payload, nullptr);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(std::string(graph.error().message()).find("named data '21ef17bb"), std::string::npos)
      << graph.error().message();
}

TEST(XnnGraph, EveryTruncationIsAnErrorNotACrash) {
  for (const auto& [name, inline_payload] :
       std::vector<std::pair<std::string, bool>>{{"xnn_mlp.pte", false}, {"xnn_dbg.pte", true}}) {
    CorpusPayload p = load(name, inline_payload);
    for (size_t length = 0; length < p.payload.size; ++length) {
      std::vector<uint8_t> cut(p.payload.data, p.payload.data + length);
      auto graph = read_xnn_graph(ByteSpan{cut.data(), cut.size()}, named_of(p.program));
      EXPECT_FALSE(graph.ok()) << name << " cut to " << length << " bytes";
    }
  }
}

TEST(XnnGraph, FlippedBytesNeverCrash) {
  // Reads must fail or succeed, never read out of bounds (ASan watches).
  CorpusPayload dbg = load("xnn_dbg.pte", true);
  std::vector<uint8_t> bytes(dbg.payload.data, dbg.payload.data + dbg.payload.size);
  size_t failures = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
      bytes[i] ^= flip;
      failures += !read_xnn_graph(ByteSpan{bytes.data(), bytes.size()}, nullptr).ok();
      bytes[i] ^= flip;
    }
  }
  EXPECT_GT(failures, 0u);
}

TEST(XnnGraph, HeaderRegionsOutsideThePayloadAreRefused) {
  CorpusPayload dbg = load("xnn_dbg.pte", true);
  std::vector<uint8_t> bytes(dbg.payload.data, dbg.payload.data + dbg.payload.size);
  const uint32_t huge = 0x7FFFFFF0;
  std::memcpy(bytes.data() + 14, &huge, 4);  // flatbuffer size
  auto graph = read_xnn_graph(ByteSpan{bytes.data(), bytes.size()}, nullptr);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(std::string(graph.error().message()).find("lies outside"), std::string::npos);
}

TEST(XnnGraph, BareFlatbufferWithoutHeaderReads) {
  // Older payloads are the flatbuffer alone: cut the header off the MLP's.
  CorpusPayload mlp = load("xnn_mlp.pte", false);
  bool present = false;
  PayloadHeader header = checked(parse_payload_header(mlp.payload, present), "header");
  ASSERT_TRUE(present);
  std::vector<uint8_t> bare(mlp.payload.data + header.flatbuffer_offset,
                            mlp.payload.data + header.flatbuffer_offset + header.flatbuffer_size);
  XnnGraph graph = checked(read_xnn_graph(ByteSpan{bare.data(), bare.size()}, named_of(mlp.program)),
                           "bare");
  EXPECT_FALSE(graph.has_header);
  EXPECT_EQ(graph.nodes.size(), 4u);
}

TEST(XnnSupport, SplitsNodesBetweenXnnpackAndPortableKernels) {
  EXPECT_EQ(runner_of(NodeKind::kConv2d), NodeRunner::kXnnpack);
  EXPECT_EQ(runner_of(NodeKind::kStaticTranspose), NodeRunner::kPortable);
  EXPECT_EQ(runner_of(NodeKind::kBatchMatrixMultiply), NodeRunner::kPortable);
  EXPECT_EQ(runner_of(NodeKind::kScaledDotProductAttention), NodeRunner::kUnsupported);
  EXPECT_STREQ(portable_kernel_of(NodeKind::kConcatenate3), "aten::cat.out");
  // Names as upstream's traces of the corpus programs spell them.
  GraphNode multiply;
  multiply.kind = NodeKind::kMultiply;
  EXPECT_EQ(operator_name(multiply), "Multiply (ND)");
  GraphNode fc;
  fc.kind = NodeKind::kFullyConnected;
  EXPECT_EQ(operator_name(fc), "Fully Connected (NC, F32) GEMM");
}

}  // namespace
}  // namespace etkit::xnnpack
