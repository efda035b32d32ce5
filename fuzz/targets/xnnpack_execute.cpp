// Loads and executes XNNPACK delegate payloads with etkit's backend (Debian's
// XNNPACK, the portable fallback, etkit's dynamic quantization kernels):
// - an input that is a payload itself (XH00 header, or a bare XN01/XN00
//   graph: the seeds are the samples' and tests' payloads) runs as is;
// - any other input drives a generator of payloads (fuzz/xnn_graph_generator)
//   over every node kind and value kind the backend reads.
// Each payload runs through the backend, fused or node by node (as a traced
// run prepares it), or, for a quarter of the generated ones, as a program's
// delegate call, so the method's argument checks meet the backend's. Inputs hold the input's remaining
// bytes. A load or run may fail with an error; an out-of-bounds access,
// undefined behaviour or an abort is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "etkit/core/backend.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#include "fuzz_input.h"
#include "support/program_builder.h"
#include "xnn_graph_generator.h"

namespace {

using etkit::Tensor;
using etkit::Value;
namespace xnn = etkit::xnnpack;

constexpr size_t kMaxTensorBytes = 1u << 20;

etkit::xnnpack::XnnpackBackend& backend() {
  static auto* instance = new xnn::XnnpackBackend();  // never destroyed: XNNPACK stays initialized
  return *instance;
}

bool is_payload(const uint8_t* data, size_t size) {
  return size >= 8 && (std::memcmp(data + 4, "XH00", 4) == 0 || std::memcmp(data + 4, "XN01", 4) == 0 ||
                       std::memcmp(data + 4, "XN00", 4) == 0);
}

// Fills `bytes` from the input's remaining bytes (repeated), or zeros.
void fill(uint8_t* bytes, size_t size, const etkit::fuzz::Choices& in) {
  const size_t have = in.rest_size();
  for (size_t at = 0; at < size; at += have == 0 ? size : have) {
    if (have == 0) {
      std::memset(bytes, 0, size);
      break;
    }
    std::memcpy(bytes + at, in.rest(), std::min(have, size - at));
  }
}

// Runs the payload through the backend directly: one tensor per external
// value, in the graph's input then output order.
void run_direct(const std::vector<uint8_t>& payload, const xnn::XnnGraph& graph, bool per_node,
                const etkit::fuzz::Choices& in) {
  etkit::BackendInitContext context;
  context.kernels = &etkit::all_kernels();
  context.tracing = per_node;
  context.method_name = "forward";
  auto handle = backend().init(context, etkit::ByteSpan{payload.data(), payload.size()}, {});
  if (!handle.ok()) return;
  std::vector<std::vector<uint64_t>> storage;
  std::deque<Tensor> tensors;
  std::deque<Value> values;
  std::vector<Value*> args;
  std::vector<uint32_t> externals(graph.inputs.begin(), graph.inputs.end());
  externals.insert(externals.end(), graph.outputs.begin(), graph.outputs.end());
  for (uint32_t v : externals) {
    const xnn::GraphValue& value = graph.values[v];
    std::vector<int64_t> sizes(value.dims.begin(), value.dims.end());
    storage.emplace_back(value.byte_size() / 8 + 1);
    auto tensor = Tensor::make(xnn::buffer_scalar_type(value.datatype),
                               etkit::Span<const int64_t>(sizes.data(), sizes.size()), {}, storage.back().data(),
                               storage.back().size() * 8);
    if (!tensor.ok()) {
      backend().destroy(*handle);
      return;
    }
    fill(reinterpret_cast<uint8_t*>(storage.back().data()), value.byte_size(), in);
    tensors.push_back(*tensor);
    values.push_back(Value::from_tensor(&tensors.back()));
    args.push_back(&values.back());
  }
  etkit::BackendExecutionContext execution;
  for (int run = 0; run < 2; ++run) {  // a second run reuses every prepared buffer
    auto status = backend().execute(execution, *handle, etkit::Span<Value*>(args.data(), args.size()));
    (void)status;
  }
  backend().destroy(*handle);
}

// Runs the payload as a program's one delegate call, its external values
// planned in the method's arena.
void run_in_program(const std::vector<uint8_t>& payload, const xnn::XnnGraph& graph,
                    const etkit::fuzz::Choices& in) {
  etkit::test::ProgramBuilder builder;
  std::vector<int32_t> args, inputs, outputs;
  int64_t offset = 0;
  const auto planned = [&](uint32_t v) {
    const xnn::GraphValue& value = graph.values[v];
    std::vector<int32_t> sizes(value.dims.begin(), value.dims.end());
    const int32_t index = builder.tensor(sizes, offset, false, xnn::buffer_scalar_type(value.datatype));
    offset += int64_t((value.byte_size() + 15) / 16 * 16);
    return index;
  };
  for (uint32_t v : graph.inputs) inputs.push_back(planned(v));
  for (uint32_t v : graph.outputs) outputs.push_back(planned(v));
  args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  builder.delegate_call("XnnpackBackend", payload, args);
  builder.inputs(inputs);
  builder.outputs(outputs);
  builder.arena(std::max<int64_t>(offset, 1));
  auto program = builder.load();
  if (!program.ok()) return;
  etkit::BackendRegistry backends;
  backends.add("XnnpackBackend", &backend());
  etkit::MethodOptions options = etkit::fuzz::method_options();
  options.backends = &backends;
  auto method = etkit::Method::load(*program, "forward", options);
  if (!method.ok()) return;
  alignas(64) static uint8_t buffer[kMaxTensorBytes];
  for (size_t i = 0; i < (*method)->input_count(); ++i) {
    const Value& input = (*method)->input(i);
    if (!input.is_tensor()) continue;
    const Tensor& like = input.unchecked_tensor();
    if (like.nbytes() > sizeof buffer) return;
    fill(buffer, like.nbytes(), in);
    auto tensor = Tensor::make(like.scalar_type(), like.sizes(), {}, buffer, sizeof buffer);
    if (!tensor.ok()) return;
    (void)(*method)->set_input(i, *tensor);
  }
  (void)(*method)->execute();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  etkit::fuzz::Choices in(data, size);
  std::vector<uint8_t> payload;
  bool per_node = false, in_program = false;
  if (is_payload(data, size)) {
    payload.assign(data, data + size);
    per_node = (size & 1) != 0;
  } else {
    payload = etkit::fuzz::generate_xnn_payload(in);
    per_node = in.coin();
    in_program = in.pick(4) == 0;
  }
  if (const char* dump = std::getenv("ETKIT_FUZZ_DUMP_PAYLOAD")) {  // triage: the payload a finding ran
    if (FILE* out = std::fopen(dump, "wb")) {
      std::fwrite(payload.data(), 1, payload.size(), out);
      std::fclose(out);
    }
  }
  auto graph = xnn::read_xnn_graph(etkit::ByteSpan{payload.data(), payload.size()}, nullptr);
  if (!graph.ok()) return 0;
  size_t bytes = 0;
  for (const xnn::GraphValue& value : graph->values) bytes += value.byte_size();
  if (bytes > kMaxTensorBytes) return 0;  // keep every execution small and quick
  if (in_program) {
    run_in_program(payload, *graph, in);
  } else {
    run_direct(payload, *graph, per_node, in);
  }
  return 0;
}
