#include "etkit/core/program_summary.h"
#include "etkit/core/detail/flatbuffer_limits.h"

#include <cstdio>

#include "etkit/core/checked_size.h"
#include "etkit/core/program.h"
#include "program_generated.h"

namespace etkit {
namespace fb = executorch_flatbuffer;
namespace {

using detail::length;

const char* dynamism_name(fb::TensorShapeDynamism dynamism) {
  switch (dynamism) {
    case fb::TensorShapeDynamism::DYNAMIC_BOUND: return "dynamic_bound";
    case fb::TensorShapeDynamism::DYNAMIC_UNBOUND: return "dynamic_unbound";
    default: return "static";
  }
}

TensorShape shape_of(const fb::Tensor& tensor) {
  TensorShape shape;
  shape.scalar_type = static_cast<ScalarType>(tensor.scalar_type());
  if (tensor.sizes()) {
    shape.sizes.assign(tensor.sizes()->begin(), tensor.sizes()->end());
  }
  if (tensor.dim_order()) {
    shape.dim_order.assign(tensor.dim_order()->begin(), tensor.dim_order()->end());
  }
  shape.dynamism = dynamism_name(tensor.shape_dynamism());
  return shape;
}

std::string kind_name(fb::KernelTypes type) {
  switch (type) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null: return "none";
    case fb::KernelTypes::Int: return "int";
    case fb::KernelTypes::Bool: return "bool";
    case fb::KernelTypes::Double: return "double";
    case fb::KernelTypes::Tensor: return "tensor";
    case fb::KernelTypes::String: return "string";
    case fb::KernelTypes::IntList: return "int_list";
    case fb::KernelTypes::DoubleList: return "double_list";
    case fb::KernelTypes::BoolList: return "bool_list";
    case fb::KernelTypes::TensorList: return "tensor_list";
    case fb::KernelTypes::OptionalTensorList: return "optional_tensor_list";
  }
  return "unknown";
}

// An argument, and the items of a tensor list argument.
void add_argument(const fb::ExecutionPlan& plan, int32_t index, std::vector<int32_t>& out) {
  out.push_back(index);
  const fb::EValue* value = plan.values()->Get(uint32_t(index));
  const flatbuffers::Vector<int32_t>* items = nullptr;
  if (value->val_type() == fb::KernelTypes::TensorList) items = value->val_as_TensorList()->items();
  if (value->val_type() == fb::KernelTypes::OptionalTensorList) items = value->val_as_OptionalTensorList()->items();
  for (size_t i = 0; i < length(items); ++i) out.push_back(items->Get(uint32_t(i)));
}

// The values an instruction references (verified indices).
std::vector<int32_t> references_of(const fb::ExecutionPlan& plan, const fb::Instruction& instruction) {
  std::vector<int32_t> out;
  const flatbuffers::Vector<int32_t>* args = nullptr;
  switch (instruction.instr_args_type()) {
    case fb::InstructionArguments::KernelCall: args = instruction.instr_args_as_KernelCall()->args(); break;
    case fb::InstructionArguments::DelegateCall: args = instruction.instr_args_as_DelegateCall()->args(); break;
    case fb::InstructionArguments::MoveCall:
      out = {instruction.instr_args_as_MoveCall()->move_from(), instruction.instr_args_as_MoveCall()->move_to()};
      break;
    case fb::InstructionArguments::JumpFalseCall:
      out = {instruction.instr_args_as_JumpFalseCall()->cond_value_index()};
      break;
    case fb::InstructionArguments::FreeCall: out = {instruction.instr_args_as_FreeCall()->value_index()}; break;
    default: break;
  }
  for (size_t a = 0; a < length(args); ++a) add_argument(plan, args->Get(uint32_t(a)), out);
  return out;
}

// Tensor values with allocation info.
std::vector<PlannedTensorSummary> planned_tensors(const fb::ExecutionPlan& plan) {
  std::vector<PlannedTensorSummary> out;
  for (size_t v = 0; v < length(plan.values()); ++v) {
    const fb::EValue* value = plan.values()->Get(uint32_t(v));
    if (value->val_type() != fb::KernelTypes::Tensor) continue;
    const fb::Tensor& tensor = *value->val_as_Tensor();
    const fb::AllocationDetails* info = tensor.allocation_info();
    if (info == nullptr) continue;
    PlannedTensorSummary planned;
    planned.value = int32_t(v);
    planned.arena = info->memory_id();
    planned.offset = uint64_t(info->memory_offset_high()) << 32 | info->memory_offset_low();
    planned.tensor = shape_of(tensor);
    const fb::ExtraTensorInfo* extra = tensor.extra_tensor_info();
    planned.initial_state = tensor.data_buffer_idx() > 0 ||
                            (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL);
    // Verified at load: sizes are non-negative and within the limits.
    auto bytes = checked_nbytes(Span<const int64_t>(planned.tensor.sizes.data(), planned.tensor.sizes.size()),
                                element_size(planned.tensor.scalar_type));
    planned.bytes = bytes.ok() ? *bytes : 0;
    out.push_back(std::move(planned));
  }
  return out;
}

ValueSummary summarize_value(const fb::ExecutionPlan& plan, int32_t index) {
  const fb::EValue* value = plan.values()->Get(static_cast<uint32_t>(index));
  ValueSummary summary;
  summary.index = index;
  summary.kind = kind_name(value->val_type());
  char text[64] = {};
  switch (value->val_type()) {
    case fb::KernelTypes::Tensor:
      summary.tensor = shape_of(*value->val_as_Tensor());
      break;
    case fb::KernelTypes::Int:
      std::snprintf(text, sizeof(text), "%lld",
                    static_cast<long long>(value->val_as_Int()->int_val()));
      break;
    case fb::KernelTypes::Double:
      std::snprintf(text, sizeof(text), "%.17g",
                    value->val_as_Double()->double_val());
      break;
    case fb::KernelTypes::Bool:
      std::snprintf(text, sizeof(text), "%s",
                    value->val_as_Bool()->bool_val() ? "true" : "false");
      break;
    case fb::KernelTypes::String:
      if (const auto* s = value->val_as_String()->string_val()) {
        summary.text = s->str();
      }
      break;
    default:
      break;
  }
  if (text[0] != '\0') {
    summary.text = text;
  }
  return summary;
}

// One instruction: its kind, what it calls and the values it references;
// counts kernel and delegate calls in `method`.
InstructionSummary summarize_instruction(const fb::ExecutionPlan& plan, const fb::Instruction& instruction,
                                         int32_t chain, int32_t index, MethodSummary& method) {
  InstructionSummary summary{chain, index, "", ""};
  summary.references = references_of(plan, instruction);
  switch (instruction.instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      ++method.kernel_call_count;
      summary.kind = "kernel";
      summary.target = method.operators[size_t(instruction.instr_args_as_KernelCall()->op_index())];
      break;
    case fb::InstructionArguments::DelegateCall:
      ++method.delegate_call_count;
      summary.kind = "delegate";
      summary.delegate_index = instruction.instr_args_as_DelegateCall()->delegate_index();
      summary.target = plan.delegates()->Get(uint32_t(summary.delegate_index))->id()->str();
      break;
    case fb::InstructionArguments::MoveCall: summary.kind = "move"; break;
    case fb::InstructionArguments::JumpFalseCall: summary.kind = "jump_false"; break;
    default: summary.kind = "free"; break;
  }
  return summary;
}

// One delegate call's backend, where its payload is and how big.
DelegateSummary summarize_delegate(const fb::Program& program, const fb::BackendDelegate& delegate) {
  DelegateSummary summary;
  summary.backend_id = delegate.id()->str();
  const auto* data = delegate.processed();
  summary.index = data->index();
  if (data->location() == fb::DataLocation::INLINE) {
    summary.location = "inline";
    const auto* blob = program.backend_delegate_data()->Get(data->index())->data();
    summary.size = length(blob);
  } else {
    summary.location = "segment";
    summary.size = program.segments()->Get(data->index())->size();
  }
  if (delegate.compile_specs()) {
    for (const auto* spec : *delegate.compile_specs()) {
      summary.compile_spec_keys.push_back(spec->key() ? spec->key()->str() : "");
    }
  }
  return summary;
}

MethodSummary summarize_method(const fb::Program& program,
                               const fb::ExecutionPlan& plan) {
  MethodSummary method;
  method.name = plan.name()->str();
  method.value_count = length(plan.values());
  if (plan.inputs()) {
    for (int32_t index : *plan.inputs()) {
      method.inputs.push_back(summarize_value(plan, index));
    }
  }
  if (plan.outputs()) {
    for (int32_t index : *plan.outputs()) {
      method.outputs.push_back(summarize_value(plan, index));
    }
  }
  for (size_t i = 0; i < length(plan.operators()); ++i) {
    const auto* op = plan.operators()->Get(i);
    method.operators.push_back(operator_name(
        op->name()->str(), op->overload() ? op->overload()->str() : ""));
  }
  method.planned_tensors = planned_tensors(plan);
  method.chain_count = length(plan.chains());
  for (size_t c = 0; c < method.chain_count; ++c) {
    const auto* instructions = plan.chains()->Get(c)->instructions();
    method.instruction_count += length(instructions);
    for (size_t i = 0; i < length(instructions); ++i) {
      method.instructions.push_back(
          summarize_instruction(plan, *instructions->Get(i), int32_t(c), int32_t(i), method));
    }
  }
  for (size_t i = 0; i < length(plan.delegates()); ++i) {
    method.delegates.push_back(summarize_delegate(program, *plan.delegates()->Get(i)));
  }
  if (plan.non_const_buffer_sizes()) {
    const auto* sizes = plan.non_const_buffer_sizes();
    method.planned_buffer_sizes.assign(sizes->begin(), sizes->end());
    for (size_t i = 1; i < sizes->size(); ++i) {
      method.planned_bytes += static_cast<uint64_t>(sizes->Get(i));
    }
  }
  return method;
}

void collect_external(const fb::ExecutionPlan& plan, ProgramSummary& summary) {
  for (size_t i = 0; i < length(plan.values()); ++i) {
    const fb::EValue* value = plan.values()->Get(i);
    if (value->val_type() != fb::KernelTypes::Tensor) {
      continue;
    }
    const fb::Tensor* tensor = value->val_as_Tensor();
    const auto* extra = tensor->extra_tensor_info();
    if (extra && extra->location() == fb::TensorDataLocation::EXTERNAL) {
      summary.external_tensors.push_back(
          {plan.name()->str(), static_cast<int32_t>(i),
           extra->fully_qualified_name()->str(), shape_of(*tensor)});
    }
  }
}

}  // namespace

std::string operator_name(const std::string& name, const std::string& overload) {
  return overload.empty() ? name : name + "." + overload;
}

ProgramSummary summarize(const Program& program) {
  const fb::Program& root = *program.flatbuffer();
  ProgramSummary summary;
  summary.version = root.version();
  summary.file_size = program.bytes().size;
  const ExtendedHeader& header = program.extended_header();
  summary.has_extended_header = header.present;
  summary.flatbuffer_size = header.present ? header.program_size : program.bytes().size;
  summary.segment_base_offset = header.segment_base_offset;
  for (size_t m = 0; m < length(root.execution_plan()); ++m) {
    const auto* plan = root.execution_plan()->Get(m);
    summary.methods.push_back(summarize_method(root, *plan));
    collect_external(*plan, summary);
  }
  const size_t inline_count = length(root.constant_buffer());
  const auto* constants = root.constant_segment();
  const size_t offset_count = constants ? length(constants->offsets()) : 0;
  if (inline_count > 1) {
    summary.constant_storage = "inline";
    summary.constant_count = inline_count - 1;
    for (const auto* buffer : *root.constant_buffer()) {
      summary.constant_bytes += length(buffer->storage());
    }
  } else if (offset_count > 1) {
    summary.constant_storage = "segment";
    summary.constant_count = offset_count - 1;
    summary.constant_segment = constants->segment_index();
    summary.constant_bytes = root.segments()->Get(constants->segment_index())->size();
  } else {
    summary.constant_storage = "none";
  }
  for (size_t i = 0; i < program.segment_count(); ++i) {
    const auto* segment = root.segments()->Get(i);
    summary.segments.push_back(
        {header.segment_base_offset + segment->offset(), segment->size()});
  }
  for (size_t i = 0; i < length(root.named_data()); ++i) {
    const auto* entry = root.named_data()->Get(i);
    summary.named_data.push_back(
        {entry->key()->str(), entry->segment_index(),
         root.segments()->Get(entry->segment_index())->size()});
  }
  return summary;
}

}  // namespace etkit
