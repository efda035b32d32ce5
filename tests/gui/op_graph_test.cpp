// The graph view's model. Truth: MobileNetV2's structure (ten residual adds,
// each joining two branches), the same graph reached by two paths (the
// ETRecord's edge program and the program's instructions), the XNNPACK
// export's delegate map, the trace's own events and logged tensor shapes.

#include "etkit/gui/op_graph.h"

#include "etkit/gui/module_groups.h"
#include "etkit/gui/step_breakdown.h"
#include "etkit/inspector/generation_steps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// Each instruction's kernel event average in the first block named `block`.
std::map<int32_t, double> kernel_averages(const Workspace& ws, const std::string& block) {
  std::map<int32_t, double> out;
  for (const inspector::EventBlock& b : ws.blocks()) {
    if (b.name != block) continue;
    for (const inspector::Event& e : b.events) {
      if (e.perf_data && e.instruction_id >= 0 && e.name.rfind("native_call_", 0) == 0) out[e.instruction_id] = e.perf_data->avg;
    }
    break;
  }
  return out;
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

// Edges carry their tensors' shapes, from the ETRecord's graph and, by a
// second path, from the program's memory plan. The tutorial CNN's shapes by
// hand: a 1x1x32x32 image, 5x5 convolutions without padding (32 -> 28,
// 14 -> 10), 2x2 pools (28 -> 14, 10 -> 5), 16 then 32 channels.
TEST(OpGraph, EdgesCarryTheShapesOfTheirTensors) {
  const Loaded m = load_sample("tutorial_cnn");
  const MethodSummary& method = m.summary.methods[0];
  const auto shapes_from = [](const OpGraph& g) {
    std::map<std::pair<std::string, std::string>, std::vector<std::string>> out;  // (from label, to label) -> shapes
    for (const OpEdge& e : g.edges) out[{g.nodes[e.from].label, g.nodes[e.to].label}].push_back(e.shape);
    return out;
  };
  for (const bool with_record : {true, false}) {
    SCOPED_TRACE(with_record ? "from the ETRecord" : "from the instructions");
    auto graph = build_op_graph(&method, with_record ? &m.record : nullptr, "forward", true);
    ASSERT_TRUE(graph.ok());
    const auto shapes = shapes_from(*graph);
    EXPECT_EQ(shapes.at({"convolution", "relu"}), (std::vector<std::string>{"1×16×28×28", "1×32×10×10"}));
    const auto pooled = shapes.at({"max_pool2d_with_indices", "convolution"});
    EXPECT_EQ(pooled, std::vector<std::string>{"1×16×14×14"});
  }
}

// MobileNetV2's modules (torchvision's): `features` holds 19 blocks
// (features.0 ... features.18), and each of the ten residual adds is inside
// its InvertedResidual block, so with the blocks closed no node joins two
// branches; opened, a block shows its `conv` Sequential and its add again.
TEST(OpGraph, ModulesGroupTheirOpsAndOpenOneLevelDeeper) {
  const Loaded m = load_sample("mobilenet_v2");
  auto ops = build_op_graph(&m.summary.methods[0], &m.record, "forward", true);
  ASSERT_TRUE(ops.ok());
  EXPECT_GE(module_depth(*ops), 3u);
  EXPECT_EQ(group_by_module(*ops, 0).nodes.size(), ops->nodes.size());
  const OpGraph blocks = group_by_module(*ops, 2);
  std::set<std::string> feature_blocks;
  size_t members = 0;
  for (const OpNode& node : blocks.nodes) {
    members += node.members;
    if (node.module_group.rfind("features.", 0) == 0) feature_blocks.insert(node.module_group);
    if (!node.module_group.empty()) {
      EXPECT_GT(node.members, 1u) << node.module_group;
      EXPECT_EQ(node.group_instructions.size(), node.members) << node.module_group;
      EXPECT_EQ(node.modules.size(), 2u) << node.module_group;
    }
  }
  EXPECT_EQ(members, ops->nodes.size());  // every op in one node
  EXPECT_EQ(feature_blocks.size(), 19u);
  EXPECT_TRUE(feature_blocks.count("features.0") && feature_blocks.count("features.18"));
  for (size_t degree : in_degree(blocks)) EXPECT_LE(degree, 1u);
  // Shapes survive grouping: what leaves features.18 is 1280 channels at
  // 4x4 (the sample's 128x128 image downsampled 32 times).
  bool last_block_out = false;
  for (const OpEdge& e : blocks.edges) {
    if (blocks.nodes[e.from].module_group == "features.18" && blocks.nodes[e.to].module_group.empty()) {
      EXPECT_EQ(e.shape, "1×1280×4×4");
      last_block_out = true;
    }
  }
  EXPECT_TRUE(last_block_out);
  // features.3 (stride 1, 24 channels in and out: a residual block) opened.
  const OpGraph opened = group_by_module(*ops, 2, {"features.3"});
  const std::vector<size_t> degree = in_degree(opened);
  size_t adds_joining = 0, conv_groups = 0;
  for (size_t i = 0; i < opened.nodes.size(); ++i) {
    const OpNode& node = opened.nodes[i];
    EXPECT_NE(node.module_group, "features.3");
    conv_groups += node.module_group == "features.3.conv";
    if (node.label == "add" && !node.modules.empty() && node.modules.back() == "features.3") adds_joining += degree[i] == 2;
  }
  EXPECT_EQ(conv_groups, 1u);
  EXPECT_EQ(adds_joining, 1u);
  EXPECT_EQ(opened.nodes.size(), blocks.nodes.size() + 1);
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

// A tall graph folded for a wide view: columns side by side, nearer the
// view's aspect, every node inside the drawing and none overlapping, order
// kept top to bottom and left to right, edges across columns folded.
TEST(OpGraph, ATallGraphFoldsIntoColumnsThatFillAWideView) {
  const ProgramSummary summary = long_program(120);
  auto laid = build_op_graph(&summary.methods[0], nullptr, "forward", true);
  ASSERT_TRUE(laid.ok());
  ASSERT_TRUE(layout_op_graph(*laid, nullptr).ok());
  const OpGraph& tall = *laid;
  ASSERT_GT(tall.height, 10 * tall.width);
  size_t columns = 0;
  const OpGraph wide = fold_into_columns(tall, 1.6f, &columns);
  EXPECT_GT(columns, 2u);
  const auto distance = [](const OpGraph& g) { return std::fabs(std::log(g.width / g.height / 1.6f)); };
  EXPECT_LT(distance(wide), distance(tall) / 3);
  ASSERT_EQ(wide.nodes.size(), tall.nodes.size());
  const float pitch = (wide.width + 36) / float(columns);
  std::vector<size_t> column(wide.nodes.size());
  for (size_t i = 0; i < wide.nodes.size(); ++i) {
    const OpNode& n = wide.nodes[i];
    EXPECT_EQ(n.name, tall.nodes[i].name);
    EXPECT_GE(n.x - n.w / 2, -0.5f);
    EXPECT_LE(n.x + n.w / 2, wide.width + 0.5f);
    EXPECT_GE(n.y - n.h / 2, -0.5f);
    EXPECT_LE(n.y + n.h / 2, wide.height + 0.5f);
    column[i] = size_t(n.x / pitch);
    for (size_t j = 0; j < i; ++j) {
      const OpNode& m = wide.nodes[j];
      EXPECT_FALSE(std::abs(n.x - m.x) < (n.w + m.w) / 2 && std::abs(n.y - m.y) < (n.h + m.h) / 2)
          << n.name << " and " << m.name;
    }
  }
  // Execution order: the chain reads down a column, then on in the next.
  for (size_t i = 1; i < wide.nodes.size(); ++i) {
    ASSERT_GE(column[i], column[i - 1]);
    if (column[i] == column[i - 1]) {
      EXPECT_GT(wide.nodes[i].y, wide.nodes[i - 1].y);
    }
  }
  EXPECT_EQ(column.back(), columns - 1);
  size_t folded = 0;
  for (const OpEdge& e : wide.edges) {
    EXPECT_EQ(e.folded, column[e.from] != column[e.to]);
    folded += e.folded;
    for (size_t p = 0; p + 1 < e.points.size(); p += 2) {
      EXPECT_GE(e.points[p + 1], -0.5f);
      EXPECT_LE(e.points[p + 1], wide.height + 0.5f);
    }
  }
  EXPECT_GE(folded, columns - 1);
  // A view as tall as the graph asks for no fold; nor does a graph not laid out.
  size_t one = 0;
  EXPECT_EQ(fold_into_columns(tall, tall.width / tall.height, &one).width, tall.width);
  EXPECT_EQ(one, 1u);
  EXPECT_EQ(fold_into_columns(OpGraph{}, 1.6f, &one).nodes.size(), 0u);
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
  const std::map<int32_t, double> decode_ms = kernel_averages(*ws, "Decode");
  ASSERT_FALSE(decode_ms.empty());
  size_t checked = 0;
  for (const OpNode& node : graph->nodes) {
    const auto found = decode_ms.find(node.instruction);
    if (found == decode_ms.end() || node.members != 1) continue;
    EXPECT_NEAR(node.latency_ms, found->second, 1e-9) << node.name;
    ++checked;
  }
  EXPECT_GT(checked, 10u);
  // The phase picker's other phase: each node's Prefill average.
  ASSERT_EQ(graph->phases, (std::vector<std::string>{"Decode", "Prefill"}));
  const std::map<int32_t, double> prefill_ms = kernel_averages(*ws, "Prefill");
  size_t prefill_checked = 0;
  for (const OpNode& node : graph->nodes) {
    EXPECT_TRUE(std::isnan(phase_latency(node, 2)));
    const auto found = prefill_ms.find(node.instruction);
    if (found == prefill_ms.end() || node.members != 1) continue;
    EXPECT_NEAR(phase_latency(node, 1), found->second, 1e-9) << node.name;
    EXPECT_EQ(phase_latency(node, 0), node.latency_ms);
    ++prefill_checked;
  }
  EXPECT_GT(prefill_checked, 10u);

  // The Steps view's breakdown of the same trace: one entry per step, its
  // ops' times within the step (the ops run inside Method::execute), the
  // llama attention op among the keys.
  const std::vector<inspector::GenerationStepTiming> steps = inspector::generation_steps(*ws->trace());
  ASSERT_EQ(steps.size(), 3u + 4u - 1u);  // 3 prompt tokens, then 4 new ones (the first from the prompt's step)
  const std::vector<std::vector<KeyTime>> per_step = step_op_times(*ws, steps);
  ASSERT_EQ(per_step.size(), steps.size());
  bool attention = false;
  for (size_t s = 0; s < steps.size(); ++s) {
    double ops = 0;
    for (const KeyTime& k : per_step[s]) {
      ops += k.ns;
      attention |= k.key.find("sdpa") != std::string::npos;
    }
    EXPECT_GT(ops, 0) << "step " << s;
    EXPECT_LE(ops, steps[s].latency()) << "step " << s;
  }
  EXPECT_TRUE(attention);
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
  std::map<int32_t, double> latency = kernel_averages(*ws, "Execute");
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
