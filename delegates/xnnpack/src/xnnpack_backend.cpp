#include "etkit/delegates/xnnpack/xnnpack_backend.h"

#include <algorithm>
#include <xnnpack.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>

#include "etkit/core/event_tracer.h"
#include "etkit/core/kernel_registry.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"
#include "dynamic_quant_nodes.h"
#include "execution_plan.h"
#include "portable_nodes.h"
#include "subgraph_builder.h"

namespace etkit::xnnpack {

struct XnnpackBackend::State {
  XnnpackOptions options;
  bool initialized = false;
  pthreadpool_t threadpool = nullptr;
  bool owns_threadpool = false;
};

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<uint8_t, FreeDeleter>;

// aligned_alloc wants a multiple of the alignment, and at least one block.
size_t rounded_to_blocks(size_t bytes) { return std::max<size_t>(64, (bytes + 63) / 64 * 64); }

AlignedBytes aligned_uninitialized(size_t bytes) {
  return AlignedBytes(static_cast<uint8_t*>(std::aligned_alloc(64, rounded_to_blocks(bytes))));
}

AlignedBytes aligned_zeroed(size_t bytes) {
  AlignedBytes memory = aligned_uninitialized(bytes);
  if (memory) std::memset(memory.get(), 0, rounded_to_blocks(bytes));
  return memory;
}

// Traced events carry this so a reader knows the times come from a
// node-by-node run, not the fused one an untraced run uses.
constexpr char kPerNodeMetadata[] = "etkit xnnpack: node by node";
constexpr char kPortableMetadata[] = "etkit xnnpack: node by node, portable kernel";
constexpr char kDynamicQuantMetadata[] = "etkit xnnpack: node by node, etkit dynamic quantization kernel";

struct Step {
  PlanStep plan;
  xnn_runtime_t runtime = nullptr;
  std::unique_ptr<PortableNode> portable;
  std::unique_ptr<DynamicQuantNode> dynamic;
  std::string name;           // event name, traced plans only
  int32_t debug_handle = -1;  // traced plans only
};

struct Delegate {
  XnnGraph graph;
  bool per_node = false;
  std::vector<Step> steps;
  std::vector<AlignedBytes> owned;
  std::vector<void*> buffers;  // by value index; null for values XNNPACK keeps inside
  std::deque<Tensor> tensors;  // views of the buffers, for logging values
  std::vector<Value> values;   // by value index
  AlignedBytes scratch;        // for portable kernels
  RowParamsTable row_params;   // by value index: qdint8 rows' scales and zero points
  pthreadpool_t threadpool = nullptr;  // the backend's, for etkit's dynamic-quantization nodes
  size_t outputs_per_run = 0;
  /// Nonzero when every step is a row-wise dynamic-quantization node over
  /// this many rows (tokens) and every external value is rows x its last
  /// dim: then a call may bring fewer rows (see rows_of_call).
  size_t row_bound = 0;

  ~Delegate() {
    for (Step& step : steps) {
      if (step.runtime != nullptr) xnn_delete_runtime(step.runtime);
    }
  }
};

Status allocate_buffers(Delegate& d, const std::vector<uint8_t>& boundary) {
  d.buffers.assign(d.graph.values.size(), nullptr);
  d.values.assign(d.graph.values.size(), Value());
  for (size_t v = 0; v < boundary.size(); ++v) {
    if (!boundary[v]) continue;
    const GraphValue& value = d.graph.values[v];
    // XNNPACK may read XNN_EXTRA_BYTES past its inputs' ends.
    d.owned.push_back(aligned_zeroed(value.byte_size() + XNN_EXTRA_BYTES));
    if (!d.owned.back()) {
      return Error::make(ErrorCode::kOutOfMemory, "value %zu: %zu bytes", v, value.byte_size());
    }
    d.buffers[v] = d.owned.back().get();
    std::vector<int64_t> sizes(value.dims.begin(), value.dims.end());
    ETKIT_ASSIGN_OR_RETURN(Tensor tensor,
                           Tensor::make(buffer_scalar_type(value.datatype),
                                        Span<const int64_t>(sizes.data(), sizes.size()), {},
                                        d.buffers[v], value.byte_size()));
    d.tensors.push_back(tensor);
    d.values[v] = Value::from_tensor(&d.tensors.back());
  }
  return Ok{};
}

// Event names: the operator's name and " #k", counted per name as
// XNNPACK's own profiler numbers its operators.
void name_steps(Delegate& d) {
  std::map<std::string, int> seen;
  for (Step& step : d.steps) {
    const GraphNode& node = d.graph.nodes[step.plan.nodes.front()];
    const std::string base = operator_name(d.graph, node);
    step.name = base + " #" + std::to_string(++seen[base]);
    step.debug_handle = static_cast<int32_t>(node.debug_handle);
    for (uint32_t n : step.plan.nodes) {
      for (uint32_t v : d.graph.nodes[n].outputs) d.outputs_per_run += d.buffers[v] != nullptr;
    }
  }
}

std::string describe(const Delegate& d, const BackendInitContext& context) {
  size_t runtimes = 0, portable = 0, dynamic = 0;
  std::map<std::string, int> fallbacks;
  for (const Step& step : d.steps) {
    if (step.plan.runner == NodeRunner::kXnnpack) {
      ++runtimes;
    } else if (step.plan.runner == NodeRunner::kDynamicQuant) {
      ++dynamic;
    } else {
      portable += step.plan.nodes.size();
      for (uint32_t n : step.plan.nodes) ++fallbacks[node_kind_name(d.graph.nodes[n].kind)];
    }
  }
  std::string line = std::string("XnnpackBackend: method '") + context.method_name + "': " +
                     std::to_string(d.graph.nodes.size()) + " nodes, " +
                     std::to_string(d.graph.nodes.size() - portable - dynamic) + " on XNNPACK in " +
                     std::to_string(runtimes) + (runtimes == 1 ? " runtime" : " runtimes") +
                     (d.per_node ? " (node by node, traced)" : "");
  if (dynamic > 0) {
    line += ", " + std::to_string(dynamic) + " on etkit's dynamic quantization kernels (qd8)";
  }
  if (portable > 0) {
    line += ", " + std::to_string(portable) + " on portable kernels (this XNNPACK lacks them):";
    for (const auto& [kind, count] : fallbacks) line += " " + kind + "×" + std::to_string(count);
  }
  return line;
}

Status check_arg(const Value* arg, const GraphValue& value, size_t index) {
  if (arg == nullptr || !arg->is_tensor()) {
    return Error::make(ErrorCode::kInvalidArgument, "argument %zu is not a tensor", index);
  }
  const Tensor& tensor = arg->unchecked_tensor();
  if (tensor.scalar_type() != buffer_scalar_type(value.datatype) || tensor.nbytes() != value.byte_size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "argument %zu: %s tensor of %zu bytes, the payload expects %s of %zu",
                       index, to_string(tensor.scalar_type()), tensor.nbytes(),
                       to_string(buffer_scalar_type(value.datatype)), value.byte_size());
  }
  return Ok{};
}

Status run_step(Step& step, Delegate& d) {
  if (step.runtime != nullptr) {
    const xnn_status status = xnn_invoke_runtime(step.runtime);
    if (status == xnn_status_success) return Ok{};
    const GraphNode& node = d.graph.nodes[step.plan.nodes.front()];
    return Error::make(ErrorCode::kInternal, "XNNPACK failed (status %d) at node %u (%s)",
                       static_cast<int>(status), step.plan.nodes.front(),
                       node_kind_name(node.kind));
  }
  if (step.dynamic) {
    run_dynamic_quant_node(*step.dynamic, d.threadpool);
    return Ok{};
  }
  KernelContext kernel_context;
  kernel_context.scratch = Span<uint8_t>(d.scratch.get(), kKernelScratchBytes);
  return run_portable_node(*step.portable, kernel_context);
}

// Arguments of exactly the payload's sizes; inputs copied in.
Status check_and_copy_in(Delegate& d, Span<Value*> args) {
  const size_t inputs = d.graph.inputs.size();
  for (size_t o = 0; o < d.graph.outputs.size(); ++o) {
    ETKIT_TRY(check_arg(args[inputs + o], d.graph.values[d.graph.outputs[o]], inputs + o));
  }
  for (size_t i = 0; i < inputs; ++i) {
    const uint32_t v = d.graph.inputs[i];
    ETKIT_TRY(check_arg(args[i], d.graph.values[v], i));
    std::memcpy(d.buffers[v], args[i]->unchecked_tensor().data(), d.graph.values[v].byte_size());
  }
  return Ok{};
}

// The row bound of a delegate whose rows may vary, else 0. Upstream's LLM
// export with a dynamic sequence length lowers its 8da4w linears with the
// bound's shapes, and upstream's runtime reshapes them to each call's token
// count; etkit's dynamic-quantization kernels treat rows independently, so a
// delegate made only of them runs any row count up to the bound.
size_t row_bound_of(const Delegate& d) {
  size_t rows = 0;
  for (const Step& step : d.steps) {
    if (!step.dynamic || (rows != 0 && step.dynamic->rows != rows)) return 0;
    rows = step.dynamic->rows;
  }
  for (const std::vector<uint32_t>* list : {&d.graph.inputs, &d.graph.outputs}) {
    for (uint32_t v : *list) {
      const GraphValue& value = d.graph.values[v];
      // An empty last dim holds no rows to count: such a payload keeps its shapes.
      if (value.dims.empty() || value.dims.back() == 0 || value.element_count() != rows * value.dims.back()) return 0;
    }
  }
  return rows;
}

// The rows a call brings: every input (of the payload's rank and last dim)
// must bring the same number, at most the bound.
Result<size_t> rows_of_call(const Delegate& d, Span<Value*> args) {
  size_t rows = 0;
  for (size_t i = 0; i < d.graph.inputs.size(); ++i) {
    const GraphValue& value = d.graph.values[d.graph.inputs[i]];
    if (args[i] == nullptr || !args[i]->is_tensor()) {
      return Error::make(ErrorCode::kInvalidArgument, "argument %zu is not a tensor", i);
    }
    const Tensor& t = args[i]->unchecked_tensor();
    const size_t width = value.dims.empty() ? 0 : value.dims.back();
    const size_t given = t.dim() == 0 ? 0 : size_t(t.size(t.dim() - 1));
    if (width == 0 || t.scalar_type() != buffer_scalar_type(value.datatype) || size_t(t.dim()) != value.dims.size() ||
        given != width || size_t(t.numel()) > d.row_bound * width || (i > 0 && size_t(t.numel()) / width != rows)) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "argument %zu: %s tensor of %zu elements; the payload takes up to %zu rows of %zu %s "
                         "(its inputs sharing one row count)",
                         i, to_string(t.scalar_type()), size_t(t.numel()), d.row_bound, width,
                         to_string(buffer_scalar_type(value.datatype)));
    }
    rows = size_t(t.numel()) / width;
  }
  return rows;
}

// A call's rows in: every step set to run over them.
Status rows_in(Delegate& d, Span<Value*> args) {
  ETKIT_ASSIGN_OR_RETURN(const size_t rows, rows_of_call(d, args));
  for (Step& step : d.steps) step.dynamic->rows = rows;
  for (size_t i = 0; i < d.graph.inputs.size(); ++i) {
    const Tensor& t = args[i]->unchecked_tensor();
    std::memcpy(d.buffers[d.graph.inputs[i]], t.data(), t.nbytes());
  }
  return Ok{};
}

// Outputs resized to the first input's leading dims and copied out.
Status rows_out(Delegate& d, Span<Value*> args) {
  const size_t inputs = d.graph.inputs.size(), rows = d.steps.front().dynamic->rows;
  const Tensor& first = args[0]->unchecked_tensor();
  for (size_t o = 0; o < d.graph.outputs.size(); ++o) {
    const GraphValue& value = d.graph.values[d.graph.outputs[o]];
    Value* arg = args[inputs + o];
    if (arg == nullptr || !arg->is_tensor() || arg->unchecked_tensor().scalar_type() != buffer_scalar_type(value.datatype)) {
      return Error::make(ErrorCode::kInvalidArgument, "argument %zu is not a %s tensor", inputs + o,
                         to_string(buffer_scalar_type(value.datatype)));
    }
    Tensor& out = arg->unchecked_tensor();
    int64_t sizes[kMaxRank];
    const size_t rank = value.dims.size();
    if (rank > kMaxRank || first.dim() < 1) {
      return Error::make(ErrorCode::kInvalidArgument, "argument %zu: rank %zu", inputs + o, rank);
    }
    // Leading dims as the first input's (its row dims), the last as the payload's.
    for (size_t r = 0; r + 1 < rank; ++r) {
      const int64_t offset = int64_t(first.dim()) - int64_t(rank) + int64_t(r);
      sizes[r] = offset >= 0 ? first.size(offset) : 1;
    }
    sizes[rank - 1] = int64_t(value.dims.back());
    ETKIT_TRY(out.resize(Span<const int64_t>(sizes, rank)));
    if (size_t(out.numel()) != rows * value.dims.back()) {
      return Error::make(ErrorCode::kInvalidArgument, "argument %zu: %zu rows do not make its shape", inputs + o,
                         rows);
    }
    std::memcpy(out.data(), d.buffers[d.graph.outputs[o]], out.nbytes());
  }
  return Ok{};
}

}  // namespace

XnnpackBackend::XnnpackBackend(XnnpackOptions options) : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->initialized = xnn_initialize(nullptr) == xnn_status_success;
  if (options.threadpool != nullptr) {
    state_->threadpool = static_cast<pthreadpool_t>(options.threadpool);
  } else if (state_->initialized && options.threads != 1) {
    state_->threadpool = pthreadpool_create(options.threads <= 0 ? 0 : size_t(options.threads));
    state_->owns_threadpool = true;
  }
}

XnnpackBackend::~XnnpackBackend() {
  if (state_->owns_threadpool) pthreadpool_destroy(state_->threadpool);
}

bool XnnpackBackend::is_available() const { return state_->initialized; }

Result<void*> XnnpackBackend::init(const BackendInitContext& context, ByteSpan processed,
                                   Span<const CompileSpec> specs) {
  (void)specs;
  auto delegate = std::make_unique<Delegate>();
  Delegate& d = *delegate;
  ETKIT_ASSIGN_OR_RETURN(d.graph, read_xnn_graph(processed, [&context](const std::string& key) {
                           return find_named_data(context, key);
                         }));
  const std::string reason = unsupported_reason(d.graph);
  if (!reason.empty()) return Error::make(ErrorCode::kUnsupported, "%s", reason.c_str());
  d.per_node = context.tracing;
  d.threadpool = state_->threadpool;
  const std::vector<PlanStep> plan = plan_steps(d.graph, d.per_node);
  const std::vector<uint8_t> boundary = boundary_values(d.graph, plan);
  ETKIT_TRY(allocate_buffers(d, boundary));
  d.row_params.resize(d.graph.values.size());
  for (const PlanStep& planned : plan) {
    Step& step = d.steps.emplace_back();
    step.plan = planned;
    if (planned.runner == NodeRunner::kXnnpack) {
      ETKIT_ASSIGN_OR_RETURN(step.runtime, create_step_runtime(d.graph, planned, boundary,
                                                               d.buffers, state_->threadpool));
      continue;
    }
    if (planned.runner == NodeRunner::kDynamicQuant) {
      ETKIT_ASSIGN_OR_RETURN(step.dynamic,
                             prepare_dynamic_quant_node(d.graph, planned.nodes.front(), d.buffers, d.row_params,
                                                        d.threadpool == nullptr ? 1
                                                                                : pthreadpool_get_threads_count(d.threadpool)));
      continue;
    }
    ETKIT_ASSIGN_OR_RETURN(step.portable, prepare_portable_node(d.graph, planned.nodes.front(),
                                                                d.buffers, *context.kernels));
    // Not zeroed, as the method's own scratch: kernels write before they
    // read, and zeroing 4 MiB per delegate touched every page at load.
    if (!d.scratch) d.scratch = aligned_uninitialized(kKernelScratchBytes);
  }
  if (d.per_node) name_steps(d);
  d.row_bound = row_bound_of(d);
  if (state_->options.log != nullptr) state_->options.log(describe(d, context));
  return static_cast<void*>(delegate.release());
}

Status XnnpackBackend::execute(BackendExecutionContext& context, void* handle,
                               Span<Value*> args) {
  Delegate& d = *static_cast<Delegate*>(handle);
  const size_t inputs = d.graph.inputs.size();
  if (args.size() != inputs + d.graph.outputs.size()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "XNNPACK delegate takes %zu inputs and %zu outputs, got %zu arguments",
                       inputs, d.graph.outputs.size(), args.size());
  }
  if (d.row_bound != 0) {
    ETKIT_TRY(rows_in(d, args));
  } else {
    ETKIT_TRY(check_and_copy_in(d, args));
  }
  EventTracer* tracer = d.per_node ? context.tracer : nullptr;
  const bool log_values =
      tracer != nullptr && tracer->wants_values(LoggedValueKind::kIntermediateOutput);
  for (Step& step : d.steps) {
    if (tracer == nullptr) {
      ETKIT_TRY(run_step(step, d));
      continue;
    }
    EventTracerEntry entry = tracer->start_profiling_delegate(step.name.c_str(), step.debug_handle);
    Status status = run_step(step, d);
    const char* metadata =
        step.portable ? kPortableMetadata : (step.dynamic ? kDynamicQuantMetadata : kPerNodeMetadata);
    tracer->end_profiling_delegate(
        entry, ByteSpan{reinterpret_cast<const uint8_t*>(metadata), std::strlen(metadata)});
    ETKIT_TRY(status);
    if (!log_values) continue;
    // Each node's outputs with its own debug handle; a value XNNPACK keeps
    // inside a fused step (a convolution's, before its clamp) has no buffer.
    for (uint32_t n : step.plan.nodes) {
      const GraphNode& node = d.graph.nodes[n];
      for (uint32_t v : node.outputs) {
        if (d.buffers[v] != nullptr) tracer->log_delegate_value(d.values[v], int32_t(node.debug_handle));
      }
    }
  }
  if (d.row_bound != 0) return rows_out(d, args);
  for (size_t o = 0; o < d.graph.outputs.size(); ++o) {
    const uint32_t v = d.graph.outputs[o];
    std::memcpy(args[inputs + o]->unchecked_tensor().data(), d.buffers[v],
                d.graph.values[v].byte_size());
  }
  return Ok{};
}

void XnnpackBackend::destroy(void* handle) { delete static_cast<Delegate*>(handle); }

size_t XnnpackBackend::trace_events_per_execute(void* handle, bool with_values) const {
  const Delegate& d = *static_cast<const Delegate*>(handle);
  if (!d.per_node) return 0;
  return d.steps.size() + (with_values ? d.outputs_per_run : 0);
}

}  // namespace etkit::xnnpack
