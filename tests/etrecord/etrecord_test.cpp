// The decoded ETRecord: edge graph nodes and the instruction/delegate maps,
// from the upstream corpus record, from records written by the Python
// exporter (a second writer), and from damaged records built here.

#include "etkit/etrecord/etrecord.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <string>
#include <utility>
#include <vector>

#include "support/corpus.h"

namespace etkit::etrecord {
namespace {

std::string write_zip(const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& entries) {
  const std::string path = test::write_temp(name, {});
  int error = 0;
  zip_t* zip = zip_open(path.c_str(), ZIP_TRUNCATE | ZIP_CREATE, &error);
  EXPECT_NE(zip, nullptr);
  for (const auto& [entry, content] : entries) {
    zip_source_t* source = zip_source_buffer(zip, content.data(), content.size(), 0);
    EXPECT_GE(zip_file_add(zip, entry.c_str(), source, ZIP_FL_OVERWRITE), 0);
  }
  EXPECT_EQ(zip_close(zip), 0);  // copies the buffers, which are still alive here
  return path;
}

bool has_warning(const Etrecord& record, const std::string& text) {
  for (const std::string& warning : record.warnings()) {
    if (warning.find(text) != std::string::npos) return true;
  }
  return false;
}

const std::string kGraph = R"({"graph_module": {"graph": {"nodes": [
  {"target": "executorch.exir.dialects.edge.ops.aten.mul.Tensor",
   "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
   "outputs": [{"as_tensor": {"name": "mul"}}],
   "metadata": {"debug_handle": "1", "stack_trace": "  File \"m.py\", line 7, in forward\n    return x * 2\n",
                "nn_module_stack": "L__self__,,M;L__self___lin,lin,torch.nn.modules.linear.Linear"}},
  {"target": "executorch.exir.dialects.edge.ops.aten.add.Tensor", "inputs": [],
   "outputs": [{"as_tensor": {"name": "add"}}], "metadata": {"debug_handle": 2}}]}}})";

TEST(Etrecord, CorpusLegacyRecordLinksItsMulNode) {
  // Per the corpus README and its dump: one node, aten mul.Tensor, debug
  // handle "2", source line "return input * other"; both maps are {}.
  auto record = Etrecord::load_file(test::corpus("upstream/etrecord/toy_model_v0.etrecord"));
  ASSERT_TRUE(record.ok()) << record.error().message();
  const MethodRecord* forward = record->method("forward");
  ASSERT_NE(forward, nullptr);
  ASSERT_TRUE(forward->has_graph);
  const GraphNode* node = forward->graph.find(2);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->target, "aten.mul.Tensor");
  EXPECT_EQ(node->name, "aten_mul_tensor");
  EXPECT_NE(node->stack_trace.find("return input * other"), std::string::npos);
  EXPECT_NE(innermost_source_line(node->stack_trace).find("toy_model/model.py:18"), std::string::npos);
  // Its debug_handle_map is {}: instruction 0 is matched to the one node.
  EXPECT_TRUE(forward->handles_inferred);
  EXPECT_EQ(record->instruction_handles("forward", 0), std::vector<int64_t>{2});
  EXPECT_TRUE(has_warning(*record, "matched to graph nodes in order"));
}

TEST(Etrecord, PerMethodRecordWithMaps) {
  const std::string path = write_zip("per_method.etrecord", {
      {"ETRECORD_V0", ""},
      {"edge_dialect_exported_program/forward", kGraph},
      {"debug_handle_map", R"({"forward": {"0": [1], "1": 2}})"},
      {"delegate_map", R"({"forward": {"3": {"name": "XnnpackBackend", "delegate_map": {"0": [1, 2], "conv": [2]}}}})"},
  });
  auto record = Etrecord::load_file(path);
  ASSERT_TRUE(record.ok()) << record.error().message();
  EXPECT_TRUE(record->warnings().empty()) << record->warnings().front();
  EXPECT_EQ(record->instruction_handles("forward", 0), std::vector<int64_t>{1});
  EXPECT_EQ(record->instruction_handles("forward", 1), std::vector<int64_t>{2});  // a bare int
  EXPECT_TRUE(record->instruction_handles("forward", 9).empty());
  EXPECT_EQ(record->delegate_handles("forward", 3, "0"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(record->delegate_handles("forward", 3, "conv"), std::vector<int64_t>{2});
  // An integer id the map does not list is the node's own debug handle (as
  // upstream's XNNPACK records, whose maps are empty); other ids name nothing.
  EXPECT_EQ(record->delegate_handles("forward", 3, "7"), std::vector<int64_t>{7});
  EXPECT_EQ(record->delegate_handles("forward", 5, "7"), std::vector<int64_t>{7});
  EXPECT_TRUE(record->delegate_handles("forward", 3, "pool").empty());
  EXPECT_TRUE(record->delegate_handles("forward", 3, "-1").empty());
  EXPECT_EQ(record->method("forward")->delegates_by_instruction.at(3).backend, "XnnpackBackend");
  const GraphNode* mul = record->method("forward")->graph.find(1);
  ASSERT_NE(mul, nullptr);
  ASSERT_EQ(mul->module_stack.size(), 2u);
  EXPECT_EQ(mul->module_stack[1].key, "L__self___lin");
  EXPECT_EQ(mul->module_stack[1].path, "lin");
  EXPECT_EQ(mul->module_stack[1].type, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(mul->module_stack[0].path, "");
  EXPECT_EQ(innermost_source_line(mul->stack_trace), "m.py:7");
  EXPECT_EQ(mul->inputs, std::vector<std::string>{"x"});
}

// instruction_id_to_num_outs_map (upstream's Event.num_outputs): read per
// method; a bad entry is a warning and the rest still read.
TEST(Etrecord, OutputCountsOfDelegateCalls) {
  const std::string path = write_zip("num_outs.etrecord", {
      {"ETRECORD_V0", ""},
      {"edge_dialect_exported_program/forward", kGraph},
      {"debug_handle_map", R"({"forward": {"0": [1]}})"},
      {"delegate_map", R"({})"},
      {"instruction_id_to_num_outs_map", R"({"forward": {"3": 2, "5": 1, "x": 4, "6": -1}})"},
  });
  auto record = Etrecord::load_file(path);
  ASSERT_TRUE(record.ok()) << record.error().message();
  EXPECT_EQ(record->method("forward")->outputs_by_instruction, (std::map<int64_t, int64_t>{{3, 2}, {5, 1}}));
  ASSERT_EQ(record->warnings().size(), 2u);
  EXPECT_NE(record->warnings()[0].find("instruction_id_to_num_outs_map[forward]"), std::string::npos);
  // Upstream's exporter writes it: the YOLO sample's first delegate call
  // returns the two heads' maps (read with Info-ZIP's unzip -p: {"8": 2, "22": 1}).
  auto sample = Etrecord::load_file(std::string(ETKIT_SOURCE_DIR) +
                                    "/samples/yolo_detector_xnnpack/yolo_detector_xnnpack.etrecord");
  ASSERT_TRUE(sample.ok()) << sample.error().message();
  EXPECT_EQ(sample->method("forward")->outputs_by_instruction, (std::map<int64_t, int64_t>{{8, 2}, {22, 1}}));
}

// torch.export's traces end in PyTorch's own module code; the line worth
// naming is the user's call (as in upstream's samples' records).
TEST(EdgeGraph, SourceLineIsTheUsersInnermostFrame) {
  const std::string user_then_torch =
      "File \"/work/models.py\", line 131, in forward\n    x = self.conv1(x)\n"
      "  File \"/venv/lib/python3.11/site-packages/torch/nn/modules/conv.py\", line 565, in forward\n"
      "    return self._conv_forward(input, self.weight, self.bias)";
  EXPECT_EQ(innermost_source_line(user_then_torch), "/work/models.py:131");
  EXPECT_EQ(innermost_source_line("File \"/venv/site-packages/torch/nn/functional.py\", line 9, in f"),
            "/venv/site-packages/torch/nn/functional.py:9");  // only PyTorch's frames: the innermost
  EXPECT_EQ(innermost_source_line("no frames here"), "");
}

TEST(Etrecord, DamagedEntriesBecomeWarnings) {
  const std::string path = write_zip("damaged.etrecord", {
      {"ETRECORD_V0", ""},
      {"edge_dialect_exported_program/forward", kGraph},
      {"edge_dialect_exported_program/decode", "{not json"},
      {"debug_handle_map", R"({"forward": {"0": [1], "1": [42], "x": [1], "2": "three"}})"},
  });
  auto record = Etrecord::load_file(path);
  ASSERT_TRUE(record.ok()) << record.error().message();
  EXPECT_TRUE(has_warning(*record, "edge_dialect_exported_program/decode: not valid JSON"));
  EXPECT_TRUE(has_warning(*record, "delegate_map is missing"));
  EXPECT_TRUE(has_warning(*record, "debug_handle_map[forward][x]"));
  EXPECT_TRUE(has_warning(*record, "debug_handle_map[forward][2]"));
  EXPECT_TRUE(has_warning(*record, "1 handle(s) with no graph node (e.g. 42)"));
  // What could be read is still there.
  EXPECT_EQ(record->instruction_handles("forward", 0), std::vector<int64_t>{1});
  EXPECT_NE(record->method("forward")->graph.find(1), nullptr);
}

TEST(EdgeGraph, WrongTypesAndCutJsonNeverCrash) {
  // Values of the wrong JSON type are skipped or warned about, never
  // trusted; cut or altered documents fail cleanly (run under ASan+UBSan).
  std::vector<std::string> warnings;
  const std::string odd = R"({"graph_module": {"graph": {"nodes": [
    5, {"target": 7}, {"target": "t", "outputs": {"as_tensor": 1}, "inputs": [{"arg": []}],
                       "metadata": {"debug_handle": [], "stack_trace": 3, "nn_module_stack": "a;b,c;,,"}},
    {"target": "u", "metadata": {"debug_handle": "12x"}}]}}})";
  auto graph = parse_edge_graph(odd, "odd", warnings);
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  EXPECT_EQ(graph->nodes.size(), 2u);  // the nodes with a string target
  EXPECT_GE(warnings.size(), 3u);
  EXPECT_FALSE(parse_edge_graph(R"({"graph_module": {"graph": {"nodes": {}}}})", "x", warnings).ok());
  EXPECT_FALSE(parse_edge_graph("[]", "x", warnings).ok());

  auto record = Etrecord::load_file(std::string(ETKIT_SOURCE_DIR) + "/samples/tutorial_cnn/tutorial_cnn.etrecord");
  ASSERT_TRUE(record.ok());
  auto text = record->archive().read("edge_dialect_exported_program/forward");
  ASSERT_TRUE(text.ok());
  for (size_t step = 0; step < 64; ++step) {
    std::string cut = text->substr(0, text->size() * step / 64);
    (void)parse_edge_graph(cut, "cut", warnings);
    std::string altered = *text;
    for (size_t i = step; i < altered.size(); i += 97) altered[i] = "{}[]\",:0"[(i + step) % 9];
    (void)parse_edge_graph(altered, "altered", warnings);
  }
}

TEST(Etrecord, BadZipIsAnError) {
  const std::string path = test::write_temp("bad.etrecord", {'P', 'K', 3, 4, 0, 0});
  auto record = Etrecord::load_file(path);
  ASSERT_FALSE(record.ok());
  EXPECT_NE(std::string(record.error().message()).find("bad.etrecord"), std::string::npos);
}

TEST(Etrecord, SampleRecordFromThePythonExporter) {
  // Written by etkit's former torch 1.13 exporter (Python's zipfile + json)
  // for the tutorial CNN the corpus traces ran: instruction i maps to handle
  // i + 1, and the first convolution is conv1, called in the model's forward
  // as `F.relu(self.conv1(x))`.
  auto record = Etrecord::load_file(test::corpus_program("tutorial_cnn.etrecord"));
  ASSERT_TRUE(record.ok()) << record.error().message();
  EXPECT_EQ(record->archive().layout(), Layout::kPerMethod);
  EXPECT_TRUE(record->warnings().empty());
  const MethodRecord* forward = record->method("forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->handles_by_instruction.size(), 15u);
  EXPECT_EQ(record->instruction_handles("forward", 0), std::vector<int64_t>{1});
  const GraphNode* conv1 = forward->graph.find(1);
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->target, "aten.convolution.default");
  ASSERT_FALSE(conv1->module_stack.empty());
  EXPECT_EQ(conv1->module_stack.back().path, "conv1");
  EXPECT_EQ(conv1->module_stack.back().type, "torch.nn.modules.conv.Conv2d");
  EXPECT_NE(conv1->stack_trace.find("self.conv1(x)"), std::string::npos);
}

// Made by upstream's generate_etrecord (samples/export/upstream): per-method
// graph entries with their binary _state_dict/_constants/_example_inputs
// companions, -Infinity in the graph JSON (attention masks), debug handles
// shared by the nodes a pass derived from one node, and the delegated nodes
// inside each delegate call's lowered module, as a JSON string argument.
TEST(Etrecord, UpstreamGeneratedRecordOfAnXnnpackProgram) {
  auto record = Etrecord::load_file(std::string(ETKIT_SOURCE_DIR) +
                                    "/samples/speech_encoder_xnnpack/speech_encoder_xnnpack.etrecord");
  ASSERT_TRUE(record.ok()) << record.error().message();
  EXPECT_EQ(record->archive().methods(), std::vector<std::string>{"forward"});  // upstream's reader's rule
  for (const std::string& warning : record->warnings()) ADD_FAILURE() << warning;
  const MethodRecord* forward = record->method("forward");
  ASSERT_NE(forward, nullptr);
  ASSERT_TRUE(forward->has_graph);
  // Every handle the debug handle map names is on a node of the record,
  // including the delegate calls' handles, which only lowered modules hold.
  size_t handles = 0, shared = 0;
  for (const auto& [instruction, list] : forward->handles_by_instruction) {
    for (int64_t handle : list) {
      ++handles;
      const std::vector<const GraphNode*> nodes = forward->graph.find_all(handle);
      EXPECT_FALSE(nodes.empty()) << "instruction " << instruction << " handle " << handle;
      shared += nodes.size() > 1;
      if (!nodes.empty()) {
        EXPECT_EQ(forward->graph.find(handle), nodes.front());
      }
    }
  }
  EXPECT_GT(handles, 0u);
  EXPECT_GT(shared, 0u);  // upstream's SDPA decomposition gives its nodes one handle
  size_t delegated_convolutions = 0;
  for (const GraphNode& node : forward->graph.nodes) delegated_convolutions += node.target == "aten.convolution.default";
  EXPECT_EQ(delegated_convolutions, 2u);  // the encoder's two 1-D convolutions, both inside XNNPACK calls
}

TEST(EdgeGraph, PythonsNonFiniteNumbersAreRead) {
  std::vector<std::string> warnings;
  const std::string graph = R"({"graph_module": {"graph": {"nodes": [
    {"target": "aten.full.default", "inputs": [{"name": "fill_value", "arg": {"as_float": -Infinity}},
     {"name": "other", "arg": {"as_float": NaN}}, {"name": "text", "arg": {"as_string": "Infinity \" NaN"}}],
     "outputs": [{"as_tensor": {"name": "full"}}], "metadata": {"debug_handle": 3}}]}}})";
  auto parsed = parse_edge_graph(graph, "graph", warnings);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  ASSERT_EQ(parsed->nodes.size(), 1u);
  EXPECT_EQ(parsed->nodes[0].name, "full");
  EXPECT_NE(parsed->find(3), nullptr);
}

}  // namespace
}  // namespace etkit::etrecord
