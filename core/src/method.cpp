#include "etkit/core/method.h"
#include "etkit/core/detail/flatbuffer_limits.h"

#include <cstdint>
#include <cstring>

#include "etkit/core/event_tracer.h"
#include "etkit/core/tensor_access.h"
#include "etkit/core/tensor_copy.h"
#include "bool_bytes.h"
#include "method_state.h"
#include "program_generated.h"

namespace etkit {
namespace fb = executorch_flatbuffer;
using detail::InstructionKind;
using detail::MethodState;
using detail::PreparedInstruction;

namespace detail {
MethodState::~MethodState() {
  for (LoadedDelegate& delegate : delegates) {
    delegate.backend->destroy(delegate.handle);
  }
}
}  // namespace detail

namespace {

using detail::length;

// Scoped profiling that costs one branch when no tracer is attached.
class ScopedEvent {
 public:
  ScopedEvent(EventTracer* tracer, const char* name, int32_t chain, int32_t instruction)
      : tracer_(tracer) {
    if (tracer_ != nullptr) {
      entry_ = tracer_->start_profiling(name, chain, instruction);
    }
  }
  ~ScopedEvent() {
    if (tracer_ != nullptr) {
      tracer_->end_profiling(entry_);
    }
  }
  ScopedEvent(const ScopedEvent&) = delete;
  ScopedEvent& operator=(const ScopedEvent&) = delete;

 private:
  EventTracer* tracer_;
  EventTracerEntry entry_;
};

bool tensor_truth(const Tensor& tensor) {
  const auto* bytes = static_cast<const uint8_t*>(tensor.data());
  const size_t size = tensor.element_size();
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    bool zero = true;
    for (size_t b = 0; b < size; ++b) {
      zero &= bytes[static_cast<size_t>(i) * size + b] == 0;
    }
    if (zero) {
      return false;
    }
  }
  return true;
}

// One logged value per out argument of the schema, in order (so a
// multi-output op such as max_pool2d_with_indices logs values, then
// indices), as upstream's runtime logs intermediate outputs.
void log_out_arguments(EventTracer& tracer, const PreparedInstruction& instruction) {
  for (size_t a = 0; a < instruction.args.size() && a < 64; ++a) {
    if ((instruction.out_args >> a) & 1u) {
      tracer.log_value(*instruction.args[a], LoggedValueKind::kIntermediateOutput,
                       instruction.chain, instruction.index, instruction.op_name);
    }
  }
}

Result<const fb::ExecutionPlan*> find_plan(const Program& program, const std::string& name) {
  const fb::Program& root = *program.flatbuffer();
  std::string available;
  for (size_t m = 0; m < length(root.execution_plan()); ++m) {
    const auto* candidate = root.execution_plan()->Get(m);
    if (candidate->name()->str() == name) return candidate;
    available += (available.empty() ? "" : ", ") + candidate->name()->str();
  }
  return Error::make(ErrorCode::kNotFound, "%s: no method '%s' (methods: %s)",
                     program.name().c_str(), name.c_str(), available.c_str());
}

// What set_input needs to know of each input: whether the caller's memory
// is borrowed (no planned memory of its own), whether its shape is static,
// and its byte bound.
void describe_inputs(MethodState& state) {
  for (int32_t input : state.inputs) {
    const Value& value = state.values[static_cast<size_t>(input)];
    state.input_borrowed.push_back(value.is_tensor() && value.unchecked_tensor().data() == nullptr);
    // Values were verified at program load: input indices are in range.
    const auto* tensor = state.plan->values()->Get(static_cast<flatbuffers::uoffset_t>(input))->val_as_Tensor();
    state.input_static.push_back(tensor != nullptr &&
                                 tensor->shape_dynamism() == executorch_flatbuffer::TensorShapeDynamism::STATIC);
    const bool unbound =
        tensor != nullptr && tensor->shape_dynamism() == executorch_flatbuffer::TensorShapeDynamism::DYNAMIC_UNBOUND;
    state.input_bound_bytes.push_back(unbound || !value.is_tensor() ? SIZE_MAX : value.unchecked_tensor().nbytes());
  }
}

}  // namespace

Method::Method() : state_(std::make_unique<MethodState>()) {}
Method::~Method() = default;

Result<std::unique_ptr<Method>> Method::load(const Program& program, const std::string& name,
                                             const MethodOptions& options) {
  ScopedEvent load_event(options.tracer, "Program::load_method", -1, 0);
  ETKIT_ASSIGN_OR_RETURN(const fb::ExecutionPlan* plan, find_plan(program, name));
  std::unique_ptr<Method> method(new Method());
  MethodState& state = *method->state_;
  state.name = name;
  state.plan = plan;
  state.tracer = options.tracer;
  state.memory_limit = options.memory_limit;
  if (plan->inputs()) {
    state.inputs.assign(plan->inputs()->begin(), plan->inputs()->end());
  }
  if (plan->outputs()) {
    state.outputs.assign(plan->outputs()->begin(), plan->outputs()->end());
  }
  {
    ScopedEvent init_event(options.tracer, "Method::init", -1, 0);
    // Missing kernels are reported before any planned memory is allocated.
    Status kernels = detail::check_kernels(*plan, options, name);
    if (!kernels.ok()) {
      return kernels.error().with_context("%s", program.name().c_str());
    }
    Status values = detail::load_values(program, options, state);
    if (!values.ok()) {
      return values.error().with_context("%s", program.name().c_str());
    }
    Status instructions = detail::load_instructions(program, options, state);
    if (!instructions.ok()) {
      return instructions.error().with_context("%s", program.name().c_str());
    }
    if (options.tracer != nullptr) {
      const int32_t allocator = options.tracer->track_allocator("planned_memory");
      for (size_t id = 1; id < state.arenas.size(); ++id) {
        options.tracer->track_allocation(allocator, state.arenas[id].size());
      }
    }
  }
  describe_inputs(state);
  return method;
}

const std::string& Method::name() const { return state_->name; }
size_t Method::input_count() const { return state_->inputs.size(); }
bool Method::input_is_static(size_t index) const {
  return index < state_->input_static.size() && state_->input_static[index];
}
size_t Method::output_count() const { return state_->outputs.size(); }
size_t Method::instruction_count() const { return state_->instruction_count; }
void Method::set_tracer(EventTracer* tracer) { state_->tracer = tracer; }

size_t Method::trace_events_per_execute(bool with_values) const {
  size_t events = 1 + (with_values ? state_->outputs.size() : 0);
  for (const auto& chain : state_->chains) {
    for (const PreparedInstruction& instruction : chain) {
      if (instruction.kind == InstructionKind::kDelegate) {
        const detail::LoadedDelegate& delegate = state_->delegates[instruction.delegate];
        events += 1 + delegate.backend->trace_events_per_execute(delegate.handle, with_values);
      }
      if (instruction.kind != InstructionKind::kKernel) continue;
      events += 2;
      if (with_values) events += size_t(__builtin_popcountll(instruction.out_args));
    }
  }
  return events;
}

const Value& Method::input(size_t index) const {
  return state_->values[static_cast<size_t>(state_->inputs[index])];
}
const Value& Method::output(size_t index) const {
  return state_->values[static_cast<size_t>(state_->outputs[index])];
}

namespace {

bool same_sizes(const Tensor& a, const Tensor& b) {
  return a.dim() == b.dim() &&
         std::memcmp(a.sizes().data(), b.sizes().data(), sizeof(int64_t) * static_cast<size_t>(a.dim())) == 0;
}

// What a tensor input must be before its bytes are taken: the program's
// dtype, bools that are 0 or 1, and a static input's own shape (upstream's
// runtime never resizes a static tensor: "Attempted to resize a static
// tensor"); dynamic-bound inputs take other shapes within their bound.
Status check_tensor_input(const detail::MethodState& state, size_t index, const Tensor& source,
                          const Tensor& target) {
  if (source.scalar_type() != target.scalar_type()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s': input %zu must be %s, got %s", state.name.c_str(),
                       index, to_string(target.scalar_type()),
                       to_string(source.scalar_type()));
  }
  if (source.scalar_type() == ScalarType::kBool && source.data() != nullptr) {
    const int64_t bad = detail::first_non_bool_byte(source.data(), source.nbytes());
    if (bad >= 0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "method '%s': input %zu: bool element %lld holds %u; bools are 0 or 1",
                         state.name.c_str(), index, static_cast<long long>(bad),
                         unsigned{static_cast<const uint8_t*>(source.data())[bad]});
    }
  }
  const bool same_shape = same_sizes(source, target);
  if (!same_shape && state.input_static[index]) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s': input %zu has a static shape %s; got %s",
                       state.name.c_str(), index, format_sizes(target.sizes()).c_str(),
                       format_sizes(source.sizes()).c_str());
  }
  return Ok{};
}

}  // namespace

Status Method::set_input(size_t index, const Tensor& source) {
  if (index >= state_->inputs.size()) {
    return Error::make(ErrorCode::kOutOfRange, "method '%s' has %zu inputs, not %zu",
                       state_->name.c_str(), state_->inputs.size(), index + 1);
  }
  Value& value = state_->values[static_cast<size_t>(state_->inputs[index])];
  if (!value.is_tensor()) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s': input %zu is %s, not a tensor", state_->name.c_str(),
                       index, to_string(value.tag()));
  }
  Tensor& target = value.unchecked_tensor();
  ETKIT_TRY(check_tensor_input(*state_, index, source, target));
  const bool same_shape = same_sizes(source, target);
  if (state_->input_borrowed[index]) {
    // No planned memory (upstream's LLM export leaves its token input so):
    // borrow the caller's buffer; a dynamic input takes its sizes too,
    // within the declared upper bound.
    if (!same_shape) {
      target.set_data(target.data(), state_->input_bound_bytes[index]);
      Status resized = target.resize(source.sizes());
      if (!resized.ok()) {
        return resized.error().with_context("method '%s': input %zu", state_->name.c_str(), index);
      }
    }
    target.set_data(source.data(), source.nbytes());
    return Ok{};
  }
  if (!same_shape) {
    Status resized = target.resize(source.sizes());
    if (!resized.ok()) {
      return resized.error().with_context("method '%s': input %zu", state_->name.c_str(),
                                          index);
    }
  }
  if (source.dim_order().size() == target.dim_order().size() &&
      std::memcmp(source.dim_order().data(), target.dim_order().data(),
                  target.dim_order().size()) != 0) {
    // Same values, another memory layout (a C-order .npy for a
    // channels-last input): copied element by element into the program's.
    copy_logical_order(source, target);
    return Ok{};
  }
  if (source.nbytes() > 0) {
    std::memcpy(target.data(), source.data(), source.nbytes());
  }
  return Ok{};
}

Status Method::set_input(size_t index, const Value& scalar) {
  if (index >= state_->inputs.size()) {
    return Error::make(ErrorCode::kOutOfRange, "method '%s' has %zu inputs, not %zu",
                       state_->name.c_str(), state_->inputs.size(), index + 1);
  }
  Value& value = state_->values[static_cast<size_t>(state_->inputs[index])];
  if (value.tag() != scalar.tag()) {
    return Error::make(ErrorCode::kInvalidArgument, "method '%s': input %zu is %s, got %s",
                       state_->name.c_str(), index, to_string(value.tag()),
                       to_string(scalar.tag()));
  }
  value = scalar;
  return Ok{};
}

namespace {

// Runs one instruction; sets `next` to the index of the instruction to run
// after it (jumps change it).
Status execute_instruction(MethodState& state, const PreparedInstruction& instruction, bool log_intermediates,
                           size_t& next) {
  EventTracer* tracer = state.tracer;
  switch (instruction.kind) {
    case InstructionKind::kKernel: {
      Status status = Ok{};
      {
        ScopedEvent call(tracer, "OPERATOR_CALL", instruction.chain, instruction.index);
        ScopedEvent kernel(tracer, instruction.event_name, instruction.chain, instruction.index);
        KernelContext context{instruction.op_name, state.scratch, state.parallel, state.worker_scratch};
        status = instruction.staging < 0
                     ? instruction.kernel(context, instruction.args)
                     : run_staged(instruction.kernel, context, state.stagings[size_t(instruction.staging)]);
        // Inside the kernel's event, as upstream's generated kernel
        // wrappers log: the values come before the profile events.
        if (log_intermediates && status.ok()) log_out_arguments(*tracer, instruction);
      }
      if (!status.ok()) {
        // Kernel errors already start with their operator's name.
        return status.error().with_context("method '%s': chain %d instruction %d", state.name.c_str(),
                                           instruction.chain, instruction.index);
      }
      return Ok{};
    }
    case InstructionKind::kDelegate: {
      detail::LoadedDelegate& delegate = state.delegates[instruction.delegate];
      BackendExecutionContext context{tracer};
      Status status = Ok{};
      {
        ScopedEvent call(tracer, "DELEGATE_CALL", instruction.chain, instruction.index);
        status = delegate.backend->execute(context, delegate.handle, instruction.args);
      }
      if (!status.ok()) {
        return status.error().with_context("method '%s': chain %d instruction %d (delegate %s)", state.name.c_str(),
                                           instruction.chain, instruction.index, delegate.id.c_str());
      }
      return Ok{};
    }
    case InstructionKind::kMove:
      state.values[static_cast<size_t>(instruction.b)] = state.values[static_cast<size_t>(instruction.a)];
      return Ok{};
    case InstructionKind::kJumpFalse: {
      const Value& cond = state.values[static_cast<size_t>(instruction.a)];
      const bool truth = cond.is_tensor() ? tensor_truth(cond.unchecked_tensor()) : cond.unchecked_bool();
      if (!truth) next = static_cast<size_t>(instruction.b);
      return Ok{};
    }
    case InstructionKind::kFree:
      return Ok{};  // planned memory is reused by plan, nothing to release
  }
  return Ok{};
}

}  // namespace

void Method::reset_state() {
  MethodState& state = *state_;
  for (size_t id = 1; id < state.arenas.size(); ++id) {
    if (state.arenas[id].data() != nullptr) std::memset(state.arenas[id].data(), 0, state.arenas[id].size());
  }
  for (const auto& [index, initial] : state.initial_states) {
    std::memcpy(state.values[index].unchecked_tensor().data(), initial.data, initial.size);
  }
}

Status Method::copy_state_from(const Method& other) {
  MethodState& state = *state_;
  const MethodState& from = *other.state_;
  bool same_plan = state.name == from.name && state.arenas.size() == from.arenas.size();
  for (size_t id = 1; same_plan && id < state.arenas.size(); ++id) {
    same_plan = state.arenas[id].size() == from.arenas[id].size();
  }
  if (!same_plan) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "method '%s': cannot take the state of method '%s', whose memory is planned otherwise",
                       state.name.c_str(), from.name.c_str());
  }
  for (size_t id = 1; id < state.arenas.size(); ++id) {
    uint8_t* to = state.arenas[id].data();
    const uint8_t* source = from.arenas[id].data();
    if (to != nullptr && source != nullptr && to != source) {
      std::memcpy(to, source, state.arenas[id].size());
    }
  }
  return Ok{};
}

std::vector<size_t> Method::initial_state_values() const {
  std::vector<size_t> indices;
  for (const auto& entry : state_->initial_states) indices.push_back(entry.first);
  return indices;
}

Status Method::execute() {
  MethodState& state = *state_;
  // An input without planned memory holds the caller's data once set; run
  // before that, a kernel would read through a null pointer.
  for (size_t i = 0; i < state.inputs.size(); ++i) {
    const Value& input = state.values[static_cast<size_t>(state.inputs[i])];
    if (state.input_borrowed[i] && input.unchecked_tensor().data() == nullptr && input.unchecked_tensor().numel() > 0) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "method '%s': input %zu has no planned memory and was not set (set_input before execute)",
                         state.name.c_str(), i);
    }
  }
  EventTracer* tracer = state.tracer;
  if (tracer != nullptr) tracer->create_event_block("Execute");
  const bool log_intermediates = tracer != nullptr && tracer->wants_values(LoggedValueKind::kIntermediateOutput);
  {
    // Chain -1, instruction 0: as upstream records it (corpus tutorial trace).
    ScopedEvent execute_event(tracer, "Method::execute", -1, 0);
    for (auto& chain : state.chains) {
      for (size_t pc = 0; pc < chain.size();) {
        const PreparedInstruction& instruction = chain[pc];
        if (tracer != nullptr) {
          tracer->current_chain_id = instruction.chain;
          tracer->current_instruction_id = instruction.index;
        }
        size_t next = pc + 1;
        ETKIT_TRY(execute_instruction(state, instruction, log_intermediates, next));
        pc = next;
      }
    }
  }
  if (tracer != nullptr && tracer->wants_values(LoggedValueKind::kProgramOutput)) {
    for (int32_t output : state.outputs) {
      // Chain -1, instruction 0: where upstream's runtime logs outputs.
      tracer->log_value(state.values[static_cast<size_t>(output)], LoggedValueKind::kProgramOutput, -1, 0,
                        "output");
    }
  }
  return Ok{};
}

}  // namespace etkit
