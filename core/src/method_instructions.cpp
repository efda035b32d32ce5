// Method load, part two: kernels, delegates, argument and data-flow checks.

#include <cstring>
#include <string>

#include "etkit/core/event_tracer.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/program_summary.h"
#include "method_state.h"
#include "program_generated.h"

namespace etkit::detail {
namespace fb = executorch_flatbuffer;
namespace {

// No registry given: no kernels, so every kernel call is reported missing.
const KernelRegistry& kernels_of(const MethodOptions& options) {
  static const KernelRegistry empty;
  return options.kernels != nullptr ? *options.kernels : empty;
}

using detail::length;

// Whether `value` may be passed where the signature letter is expected.
bool matches(char letter, const Value& value) {
  const ValueTag tag = value.tag();
  switch (letter) {
    case 'T':
    case 'W': return tag == ValueTag::kTensor;
    case 't': return tag == ValueTag::kTensor || tag == ValueTag::kNone;
    case 'i': return tag == ValueTag::kInt;
    case 'n': return tag == ValueTag::kInt || tag == ValueTag::kNone;
    case 'd': return tag == ValueTag::kDouble || tag == ValueTag::kInt;
    case 'e': return tag == ValueTag::kDouble || tag == ValueTag::kInt || tag == ValueTag::kNone;
    case 's': return value.is_scalar();
    case 'o': return value.is_scalar() || tag == ValueTag::kNone;
    case 'b': return tag == ValueTag::kBool;
    case 'c': return tag == ValueTag::kBool || tag == ValueTag::kNone;
    case 'S': return tag == ValueTag::kString || tag == ValueTag::kNone;
    case 'I': return tag == ValueTag::kIntList;
    case 'J': return tag == ValueTag::kIntList || tag == ValueTag::kNone;
    case 'D': return tag == ValueTag::kDoubleList;
    case 'E': return tag == ValueTag::kDoubleList || tag == ValueTag::kNone;
    case 'B': return tag == ValueTag::kBoolList;
    case 'L':
    case 'M': return tag == ValueTag::kTensorList;
    case 'O': return tag == ValueTag::kOptionalTensorList || tag == ValueTag::kTensorList;
    case 'x': return true;
  }
  return false;
}

const char* expected_name(char letter) {
  switch (letter) {
    case 'T': case 'W': return "tensor";
    case 't': return "tensor or None";
    case 'i': return "int";
    case 'n': return "int or None";
    case 'd': return "double";
    case 'e': return "double or None";
    case 's': return "scalar";
    case 'o': return "scalar or None";
    case 'b': return "bool";
    case 'c': return "bool or None";
    case 'S': return "string";
    case 'I': return "int list";
    case 'J': return "int list or None";
    case 'D': return "double list";
    case 'E': return "double list or None";
    case 'B': return "bool list";
    case 'L': case 'M': return "tensor list";
    case 'O': return "optional tensor list";
  }
  return "value";
}

// upstream names kernel events "native_call_<name>.<overload>" without the
// operator's namespace.
std::string event_name(const std::string& op) {
  const size_t colons = op.find("::");
  return "native_call_" + (colons == std::string::npos ? op : op.substr(colons + 2));
}

struct Builder {
  const Program& program;
  const MethodOptions& options;
  MethodState& state;
  const KernelRegistry& kernels;
  std::vector<const KernelEntry*> entries;  // per operator (every one has a kernel)

  Status resolve_operators();
  Status check_kernel_args(const PreparedInstruction& instruction, const KernelEntry& entry);
  Status load_delegates();
  Status prepare(const fb::Chain& chain, int32_t chain_index);
  Status prepare_kernel_call(const fb::KernelCall& call, PreparedInstruction& out);
  Status check_data_flow();
};

// Method::load has checked that every operator has a kernel (check_kernels).
Status Builder::resolve_operators() {
  const auto* operators = state.plan->operators();
  for (size_t i = 0; i < length(operators); ++i) {
    const auto* op = operators->Get(i);
    const std::string name =
        operator_name(op->name()->str(), op->overload() ? op->overload()->str() : "");
    entries.push_back(kernels.find(name));
    state.names.push_back(name);
    state.names.push_back(event_name(name));
  }
  return Ok{};
}

Status Builder::check_kernel_args(const PreparedInstruction& instruction,
                                  const KernelEntry& entry) {
  const std::string& signature = entry.signature;
  if (signature.size() != instruction.args.size()) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': chain %d instruction %d (%s): the program passes %zu "
                       "arguments, the kernel takes %zu (the schema's arguments, outs "
                       "included, then the return value)",
                       state.name.c_str(), instruction.chain, instruction.index,
                       instruction.op_name, instruction.args.size(), signature.size());
  }
  for (size_t a = 0; a < signature.size(); ++a) {
    const Value& value = *instruction.args[a];
    if (!matches(signature[a], value)) {
      return Error::make(ErrorCode::kMalformed,
                         "method '%s': chain %d instruction %d (%s): argument %zu is %s, "
                         "expected %s",
                         state.name.c_str(), instruction.chain, instruction.index,
                         instruction.op_name, a, to_string(value.tag()),
                         expected_name(signature[a]));
    }
  }
  return Ok{};
}

Status Builder::load_delegates() {
  const auto* delegates = state.plan->delegates();
  for (size_t i = 0; i < length(delegates); ++i) {
    const auto* delegate = delegates->Get(i);
    const std::string id = delegate->id()->str();
    Backend* backend = options.backends ? options.backends->find(id) : nullptr;
    if (backend == nullptr || !backend->is_available()) {
      return Error::make(ErrorCode::kMissingBackend,
                         "method '%s': backend %s is not available (delegate %zu)",
                         state.name.c_str(), id.c_str(), i);
    }
    const auto* data = delegate->processed();
    ByteSpan blob;
    if (data->location() == fb::DataLocation::INLINE) {
      blob = program.inline_delegate_data(data->index());
    } else {
      blob = program.segment(data->index());
    }
    std::vector<CompileSpec> specs;
    for (size_t s = 0; s < length(delegate->compile_specs()); ++s) {
      const auto* spec = delegate->compile_specs()->Get(s);
      specs.push_back({spec->key() ? spec->key()->str() : "",
                       ByteSpan{spec->value() ? spec->value()->data() : nullptr,
                                length(spec->value())}});
    }
    BackendInitContext context;
    context.program = &program;
    context.data_files = Span<const FlatTensor* const>(options.data_files.data(),
                                                       options.data_files.size());
    context.kernels = &kernels_of(options);
    context.tracing = options.tracer != nullptr;
    context.method_name = state.name.c_str();
    auto handle = backend->init(context, blob, Span<const CompileSpec>(specs.data(), specs.size()));
    if (!handle.ok()) {
      return handle.error().with_context("method '%s': delegate %zu (%s)",
                                         state.name.c_str(), i, id.c_str());
    }
    state.delegates.push_back({backend, *handle, id});
  }
  return Ok{};
}

// Which arguments the kernel writes as the schema's out arguments: every
// W or M letter but the last one, the return slot (which repeats an out).
uint64_t out_argument_mask(const std::string& signature) {
  uint64_t mask = 0;
  for (size_t a = 0; a + 1 < signature.size() && a < 64; ++a) {
    if (signature[a] == 'W' || signature[a] == 'M') mask |= uint64_t(1) << a;
  }
  return mask;
}

Span<Value*> store_args(MethodState& state, const flatbuffers::Vector<int32_t>* args) {
  const size_t start = state.arg_storage.size();
  for (size_t a = 0; a < length(args); ++a) {
    state.arg_storage.push_back(&state.values[static_cast<size_t>(args->Get(a))]);
  }
  return Span<Value*>(state.arg_storage.data() + start, length(args));
}

// A kernel call: its arguments, kernel and names, checked against the
// kernel's schema, and float32 staging when it holds low-precision tensors.
Status Builder::prepare_kernel_call(const fb::KernelCall& call, PreparedInstruction& out) {
  const auto op = static_cast<size_t>(call.op_index());
  out.kind = InstructionKind::kKernel;
  out.args = store_args(state, call.args());
  out.kernel = entries[op]->function;
  out.op_name = state.names[2 * op].c_str();
  out.event_name = state.names[2 * op + 1].c_str();
  ETKIT_TRY(check_kernel_args(out, *entries[op]));
  out.out_args = out_argument_mask(entries[op]->signature);
  if (needs_low_precision_staging(out.args)) {
    out.staging = static_cast<int32_t>(state.stagings.size());
    state.stagings.push_back(plan_staging(out.args, out.out_args));
  }
  return Ok{};
}

Status Builder::prepare(const fb::Chain& chain, int32_t chain_index) {
  std::vector<PreparedInstruction> prepared;
  for (size_t i = 0; i < length(chain.instructions()); ++i) {
    const fb::Instruction& instruction = *chain.instructions()->Get(i);
    PreparedInstruction out;
    out.chain = chain_index;
    out.index = static_cast<int32_t>(i);
    switch (instruction.instr_args_type()) {
      case fb::InstructionArguments::KernelCall:
        ETKIT_TRY(prepare_kernel_call(*instruction.instr_args_as_KernelCall(), out));
        break;
      case fb::InstructionArguments::DelegateCall: {
        const auto* call = instruction.instr_args_as_DelegateCall();
        out.kind = InstructionKind::kDelegate;
        out.args = store_args(state, call->args());
        out.delegate = static_cast<size_t>(call->delegate_index());
        out.op_name = "DELEGATE_CALL";
        break;
      }
      case fb::InstructionArguments::MoveCall:
        out.kind = InstructionKind::kMove;
        out.a = instruction.instr_args_as_MoveCall()->move_from();
        out.b = instruction.instr_args_as_MoveCall()->move_to();
        break;
      case fb::InstructionArguments::JumpFalseCall: {
        const auto* jump = instruction.instr_args_as_JumpFalseCall();
        out.kind = InstructionKind::kJumpFalse;
        out.a = jump->cond_value_index();
        out.b = jump->destination_instruction();
        const Value& cond = state.values[static_cast<size_t>(out.a)];
        if (cond.tag() != ValueTag::kBool && !cond.is_tensor()) {
          return Error::make(ErrorCode::kMalformed,
                             "method '%s': chain %d instruction %zu: jump condition is "
                             "%s, expected bool",
                             state.name.c_str(), chain_index, i, to_string(cond.tag()));
        }
        break;
      }
      case fb::InstructionArguments::FreeCall:
        out.kind = InstructionKind::kFree;
        out.a = instruction.instr_args_as_FreeCall()->value_index();
        break;
      default:
        break;  // rejected by the program verifier
    }
    prepared.push_back(out);
  }
  state.instruction_count += prepared.size();
  state.chains.push_back(std::move(prepared));
  return Ok{};
}

// Follows the chains in order and rejects a kernel input that no earlier
// step produced: a tensor without memory that is neither a method input, a
// constant, nor an earlier output. (Straight-line reasoning: programs with
// jumps are checked along the fall-through path.)
Status Builder::check_data_flow() {
  std::vector<uint8_t> ready(state.values.size(), 1);
  for (size_t i = 0; i < state.values.size(); ++i) {
    const Value& value = state.values[i];
    if (value.is_tensor() && value.unchecked_tensor().data() == nullptr) {
      ready[i] = 0;
    }
  }
  for (int32_t input : state.inputs) {
    ready[static_cast<size_t>(input)] = 1;
  }
  auto index_of = [&](const Value* value) {
    return static_cast<size_t>(value - state.values.data());
  };
  for (const auto& chain : state.chains) {
    for (const PreparedInstruction& instruction : chain) {
      if (instruction.kind == InstructionKind::kMove) {
        ready[static_cast<size_t>(instruction.b)] = ready[static_cast<size_t>(instruction.a)];
        continue;
      }
      if (instruction.kind == InstructionKind::kDelegate) {
        for (Value* arg : instruction.args) {
          ready[index_of(arg)] = 1;  // backends write their outputs
        }
        continue;
      }
      if (instruction.kind != InstructionKind::kKernel) {
        continue;
      }
      const KernelEntry* entry = kernels.find(instruction.op_name);
      for (size_t a = 0; a < instruction.args.size(); ++a) {
        const char letter = entry->signature[a];
        const size_t index = index_of(instruction.args[a]);
        if (letter == 'W' || letter == 'M') {
          ready[index] = 1;
          if (letter == 'M') {
            for (Tensor* t : instruction.args[a]->tensor_list()) {
              for (size_t v = 0; v < state.values.size(); ++v) {
                if (state.values[v].is_tensor() && &state.values[v].unchecked_tensor() == t) {
                  ready[v] = 1;
                }
              }
            }
          }
          continue;
        }
        if (!ready[index]) {
          return Error::make(ErrorCode::kMalformed,
                             "method '%s': chain %d instruction %d (%s): argument %zu "
                             "reads value %zu, which has no memory and is not written "
                             "by any earlier instruction",
                             state.name.c_str(), instruction.chain, instruction.index,
                             instruction.op_name, a, index);
        }
      }
    }
  }
  return Ok{};
}

}  // namespace

Status check_kernels(const fb::ExecutionPlan& plan, const MethodOptions& options,
                     const std::string& method) {
  const KernelRegistry& kernels = kernels_of(options);
  std::string list;
  size_t missing = 0;
  for (size_t i = 0; i < length(plan.operators()); ++i) {
    const auto* op = plan.operators()->Get(i);
    const std::string name =
        operator_name(op->name()->str(), op->overload() ? op->overload()->str() : "");
    if (kernels.find(name) != nullptr) continue;
    list += (list.empty() ? "" : ", ") + name;
    ++missing;
  }
  if (missing == 0) return Ok{};
  return Error::make(ErrorCode::kMissingKernel, "method '%s': no kernel for %zu operator%s: %s",
                     method.c_str(), missing, missing == 1 ? "" : "s", list.c_str());
}

Status load_instructions(const Program& program, const MethodOptions& options,
                         MethodState& state) {
  Builder builder{program, options, state, kernels_of(options), {}};
  // Names are referenced by pointer from instructions: reserve first.
  state.names.reserve(2 * length(state.plan->operators()));
  ETKIT_TRY(builder.resolve_operators());
  size_t arg_count = 0;
  for (size_t c = 0; c < length(state.plan->chains()); ++c) {
    const auto* instructions = state.plan->chains()->Get(c)->instructions();
    for (size_t i = 0; i < length(instructions); ++i) {
      const auto* instruction = instructions->Get(i);
      if (const auto* call = instruction->instr_args_as_KernelCall()) {
        arg_count += length(call->args());
      } else if (const auto* delegate = instruction->instr_args_as_DelegateCall()) {
        arg_count += length(delegate->args());
      }
    }
  }
  state.arg_storage.reserve(arg_count);
  if (length(state.plan->operators()) > 0) {
    // One scratch area per worker: kernels spread over them (parallel.h).
    const size_t workers = options.parallel != nullptr && options.parallel->run != nullptr
                               ? (options.parallel->workers > 0 ? options.parallel->workers : 1)
                               : 1;
    state.parallel = workers > 1 ? options.parallel : nullptr;
    const size_t bytes = kKernelScratchBytes * workers;
    if (options.kernel_scratch.size() >= bytes) {
      state.worker_scratch = Span<uint8_t>(options.kernel_scratch.data(), bytes);
    } else {
      ETKIT_ASSIGN_OR_RETURN(state.worker_scratch, allocate_owned(state, bytes));
    }
    state.scratch = Span<uint8_t>(state.worker_scratch.data(), kKernelScratchBytes);
  }
  ETKIT_TRY(builder.load_delegates());
  for (size_t c = 0; c < length(state.plan->chains()); ++c) {
    ETKIT_TRY(builder.prepare(*state.plan->chains()->Get(c), static_cast<int32_t>(c)));
  }
  // Instructions run one at a time: their float32 copies share one arena.
  size_t staging_bytes = 0;
  for (const LowPrecisionStaging& s : state.stagings) staging_bytes = s.bytes > staging_bytes ? s.bytes : staging_bytes;
  // Bound even when every staged tensor is empty (no bytes): binding is what
  // makes the copies float32, and an empty float16 tensor reached its
  // float32 kernel as float16 before ("unsupported dtype float16").
  Span<uint8_t> arena;
  if (staging_bytes > 0) {
    ETKIT_ASSIGN_OR_RETURN(arena, allocate_owned(state, staging_bytes));
  }
  for (LowPrecisionStaging& s : state.stagings) ETKIT_TRY(bind_staging(s, arena));
  return builder.check_data_flow();
}

}  // namespace etkit::detail
