// The XNNPACK backend against libtorch: upstream's XNNPACK programs from
// the corpus, and payloads built here in upstream's layout for what the
// corpus lacks (NCHW inputs behind static transposes, which this XNNPACK
// runs on portable kernels, and channels-last inputs without them). Fused
// and node-by-node runs compute the same; traces carry debug handles.

#include <gtest/gtest.h>
#include <ATen/ATen.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <optional>

#include "etkit/core/backend.h"
#include "etkit/core/event_tracer.h"
#include "etkit/core/kernel_registry.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#include "etkit/etdump/etdump_gen.h"
#include "etkit/etdump/etdump_reader.h"
#include "support/corpus.h"
#include "support/xnn_payload_layout.h"
#include "support/kernels.h"

namespace etkit::xnnpack {
namespace {

using test::checked;
using test::corpus;

at::Tensor from_bytes(ByteSpan bytes, std::vector<int64_t> sizes) {
  return at::from_blob(const_cast<uint8_t*>(bytes.data), sizes, at::kFloat).clone();
}

Tensor view_of(at::Tensor& t) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  return checked(Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {},
                              t.data_ptr<float>(), size_t(t.numel()) * 4),
                 "tensor");
}

struct LoadedMethod {
  XnnpackBackend backend;
  BackendRegistry registry;
  std::optional<Program> program;
  std::unique_ptr<Method> method;
};

std::unique_ptr<LoadedMethod> load_method(const std::string& name, EventTracer* tracer = nullptr) {
  auto loaded = std::make_unique<LoadedMethod>();
  loaded->program.emplace(checked(Program::load_file(corpus("upstream-runtime/" + name)), name));
  loaded->registry.add(kXnnpackBackendId, &loaded->backend);
  MethodOptions options;
  options.kernels = &all_kernels();
  options.backends = &loaded->registry;
  options.tracer = tracer;
  loaded->method = checked(Method::load(*loaded->program, "forward", options), "method");
  return loaded;
}

at::Tensor run(Method& method, std::vector<at::Tensor> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_TRUE(method.set_input(i, view_of(inputs[i])).ok());
  }
  Status status = method.execute();
  EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message());
  const Tensor& out = method.output(0).unchecked_tensor();
  std::vector<int64_t> sizes(out.sizes().begin(), out.sizes().end());
  return at::from_blob(out.data(), sizes, at::kFloat).clone();
}

ByteSpan constant_of(const XnnGraph& graph, const GraphNode& node, size_t input) {
  return graph.values[node.inputs[input]].constant;
}

TEST(XnnpackBackend, CorpusMlpMatchesLibtorch) {
  auto loaded = load_method("xnn_mlp.pte");
  XnnGraph graph = checked(read_xnn_graph(loaded->program->segment(0), [&](const std::string& key) {
                             return loaded->program->named_data(key);
                           }), "graph");
  at::manual_seed(7);
  at::Tensor x = at::randn({3, 16});
  const at::Tensor w1 = from_bytes(constant_of(graph, graph.nodes[0], 1), {32, 16});
  const at::Tensor b1 = from_bytes(constant_of(graph, graph.nodes[0], 2), {32});
  const at::Tensor w2 = from_bytes(constant_of(graph, graph.nodes[2], 1), {10, 32});
  const at::Tensor b2 = from_bytes(constant_of(graph, graph.nodes[2], 2), {10});
  const at::Tensor expected =
      at::softmax(at::linear(at::relu(at::linear(x, w1, b1)), w2, b2), 1);
  const at::Tensor actual = run(*loaded->method, {x});
  EXPECT_TRUE(at::allclose(actual, expected, 1e-5, 1e-7)) << (actual - expected).abs().max();
}

TEST(XnnpackBackend, CorpusProgramAroundADelegateMatchesLibtorch) {
  // add.out, then the delegate (Multiply, Sigmoid, Subtract, Clamp,
  // FullyConnected, Hardswish over the sum and the second input), then mul.out.
  auto loaded = load_method("xnn_dbg.pte");
  XnnGraph graph = checked(read_xnn_graph(loaded->program->inline_delegate_data(0), nullptr), "graph");
  at::manual_seed(8);
  at::Tensor x = at::randn({2, 8}), y = at::randn({2, 8});
  const at::Tensor w = from_bytes(constant_of(graph, graph.nodes[4], 1), {4, 8});
  const at::Tensor b = from_bytes(constant_of(graph, graph.nodes[4], 2), {4});
  const at::Tensor a = x + y;
  const at::Tensor inner = at::clamp(at::sigmoid(a * y) - a, -0.5, 0.5);
  const at::Tensor d = at::hardswish(at::linear(inner, w, b));
  const at::Tensor expected = d * d;
  const at::Tensor actual = run(*loaded->method, {x, y});
  EXPECT_TRUE(at::allclose(actual, expected, 1e-5, 1e-7)) << (actual - expected).abs().max();
}

// Records the delegate events a backend reports.
class DelegateEventRecorder final : public EventTracer {
 public:
  struct Event {
    std::string name;
    int32_t id;
  };
  std::vector<Event> events;
  void create_event_block(const char*) override {}
  EventTracerEntry start_profiling(const char*, int32_t, int32_t) override { return {}; }
  void end_profiling(EventTracerEntry) override {}
  EventTracerEntry start_profiling_delegate(const char* name, int32_t id) override {
    EventTracerEntry entry;
    entry.name = name;
    entry.delegate_debug_id_int = id;
    return entry;
  }
  void end_profiling_delegate(EventTracerEntry entry, ByteSpan) override {
    events.push_back({entry.name, entry.delegate_debug_id_int});
  }
  void log_profiling_delegate(const char*, int32_t, uint64_t, uint64_t, ByteSpan) override {}
  int32_t track_allocator(const char*) override { return -1; }
  void track_allocation(int32_t, uint64_t) override {}
  bool wants_values(LoggedValueKind) const override { return false; }
  void log_value(const Value&, LoggedValueKind, int32_t, int32_t, const char*) override {}
  void set_bundled_input_index(int32_t) override {}
};

// Where a payload keeps its constants: after the flatbuffer at 16-byte
// aligned offsets (upstream's layout), after it at odd offsets, or inside
// the flatbuffer as XN00-era constant buffers.
enum class ConstantLayout { kAlignedData, kOddOffsets, kInlineBuffers };

// A two-convolution payload in upstream's layout, constants inside it:
// Conv2d (3 -> 4, 3x3, stride 2, pad 1, output clamped to [0, 6]), then a
// depthwise 3x3. With `nchw`, the input and output are NCHW behind static
// transposes (debug handles 10 and 13); otherwise they are NHWC as is.
struct ConvPayload {
  std::vector<uint8_t> bytes;
  at::Tensor w, b, wd, bd;  // PyTorch layouts
};

ConvPayload conv_payload(bool nchw, int conv_width = 4, ConstantLayout layout = ConstantLayout::kAlignedData) {
  at::manual_seed(9);
  ConvPayload p;
  p.w = at::randn({4, 3, 3, 3});
  p.b = at::randn({4});
  p.wd = at::randn({4, 1, 3, 3});
  p.bd = at::randn({4});
  const std::vector<at::Tensor> constants = {p.w.permute({0, 2, 3, 1}).contiguous(), p.b,
                                             p.wd.permute({1, 2, 3, 0}).contiguous(), p.bd};
  using nlohmann::json;
  json values = json::array();
  const auto value = [&values](std::vector<int> dims, int constant, int flags, int external) {
    values.push_back({{"value_type", "TensorValue"},
                      {"value", {{"datatype", "fp32"}, {"num_dims", dims.size()}, {"dims", dims},
                                 {"constant_buffer_idx", constant}, {"flags", flags},
                                 {"external_id", external < 0 ? 0xFFFFFFFFu : unsigned(external)},
                                 {"id_out", values.size()}}}});
    return int(values.size() - 1);
  };
  json nodes = json::array();
  const int input = nchw ? value({1, 3, 8, 8}, 0, 1, 0) : value({1, 8, 8, 3}, 0, 1, 0);
  int nhwc_in = input;
  if (nchw) {
    nhwc_in = value({1, 8, 8, 3}, 0, 0, -1);
    nodes.push_back({{"node_type", "StaticTranspose"}, {"debug_handle", 10},
                     {"node", {{"num_dims", 4}, {"perm", {0, 2, 3, 1}}, {"input_id", input},
                               {"output_id", nhwc_in}}}});
  }
  const int w = value({4, 3, 3, 3}, 1, 0, -1), b = value({4}, 2, 0, -1);
  const int conv = value({1, 4, conv_width, 4}, 0, 0, -1);
  const json window = {{"padding_top", 1}, {"padding_right", 1}, {"padding_bottom", 1},
                       {"padding_left", 1}, {"kernel_height", 3}, {"kernel_width", 3},
                       {"dilation_height", 1}, {"dilation_width", 1}};
  json conv_params = window;
  conv_params.update({{"subsampling_height", 2}, {"subsampling_width", 2},
                      {"group_input_channels", 3}, {"group_output_channels", 4}, {"groups", 1},
                      {"input1_id", nhwc_in}, {"filter_id", w}, {"bias_id", b}, {"output_id", conv}});
  nodes.push_back({{"node_type", "Conv2d"}, {"debug_handle", 11}, {"node", conv_params},
                   {"output_min_max", {{"output_min", 0.0}, {"output_max", 6.0}}}});
  const int wd = value({1, 3, 3, 4}, 3, 0, -1), bd = value({4}, 4, 0, -1);
  const int dw = nchw ? value({1, 4, 4, 4}, 0, 0, -1) : value({1, 4, 4, 4}, 0, 2, 1);
  json dw_params = window;
  dw_params.update({{"subsampling_height", 1}, {"subsampling_width", 1},
                    {"group_input_channels", 1}, {"group_output_channels", 1}, {"groups", 4},
                    {"input1_id", conv}, {"filter_id", wd}, {"bias_id", bd}, {"output_id", dw}});
  nodes.push_back({{"node_type", "DepthwiseConv2d"}, {"debug_handle", 12}, {"node", dw_params}});
  int output = dw;
  if (nchw) {
    output = value({1, 4, 4, 4}, 0, 2, 1);
    nodes.push_back({{"node_type", "StaticTranspose"}, {"debug_handle", 13},
                     {"node", {{"num_dims", 4}, {"perm", {0, 3, 1, 2}}, {"input_id", dw},
                               {"output_id", output}}}});
  }
  std::vector<uint8_t> data;
  json offsets = json::array({json::object()});
  json buffers = json::array({{{"storage", json::array()}}});
  for (const at::Tensor& t : constants) {
    const auto* raw = static_cast<const uint8_t*>(t.data_ptr());
    if (layout == ConstantLayout::kInlineBuffers) {
      buffers.push_back({{"storage", std::vector<uint8_t>(raw, raw + t.numel() * 4)}});
      continue;
    }
    data.resize((data.size() + 15) / 16 * 16 + (layout == ConstantLayout::kOddOffsets ? 1 : 0));
    offsets.push_back({{"offset", data.size()}, {"size", t.numel() * 4}});
    data.insert(data.end(), raw, raw + t.numel() * 4);
  }
  json graph = {{"version", "0"}, {"nodes", nodes}, {"values", values}, {"num_externs", 2},
                {"input_ids", {input}}, {"output_ids", {output}}};
  if (layout == ConstantLayout::kInlineBuffers) {
    graph["constant_buffer"] = buffers;
  } else {
    graph["constant_data"] = offsets;
  }
  const std::vector<uint8_t> flatbuffer = test::flatc_binary(
      std::string(ETKIT_SOURCE_DIR) + "/delegates/xnnpack/schema/xnnpack_graph.fbs", graph.dump());
  p.bytes = test::xnn_payload(flatbuffer.data(), flatbuffer.size(), data);
  return p;
}

// Runs a payload through the backend directly, as a delegate call would.
at::Tensor run_payload(const std::vector<uint8_t>& payload, at::Tensor input, std::vector<int64_t> out_sizes,
                       bool per_node, DelegateEventRecorder* recorder = nullptr) {
  XnnpackBackend backend;
  BackendInitContext context;
  context.kernels = &all_kernels();
  context.tracing = per_node;
  void* handle = checked(backend.init(context, ByteSpan{payload.data(), payload.size()}, {}), "init");
  at::Tensor output = at::zeros(out_sizes);
  Tensor in = view_of(input), out = view_of(output);
  Value in_value = Value::from_tensor(&in), out_value = Value::from_tensor(&out);
  Value* args[] = {&in_value, &out_value};
  BackendExecutionContext execution;
  execution.tracer = recorder;
  Status status = backend.execute(execution, handle, Span<Value*>(args, 2));
  EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message());
  backend.destroy(handle);
  return output;
}

at::Tensor conv_reference(const ConvPayload& p, const at::Tensor& x_nchw) {
  const at::Tensor conv = at::conv2d(x_nchw, p.w, p.b, 2, 1).clamp(0, 6);
  return at::conv2d(conv, p.wd, p.bd, 1, 1, 1, 4);
}

TEST(XnnpackBackend, NchwInputBehindTransposesMatchesLibtorch) {
  const ConvPayload p = conv_payload(true);
  at::manual_seed(10);
  const at::Tensor x = at::randn({1, 3, 8, 8});
  const at::Tensor expected = conv_reference(p, x);
  const at::Tensor fused = run_payload(p.bytes, x.clone(), {1, 4, 4, 4}, false);
  EXPECT_TRUE(at::allclose(fused, expected, 1e-5, 1e-5)) << (fused - expected).abs().max();
  DelegateEventRecorder recorder;
  const at::Tensor traced = run_payload(p.bytes, x.clone(), {1, 4, 4, 4}, true, &recorder);
  EXPECT_TRUE(at::equal(traced, fused));
  ASSERT_EQ(recorder.events.size(), 4u);
  const std::vector<int32_t> ids = {recorder.events[0].id, recorder.events[1].id,
                                    recorder.events[2].id, recorder.events[3].id};
  EXPECT_EQ(ids, (std::vector<int32_t>{10, 11, 12, 13}));
  EXPECT_EQ(recorder.events[0].name, "StaticTranspose (portable aten::permute_copy.out) #1");
  EXPECT_EQ(recorder.events[1].name, "Convolution (NHWC, F32) IGEMM #1");
  EXPECT_EQ(recorder.events[2].name, "Convolution (NHWC, F32) DWConv #1");
  EXPECT_EQ(recorder.events[3].name, "StaticTranspose (portable aten::permute_copy.out) #2");
}

// Constants are read in place as floats: a payload at an odd address (inline
// in a program at any offset), constants at odd offsets, and XN00-era
// constant buffers inside a flatbuffer the reader must copy to verify (the
// graph kept pointers into that copy after freeing it) all give libtorch's
// values, node by node and fused, under ASan and UBSan's alignment checks.
TEST(XnnpackBackend, MisalignedPayloadsAndConstantsAreReadFromAlignedCopies) {
  at::manual_seed(10);
  const at::Tensor x = at::randn({1, 3, 8, 8});
  for (ConstantLayout layout :
       {ConstantLayout::kAlignedData, ConstantLayout::kOddOffsets, ConstantLayout::kInlineBuffers}) {
    const ConvPayload p = conv_payload(true, 4, layout);
    const at::Tensor expected = conv_reference(p, x);
    std::vector<uint8_t> shifted(p.bytes.size() + 1);  // the payload at an odd address
    std::memcpy(shifted.data() + 1, p.bytes.data(), p.bytes.size());
    {  // every constant aligned, alive after the read, and holding the weights' bytes
      const XnnGraph graph = checked(read_xnn_graph(ByteSpan{shifted.data() + 1, p.bytes.size()}, nullptr), "graph");
      const std::vector<at::Tensor> weights = {p.w.permute({0, 2, 3, 1}).contiguous(), p.b,
                                               p.wd.permute({1, 2, 3, 0}).contiguous(), p.bd};
      size_t next = 0;
      for (const GraphValue& value : graph.values) {
        if (value.constant.size == 0) continue;
        ASSERT_LT(next, weights.size());
        const at::Tensor& weight = weights[next++];
        EXPECT_EQ(reinterpret_cast<uintptr_t>(value.constant.data) % 16, 0u) << "layout " << int(layout);
        ASSERT_EQ(value.constant.size, size_t(weight.numel() * 4));
        EXPECT_EQ(std::memcmp(value.constant.data, weight.data_ptr(), value.constant.size), 0);
      }
      EXPECT_EQ(next, weights.size());
    }
    for (bool per_node : {false, true}) {
      XnnpackBackend backend;
      BackendInitContext context;
      context.kernels = &all_kernels();
      context.tracing = per_node;
      void* handle = checked(backend.init(context, ByteSpan{shifted.data() + 1, p.bytes.size()}, {}), "init");
      at::Tensor output = at::zeros({1, 4, 4, 4});
      at::Tensor input = x.clone();
      Tensor in = view_of(input), out = view_of(output);
      Value in_value = Value::from_tensor(&in), out_value = Value::from_tensor(&out);
      Value* args[] = {&in_value, &out_value};
      BackendExecutionContext execution;
      const Status status = backend.execute(execution, handle, Span<Value*>(args, 2));
      EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message());
      EXPECT_TRUE(at::allclose(output, expected, 1e-5, 1e-5))
          << "layout " << int(layout) << ", per node " << per_node << ": " << (output - expected).abs().max();
      backend.destroy(handle);
    }
  }
}

TEST(XnnpackBackend, ChannelsLastInputWithoutTransposesMatchesLibtorch) {
  const ConvPayload p = conv_payload(false);
  at::manual_seed(11);
  const at::Tensor x = at::randn({1, 3, 8, 8});
  const at::Tensor expected = conv_reference(p, x).permute({0, 2, 3, 1}).contiguous();
  const at::Tensor nhwc = x.permute({0, 2, 3, 1}).contiguous();
  const at::Tensor fused = run_payload(p.bytes, nhwc, {1, 4, 4, 4}, false);
  EXPECT_TRUE(at::allclose(fused, expected, 1e-5, 1e-5)) << (fused - expected).abs().max();
  const at::Tensor traced = run_payload(p.bytes, nhwc, {1, 4, 4, 4}, true);
  EXPECT_TRUE(at::allclose(traced, expected, 1e-5, 1e-5));
}

TEST(XnnpackBackend, ArgumentsOfTheWrongSizeAreErrors) {
  const ConvPayload p = conv_payload(true);
  XnnpackBackend backend;
  BackendInitContext context;
  context.kernels = &all_kernels();
  void* handle = checked(backend.init(context, ByteSpan{p.bytes.data(), p.bytes.size()}, {}), "init");
  at::Tensor input = at::zeros({1, 3, 4, 4}), output = at::zeros({1, 4, 4, 4});
  Tensor in = view_of(input), out = view_of(output);
  Value in_value = Value::from_tensor(&in), out_value = Value::from_tensor(&out);
  Value* args[] = {&in_value, &out_value};
  BackendExecutionContext execution;
  Status status = backend.execute(execution, handle, Span<Value*>(args, 2));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.error().message()).find("argument 0"), std::string::npos);
  EXPECT_FALSE(backend.execute(execution, handle, Span<Value*>(args, 1)).ok());
  backend.destroy(handle);
}

TEST(XnnpackBackend, PayloadsThatMisstateAShapeFailAtLoad) {
  // XNNPACK writes what a convolution computes (4 columns here), so a
  // payload declaring 5 must not reach it.
  const ConvPayload p = conv_payload(true, 5);
  XnnpackBackend backend;
  BackendInitContext context;
  context.kernels = &all_kernels();
  auto handle = backend.init(context, ByteSpan{p.bytes.data(), p.bytes.size()}, {});
  ASSERT_FALSE(handle.ok());
  EXPECT_NE(std::string(handle.error().message()).find("node 1 (Conv2d, debug handle 11)"),
            std::string::npos)
      << handle.error().message();
}

std::vector<etdump::ProfileEventView> execute_block(const etdump::ETDump& trace) {
  std::vector<etdump::ProfileEventView> events;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    if (block.name() != "Execute") continue;
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind == etdump::EventKind::kProfile) events.push_back(event.profile);
    }
    break;
  }
  return events;
}

TEST(XnnpackBackend, TracesCarryDebugHandlesWhereUpstreamsCarryOperatorNames) {
  // Upstream's trace of the program: XNNPACK operator names as string ids.
  auto upstream = checked(etdump::ETDump::load_file(corpus("upstream-runtime/xnn_dbg.etdp")), "trace");
  size_t upstream_delegated = 0;
  for (const auto& event : execute_block(upstream)) {
    if (event.delegate_debug_id_str.empty()) continue;
    ++upstream_delegated;
    EXPECT_EQ(event.delegate_debug_id_int, -1);
  }
  EXPECT_EQ(upstream_delegated, 6u);
  // etkit's trace of the same program: one event per node, its debug handle
  // as the int id, inside the DELEGATE_CALL's span.
  etdump::ETDumpGen gen;
  auto loaded = load_method("xnn_dbg.pte", &gen);
  at::manual_seed(12);
  run(*loaded->method, {at::randn({2, 8}), at::randn({2, 8})});
  const std::string path = test::write_temp("xnn_dbg_etkit.etdp", checked(gen.serialize(), "serialize"));
  auto ours = checked(etdump::ETDump::load_file(path), "our trace");
  const auto events = execute_block(ours);
  const auto call = std::find_if(events.begin(), events.end(),
                                 [](const auto& e) { return e.name == "DELEGATE_CALL"; });
  ASSERT_NE(call, events.end());
  std::vector<int32_t> ids;
  for (const auto& event : events) {
    if (event.delegate_debug_id_int == -1) continue;
    ids.push_back(event.delegate_debug_id_int);
    EXPECT_TRUE(event.delegate_debug_id_str.empty());
    EXPECT_FALSE(event.name.empty());
    EXPECT_EQ(event.instruction_id, call->instruction_id);
    EXPECT_GE(event.start_time, call->start_time);
    EXPECT_LE(event.end_time, call->end_time);
  }
  EXPECT_EQ(ids, (std::vector<int32_t>{101, 102, 103, 104, 105, 106}));
}

TEST(XnnpackBackend, DelegatedNodesLogTheirOutputsWithTheirDebugHandles) {
  std::vector<uint8_t> buffer(1 << 16);
  etdump::ETDumpGenOptions options;
  options.debug_level = etdump::DebugLevel::kIntermediateOutputs;
  options.debug_buffer = Span<uint8_t>(buffer.data(), buffer.size());
  etdump::ETDumpGen gen(options);
  auto loaded = load_method("xnn_dbg.pte", &gen);
  at::manual_seed(13);
  const at::Tensor x = at::randn({2, 8}), y = at::randn({2, 8});
  run(*loaded->method, {x, y});
  const std::string path = test::write_temp("xnn_dbg_values.etdp", checked(gen.serialize(), "serialize"));
  auto trace = checked(etdump::ETDump::load_file(path), "trace");
  std::vector<int32_t> ids;
  at::Tensor last;
  for (size_t b = 0; b < trace.block_count(); ++b) {
    const etdump::RunBlock block = trace.block(b);
    for (size_t e = 0; e < block.event_count(); ++e) {
      const etdump::EventView event = block.event(e);
      if (event.kind != etdump::EventKind::kDebug || event.debug.delegate_debug_id_int == -1) continue;
      ids.push_back(event.debug.delegate_debug_id_int);
      ASSERT_EQ(event.debug.tensors.size(), 1u);
      Tensor logged = checked(etdump::debug_tensor(event.debug.tensors[0], ByteSpan{buffer.data(), buffer.size()}),
                              "logged tensor");
      std::vector<int64_t> sizes(logged.sizes().begin(), logged.sizes().end());
      last = at::from_blob(logged.data(), sizes, at::kFloat).clone();
    }
  }
  EXPECT_EQ(ids, (std::vector<int32_t>{101, 102, 103, 104, 105, 106}));
  // The last node's output is the delegate's: hardswish of the linear layer.
  XnnGraph graph = checked(read_xnn_graph(loaded->program->inline_delegate_data(0), nullptr), "graph");
  const at::Tensor w = from_bytes(constant_of(graph, graph.nodes[4], 1), {4, 8});
  const at::Tensor b = from_bytes(constant_of(graph, graph.nodes[4], 2), {4});
  const at::Tensor a = x + y;
  const at::Tensor expected =
      at::hardswish(at::linear(at::clamp(at::sigmoid(a * y) - a, -0.5, 0.5), w, b));
  EXPECT_TRUE(at::allclose(last, expected, 1e-5, 1e-7));
}

}  // namespace
}  // namespace etkit::xnnpack
