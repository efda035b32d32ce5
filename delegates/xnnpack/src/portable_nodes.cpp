#include "portable_nodes.h"

#include <cmath>

#include "etkit/delegates/xnnpack/xnn_support.h"

namespace etkit::xnnpack {
namespace {

struct Builder {
  const XnnGraph& graph;
  const GraphNode& node;
  uint32_t index;
  const std::vector<void*>& buffers;
  const KernelRegistry& kernels;
  PortableNode& out;

  Error fail(const char* what) const {
    return Error::make(ErrorCode::kUnsupported, "node %u (%s, debug handle %u): %s", index,
                       node_kind_name(node.kind), node.debug_handle, what);
  }

  // A view of `data` with `dims`, in the element type of `like`'s buffer:
  // a qint8 value is one byte an element, not a float.
  Result<Tensor*> tensor(const GraphValue& like, const std::vector<size_t>& dims, void* data) {
    std::vector<int64_t> sizes(dims.begin(), dims.end());
    const ScalarType type = buffer_scalar_type(like.datatype);
    size_t count = 1;
    for (size_t d : dims) count *= d;
    ETKIT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(type, Span<const int64_t>(sizes.data(), sizes.size()), {},
                                                  data, count * element_size(type)));
    out.tensors.push_back(t);
    return &out.tensors.back();
  }
  Result<Tensor*> value_tensor(uint32_t v) {
    const GraphValue& value = graph.values[v];
    void* data = value.constant.size > 0 ? const_cast<uint8_t*>(value.constant.data) : buffers[v];
    return tensor(value, value.dims, data);
  }
  Value* hold(Value value) {
    out.values.push_back(value);
    return &out.values.back();
  }
  Value* int_list(const std::vector<int64_t>& items) {
    out.int_lists.emplace_back();
    for (int64_t item : items) out.int_lists.back().push_back(hold(Value::from_int(item)));
    const auto& list = out.int_lists.back();
    return hold(Value::from_int_list(Span<Value* const>(list.data(), list.size())));
  }
  Status call(const char* name, std::vector<Value*> args) {
    const KernelEntry* kernel = kernels.find(name);
    if (kernel == nullptr) return fail((std::string("no portable kernel ") + name).c_str());
    out.calls.push_back({kernel, name, std::move(args)});
    return Ok{};
  }

  Status build();
  Status build_slice(Tensor* in, Tensor* result);
  Status build_bmm();
  Status build_clamp(Tensor* result);
};

Status Builder::build_slice(Tensor* in, Tensor* result) {
  const GraphValue& input = graph.values[node.inputs[0]];
  if (node.list_a.size() != input.dims.size() || node.list_b.size() != input.dims.size()) {
    return fail("slice offsets and sizes do not number one per input dim");
  }
  std::vector<size_t> sliced;
  for (size_t d = 0; d < input.dims.size(); ++d) {
    if (node.list_a[d] + node.list_b[d] > input.dims[d]) return fail("slice past the input");
    if (node.list_a[d] != 0 || node.list_b[d] != input.dims[d]) sliced.push_back(d);
  }
  if (sliced.empty() && !input.dims.empty()) sliced.push_back(0);
  std::vector<size_t> dims = input.dims;
  const size_t input_bytes = element_size(buffer_scalar_type(input.datatype));
  Tensor* current = in;
  for (size_t i = 0; i < sliced.size(); ++i) {
    const size_t d = sliced[i];
    dims[d] = node.list_b[d];
    Tensor* next = result;
    if (i + 1 < sliced.size()) {  // a temporary between two sliced dims
      size_t count = 1;
      for (size_t s : dims) count *= s;
      out.temporaries.emplace_back(new uint64_t[count * input_bytes / 8 + 1]);
      ETKIT_ASSIGN_OR_RETURN(next, tensor(input, dims, out.temporaries.back().get()));
    }
    Value* next_value = hold(Value::from_tensor(next));
    ETKIT_TRY(call("aten::slice_copy.Tensor_out",
                   {hold(Value::from_tensor(current)), hold(Value::from_int(int64_t(d))),
                    hold(Value::from_int(int64_t(node.list_a[d]))),
                    hold(Value::from_int(int64_t(node.list_a[d] + node.list_b[d]))),
                    hold(Value::from_int(1)), next_value,
                    next_value}));
    current = next;
  }
  return Ok{};
}

// XNNPACK's batch matmul takes [..., M, K] × [..., K, N]; bmm takes rank 3,
// so batch dimensions fold into one (the buffers are contiguous).
Status Builder::build_bmm() {
  if (node.flags != 0) return fail("batch matrix multiply flags are not supported");
  const auto folded = [](const std::vector<size_t>& dims) {
    size_t batch = 1;
    for (size_t d = 0; d + 2 < dims.size(); ++d) batch *= dims[d];
    return std::vector<size_t>{batch, dims[dims.size() - 2], dims[dims.size() - 1]};
  };
  const GraphValue& a = graph.values[node.inputs[0]];
  const GraphValue& b = graph.values[node.inputs[1]];
  const GraphValue& c = graph.values[node.outputs[0]];
  if (a.dims.size() < 3 || a.dims.size() != b.dims.size() || c.dims.size() != a.dims.size()) {
    return fail("batch matrix multiply needs operands of one rank, at least 3");
  }
  const auto data = [this](uint32_t v) {
    const GraphValue& value = graph.values[v];
    return value.constant.size > 0 ? const_cast<uint8_t*>(value.constant.data)
                                   : static_cast<uint8_t*>(buffers[v]);
  };
  ETKIT_ASSIGN_OR_RETURN(Tensor * ta, tensor(a, folded(a.dims), data(node.inputs[0])));
  ETKIT_ASSIGN_OR_RETURN(Tensor * tb, tensor(b, folded(b.dims), data(node.inputs[1])));
  ETKIT_ASSIGN_OR_RETURN(Tensor * tc, tensor(c, folded(c.dims), buffers[node.outputs[0]]));
  Value* result = hold(Value::from_tensor(tc));
  return call("aten::bmm.out",
              {hold(Value::from_tensor(ta)), hold(Value::from_tensor(tb)), result, result});
}

// The node's output range, applied in place after it.
Status Builder::build_clamp(Tensor* result) {
  const bool low = !(std::isinf(node.output_min) && node.output_min < 0);
  const bool high = !(std::isinf(node.output_max) && node.output_max > 0);
  if (!low && !high) return Ok{};
  Value* value = hold(Value::from_tensor(result));
  return call("aten::clamp.out",
              {value, hold(low ? Value::from_double(node.output_min) : Value()),
               hold(high ? Value::from_double(node.output_max) : Value()), value, value});
}

Status Builder::build() {
  using K = NodeKind;
  if (node.kind == K::kBatchMatrixMultiply) {
    ETKIT_TRY(build_bmm());
    return build_clamp(&out.tensors.back());
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * result, value_tensor(node.outputs[0]));
  Value* result_value = hold(Value::from_tensor(result));
  switch (node.kind) {
    case K::kStaticTranspose: {
      ETKIT_ASSIGN_OR_RETURN(Tensor * in, value_tensor(node.inputs[0]));
      std::vector<int64_t> perm(node.list_a.begin(), node.list_a.end());
      ETKIT_TRY(call(portable_kernel_of(node.kind), {hold(Value::from_tensor(in)), int_list(perm),
                                                     result_value, result_value}));
      break;
    }
    case K::kConcatenate2: case K::kConcatenate3: case K::kConcatenate4: case K::kConcatenate5: {
      out.tensor_lists.emplace_back();
      for (uint32_t v : node.inputs) {
        ETKIT_ASSIGN_OR_RETURN(Tensor * in, value_tensor(v));
        out.tensor_lists.back().push_back(in);
      }
      const auto& list = out.tensor_lists.back();
      ETKIT_TRY(call(portable_kernel_of(node.kind),
                     {hold(Value::from_tensor_list(Span<Tensor* const>(list.data(), list.size()),
                                                   false)),
                      hold(Value::from_int(node.axis)), result_value, result_value}));
      break;
    }
    case K::kStaticSlice: {
      ETKIT_ASSIGN_OR_RETURN(Tensor * in, value_tensor(node.inputs[0]));
      ETKIT_TRY(build_slice(in, result));
      break;
    }
    case K::kGelu: {
      ETKIT_ASSIGN_OR_RETURN(Tensor * in, value_tensor(node.inputs[0]));
      ETKIT_TRY(call(portable_kernel_of(node.kind),
                     {hold(Value::from_tensor(in)), hold(Value::from_string("none")), result_value,
                      result_value}));
      break;
    }
    default: {  // rsqrt, log, tanh, exp, sin: "TWW"
      ETKIT_ASSIGN_OR_RETURN(Tensor * in, value_tensor(node.inputs[0]));
      ETKIT_TRY(call(portable_kernel_of(node.kind),
                     {hold(Value::from_tensor(in)), result_value, result_value}));
      break;
    }
  }
  return build_clamp(result);
}

}  // namespace

Result<std::unique_ptr<PortableNode>> prepare_portable_node(const XnnGraph& graph, uint32_t index,
                                                            const std::vector<void*>& buffers,
                                                            const KernelRegistry& kernels) {
  auto prepared = std::make_unique<PortableNode>();
  Builder builder{graph, graph.nodes[index], index, buffers, kernels, *prepared};
  ETKIT_TRY(builder.build());
  return prepared;
}

Status run_portable_node(PortableNode& node, KernelContext& context) {
  for (PortableCall& call : node.calls) {
    context.op_name = call.kernel_name;
    ETKIT_TRY(call.kernel->function(context, Span<Value*>(call.args.data(), call.args.size())));
  }
  return Ok{};
}

}  // namespace etkit::xnnpack
