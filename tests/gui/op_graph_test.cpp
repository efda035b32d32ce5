// The graph view's model. Truth: MobileNetV2's structure (ten residual adds,
// each joining two branches), the same graph reached by two paths (the
// ETRecord's edge program and the program's instructions), the XNNPACK
// export's delegate map, the trace's own events and logged tensor shapes.

#include "etkit/gui/op_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "etkit/core/program.h"
#include "etkit/gui/workspace.h"
#include "support/cli.h"
#include "support/corpus.h"
#include "support/program_builder.h"

namespace etkit::gui {
namespace {

struct Loaded {
  ProgramSummary summary;
  etrecord::Etrecord record;
};

Loaded load_sample(const std::string& name) {
  auto program = Program::load_file(test::sample(name + "/" + name + ".pte"));
  EXPECT_TRUE(program.ok());
  auto record = etrecord::Etrecord::load_file(test::sample(name + "/" + name + ".etrecord"));
  EXPECT_TRUE(record.ok());
  return {summarize(*program), std::move(*record)};
}

std::vector<size_t> in_degree(const OpGraph& graph) {
  std::vector<size_t> degree(graph.nodes.size(), 0);
  for (const OpEdge& e : graph.edges) ++degree[e.to];
  return degree;
}

// Ten inverted-residual blocks of MobileNetV2 keep their shape
// and add their input back: ten adds, each of two branches.
void expect_ten_residual_adds(const OpGraph& graph) {
  const std::vector<size_t> degree = in_degree(graph);
  size_t adds = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].label != "add") continue;
    ++adds;
    EXPECT_EQ(degree[i], 2u) << graph.nodes[i].name;
  }
  EXPECT_EQ(adds, 10u);
}

TEST(OpGraph, MobileNetV2FromItsRecordHasTenResidualAdds) {
  const Loaded m = load_sample("mobilenet_v2");
  auto graph = build_op_graph(&m.summary.methods[0], &m.record, "forward", true);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  EXPECT_EQ(graph->source, "ETRecord");
  expect_ten_residual_adds(*graph);
  // Only the image's first convolution and the classifier weight's transpose
  // (a constant's permute the exporter leaves to run time) read no op's output.
  const std::vector<size_t> degree = in_degree(*graph);
  std::multiset<std::string> sources;
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    if (degree[i] == 0) sources.insert(graph->nodes[i].label);
    EXPECT_GE(graph->nodes[i].instruction, 0) << graph->nodes[i].name;  // every op runs as an instruction
  }
  EXPECT_EQ(sources, (std::multiset<std::string>{"convolution", "permute_copy"}));
}

TEST(OpGraph, WithoutARecordTheInstructionsGiveTheSameShape) {
  const Loaded m = load_sample("mobilenet_v2");
  const MethodSummary& method = m.summary.methods[0];
  auto graph = build_op_graph(&method, nullptr, "forward", true);
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph->source, "instructions");
  size_t kernels = 0;
  for (const InstructionSummary& i : method.instructions) kernels += i.chain == 0 && i.kind == "kernel";
  EXPECT_EQ(graph->nodes.size(), kernels);
  expect_ten_residual_adds(*graph);
  // The record's graph has the same ops (getitems drawn as their producer,
  // a view the emitter turned into an alias as what it reads) and every
  // dependency the instructions show. It may show more: a value read
  // through such an alias has no writing instruction.
  auto from_record = build_op_graph(&method, &m.record, "forward", true);
  ASSERT_TRUE(from_record.ok());
  EXPECT_EQ(from_record->nodes.size(), graph->nodes.size());
  std::set<std::pair<int32_t, int32_t>> record_edges;
  for (const OpEdge& e : from_record->edges) {
    record_edges.insert({from_record->nodes[e.from].instruction, from_record->nodes[e.to].instruction});
  }
  for (const OpEdge& e : graph->edges) {
    EXPECT_TRUE(record_edges.count({graph->nodes[e.from].instruction, graph->nodes[e.to].instruction}))
        << graph->nodes[e.from].name << " -> " << graph->nodes[e.to].name;
  }
  EXPECT_LE(from_record->edges.size(), graph->edges.size() + 2);
}

TEST(OpGraph, DelegatedOpsCollapseIntoTheirCallAndExpandBack) {
  const Loaded m = load_sample("mobilenet_v2_xnnpack");
  auto collapsed = build_op_graph(&m.summary.methods[0], &m.record, "forward", true);
  auto expanded = build_op_graph(&m.summary.methods[0], &m.record, "forward", false);
  ASSERT_TRUE(collapsed.ok() && expanded.ok());
  size_t delegated = 0;
  for (const OpNode& n : expanded->nodes) delegated += n.backend == "XnnpackBackend";
  EXPECT_GT(delegated, 100u);
  expect_ten_residual_adds(*expanded);
  std::vector<const OpNode*> calls;
  for (const OpNode& n : collapsed->nodes) {
    if (n.backend == "XnnpackBackend") calls.push_back(&n);
  }
  ASSERT_EQ(calls.size(), 1u);  // the whole model is one delegate call
  EXPECT_EQ(calls[0]->members, delegated);
  EXPECT_EQ(calls[0]->label, "XnnpackBackend (" + std::to_string(delegated) + " ops)");
  EXPECT_EQ(collapsed->nodes.size(), expanded->nodes.size() - delegated + 1);
}

TEST(OpGraph, DotRanksEveryEdgeDownwardWithoutOverlaps) {
  const Loaded m = load_sample("mobilenet_v2");
  auto graph = build_op_graph(&m.summary.methods[0], &m.record, "forward", true);
  ASSERT_TRUE(graph.ok());
  Status laid = layout_op_graph(*graph, nullptr);
  ASSERT_TRUE(laid.ok()) << laid.error().message();
  for (const OpEdge& e : graph->edges) {
    EXPECT_GT(graph->nodes[e.to].y, graph->nodes[e.from].y);
    EXPECT_GE(e.points.size(), 8u);  // a cubic Bézier at least
  }
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    const OpNode& a = graph->nodes[i];
    EXPECT_GT(a.w, 0);
    EXPECT_GE(a.x - a.w / 2, -0.5f);
    EXPECT_LE(a.x + a.w / 2, graph->width + 0.5f);
    EXPECT_LE(a.y + a.h / 2, graph->height + 0.5f);
    EXPECT_EQ(node_at(*graph, a.x, a.y), int64_t(i));
    for (size_t j = i + 1; j < graph->nodes.size(); ++j) {
      const OpNode& b = graph->nodes[j];
      const bool overlap = std::abs(a.x - b.x) < (a.w + b.w) / 2 && std::abs(a.y - b.y) < (a.h + b.h) / 2;
      EXPECT_FALSE(overlap) << a.name << " and " << b.name;
    }
  }
  EXPECT_EQ(node_at(*graph, -100, -100), -1);
}

// MobileNetV2 at width 0.5 with 100 classes (the sample): a
// 16-channel 3x3 stem over RGB, its batch norm's four 16-vectors, and a
// 1280 -> 100 classifier whose weight the exporter transposes at run time.
TEST(OpGraph, OpsCarryTheConstantBytesTheyRead) {
  const Loaded m = load_sample("mobilenet_v2");
  auto graph = build_op_graph(&m.summary.methods[0], &m.record, "forward", true);
  ASSERT_TRUE(graph.ok());
  std::ifstream in(test::sample("mobilenet_v2/mobilenet_v2.pte"), std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto constants = inspector::constant_values(ByteSpan{bytes.data(), bytes.size()}, "mobilenet_v2.pte");
  ASSERT_TRUE(constants.ok()) << constants.error().message();
  annotate_op_graph(*graph, &m.summary.methods[0], {}, 1.0, nullptr, *constants);
  std::map<std::string, double> first;  // the first node of each label
  for (const OpNode& n : graph->nodes) first.emplace(n.label, n.constant_bytes);
  EXPECT_EQ(first["convolution"], 16 * 3 * 3 * 3 * 4);
  EXPECT_EQ(first["_native_batch_norm_legit_no_training"], 4 * 16 * 4);
  EXPECT_EQ(first["permute_copy"], 1280 * 100 * 4);
  EXPECT_EQ(first["addmm"], 100 * 4);
  EXPECT_EQ(first["hardtanh"], 0);
}

// 600 ops, each reading the previous result and one a few ops back.
ProgramSummary long_program(int ops) {
  test::ProgramBuilder b;
  std::vector<int32_t> values = {b.tensor({4}, 0)};
  const int32_t one = b.integer(1);
  for (int i = 1; i <= ops; ++i) {
    const int32_t out = b.tensor({4}, int64_t(i) * 16);
    const int32_t skip = values[size_t(std::max(0, int(values.size()) - 1 - (1 + i % 5)))];
    b.kernel_call("aten::add", "out", {values.back(), skip, one, out, out});
    values.push_back(out);
  }
  b.arena(int64_t(ops + 1) * 16);
  b.inputs({values.front()});
  b.outputs({values.back()});
  auto program = b.load();
  EXPECT_TRUE(program.ok());
  return summarize(*program);
}

TEST(OpGraph, LargeGraphsLayOutInStackedPiecesThatNeverOverlap) {
  const ProgramSummary summary = long_program(600);
  auto graph = build_op_graph(&summary.methods[0], nullptr, "forward", true);
  ASSERT_TRUE(graph.ok());
  ASSERT_EQ(graph->nodes.size(), 600u);
  ASSERT_TRUE(layout_op_graph(*graph, nullptr).ok());
  // Execution order reads top to bottom: every edge, within a piece or
  // between two, points down; boxes never overlap (sorted by y, neighbours checked).
  for (const OpEdge& e : graph->edges) EXPECT_GT(graph->nodes[e.to].y, graph->nodes[e.from].y);
  std::vector<const OpNode*> by_y;
  for (const OpNode& n : graph->nodes) by_y.push_back(&n);
  std::sort(by_y.begin(), by_y.end(), [](const OpNode* a, const OpNode* b) { return a->y < b->y; });
  for (size_t i = 0; i < by_y.size(); ++i) {
    for (size_t j = i + 1; j < by_y.size() && by_y[j]->y - by_y[i]->y < 30; ++j) {
      const bool overlap = std::abs(by_y[i]->x - by_y[j]->x) < (by_y[i]->w + by_y[j]->w) / 2 &&
                           std::abs(by_y[i]->y - by_y[j]->y) < (by_y[i]->h + by_y[j]->h) / 2;
      EXPECT_FALSE(overlap) << by_y[i]->name << " and " << by_y[j]->name;
    }
    EXPECT_LE(by_y[i]->y + by_y[i]->h / 2, graph->height + 0.5f);
  }
}

// A generate trace has Prefill and Decode blocks, no Execute: the graph's
// latencies are a Decode step's (the step a generation repeats), each node's
// the average of its kernel event in the Decode block.
TEST(OpGraph, AGenerateTraceColoursByADecodeStep) {
  const std::string trace = test::temp("graph_generate.etdp");
  ASSERT_EQ(test::etinspect({"generate", test::sample("tiny_llama/tiny_llama.pte"), "--prompt-tokens", "1,2,3",
                             "--max-new", "4", "--etdump", trace})
                .exit_code,
            0);
  OpenRequest request;
  request.files = {trace, test::sample("tiny_llama/tiny_llama.pte"), test::sample("tiny_llama/tiny_llama.etrecord")};
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  const OpGraph* graph = ws->graph();
  ASSERT_NE(graph, nullptr) << ws->graph_problem();
  EXPECT_EQ(graph->latency_block, "Decode");
  std::map<int32_t, double> decode_ms;  // instruction -> its kernel's average, in the Decode block
  for (const inspector::EventBlock& b : ws->blocks()) {
    if (b.name != "Decode") continue;
    for (const inspector::Event& e : b.events) {
      if (e.perf_data && e.instruction_id >= 0 && e.name.rfind("native_call_", 0) == 0) decode_ms[e.instruction_id] = e.perf_data->avg;
    }
    break;
  }
  ASSERT_FALSE(decode_ms.empty());
  size_t checked = 0;
  for (const OpNode& node : graph->nodes) {
    const auto found = decode_ms.find(node.instruction);
    if (found == decode_ms.end() || node.members != 1) continue;
    EXPECT_NEAR(node.latency_ms, found->second, 1e-9) << node.name;
    ++checked;
  }
  EXPECT_GT(checked, 10u);
}

TEST(OpGraph, NodesCarryTheirInstructionsLatencyAndOutputSize) {
  OpenRequest request;
  request.files = {test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"),
                   test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"),
                   test::corpus_program("tutorial_cnn.pte"), test::corpus_program("tutorial_cnn.etrecord")};
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty());
  const OpGraph* graph = ws->graph();
  ASSERT_NE(graph, nullptr) << ws->graph_problem();
  // Built and annotated at load, laid out only when asked.
  EXPECT_FALSE(ws->graph_laid_out());
  EXPECT_EQ(graph->width, 0);
  ws->lay_out_graphs_now();
  ASSERT_TRUE(ws->graph_laid_out()) << ws->graph_problem();
  graph = ws->graph();
  EXPECT_GT(graph->width, 0);
  // Each kernel's event in the Execute block, and each instruction's logged
  // output: its shape gives the bytes (float32).
  std::map<int32_t, double> latency;
  for (const inspector::EventBlock& b : ws->blocks()) {
    if (b.name != "Execute") continue;
    for (const inspector::Event& e : b.events) {
      if (e.perf_data && e.instruction_id >= 0 && e.name.rfind("native_call_", 0) == 0) latency[e.instruction_id] = e.perf_data->avg;
    }
    break;
  }
  std::map<int32_t, double> output_bytes;
  for (const auto& [instruction, outputs] : ws->debug_outputs()) {
    if (outputs.empty()) continue;
    // The last out argument (max_pool2d_with_indices: the int64 indices).
    double n = double(element_size(outputs.back().dtype));
    for (int64_t s : outputs.back().sizes) n *= double(s);
    output_bytes[instruction] = n;
  }
  size_t checked = 0;
  for (const OpNode& node : graph->nodes) {
    ASSERT_TRUE(latency.count(node.instruction)) << node.name;
    EXPECT_DOUBLE_EQ(node.latency_ms, latency[node.instruction]) << node.name;  // the table's unit is ms
    if (output_bytes.count(node.instruction)) {
      EXPECT_DOUBLE_EQ(node.output_bytes, output_bytes[node.instruction]) << node.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5u);
}

}  // namespace
}  // namespace etkit::gui
