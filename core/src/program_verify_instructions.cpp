// Checks of a method's chains: instruction kinds, argument and operator
// indices, jump targets, and the delegates they call.

#include "etkit/core/checked_size.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/scalar_type.h"
#include "flatbuffer_alignment.h"
#include "program_verify.h"
#include "program_verify_method.h"

namespace etkit::detail {

using detail::length;

Status MethodChecker::check_args(const flatbuffers::Vector<int32_t>* args,
                                 const char* what, size_t chain,
                                 size_t at) const {
  if (args == nullptr) {
    return Ok{};
  }
  char where[96];
  std::snprintf(where, sizeof(where), "chain %zu instruction %zu (%s)", chain,
                at, what);
  for (int32_t arg : *args) {
    ETKIT_TRY(check_value_index(arg, where));
  }
  return Ok{};
}

Status MethodChecker::check_instruction(size_t chain, size_t at, size_t count,
                                        const fb::Instruction& instruction) const {
  char where[96];
  std::snprintf(where, sizeof(where), "chain %zu instruction %zu", chain, at);
  if (instruction.instr_args() == nullptr) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': %s has no arguments (type %d)", name, where,
                       static_cast<int>(instruction.instr_args_type()));
  }
  switch (instruction.instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const auto* call = instruction.instr_args_as_KernelCall();
      const size_t ops = length(plan.operators());
      if (call->op_index() < 0 || static_cast<size_t>(call->op_index()) >= ops) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: operator %d, but the method "
                           "lists %zu operators",
                           name, where, call->op_index(), ops);
      }
      return check_args(call->args(), "kernel call", chain, at);
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* call = instruction.instr_args_as_DelegateCall();
      const size_t delegates = length(plan.delegates());
      if (call->delegate_index() < 0 ||
          static_cast<size_t>(call->delegate_index()) >= delegates) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: delegate %d, but the method has "
                           "%zu delegates",
                           name, where, call->delegate_index(), delegates);
      }
      return check_args(call->args(), "delegate call", chain, at);
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* call = instruction.instr_args_as_MoveCall();
      ETKIT_TRY(check_value_index(call->move_from(), where));
      return check_value_index(call->move_to(), where);
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* call = instruction.instr_args_as_JumpFalseCall();
      ETKIT_TRY(check_value_index(call->cond_value_index(), where));
      const int32_t target = call->destination_instruction();
      if (target < 0 || static_cast<size_t>(target) >= count) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': %s: jump to instruction %d, outside "
                           "the chain's %zu instructions",
                           name, where, target, count);
      }
      return Ok{};
    }
    case fb::InstructionArguments::FreeCall:
      return check_value_index(instruction.instr_args_as_FreeCall()->value_index(),
                               where);
    case fb::InstructionArguments::NONE:
      break;
  }
  return Error::make(ErrorCode::kMalformed,
                     "method '%s': %s has no arguments (type %d)", name, where,
                     static_cast<int>(instruction.instr_args_type()));
}

Status MethodChecker::check_delegates() const {
  // Upstream's runtime refuses a plan without the field ("Missing delegates
  // field"); an empty list is fine. Refused here too, so our gate never
  // passes a program upstream cannot load.
  if (plan.delegates() == nullptr) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': the execution plan has no delegates field (upstream's runtime "
                       "refuses it; an empty list is what exporters write)",
                       name);
  }
  for (size_t i = 0; i < plan.delegates()->size(); ++i) {
    const auto* delegate = plan.delegates()->Get(i);
    if (delegate->id() == nullptr) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu has no backend id", name, i);
    }
    const auto* data = delegate->processed();
    if (data == nullptr) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu (%s) has no processed data",
                         name, i, delegate->id()->c_str());
    }
    const bool inline_data = data->location() == fb::DataLocation::INLINE;
    const size_t available = inline_data
                                 ? length(program.backend_delegate_data())
                                 : length(program.segments());
    if (data->index() >= available) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': delegate %zu (%s): %s data %u, but the "
                         "program has %zu",
                         name, i, delegate->id()->c_str(),
                         inline_data ? "inline" : "segment", data->index(),
                         available);
    }
  }
  return Ok{};
}

}  // namespace etkit::detail
