#include "support/program_builder.h"

#include "etkit/core/file_data.h"
#include "program_generated.h"

namespace etkit::test {
namespace fb = executorch_flatbuffer;

int32_t ProgramBuilder::tensor(std::vector<int32_t> sizes, int64_t offset, bool dynamic) {
  values_.push_back({ValueSpec::kTensor, std::move(sizes), offset, dynamic, 0, {}});
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::integer(int64_t value) {
  values_.push_back({ValueSpec::kInt, {}, -1, false, value, {}});
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::none() {
  values_.push_back({ValueSpec::kNone, {}, -1, false, 0, {}});
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::tensor_list(std::vector<int32_t> items) {
  values_.push_back({ValueSpec::kTensorList, {}, -1, false, 0, std::move(items)});
  return int32_t(values_.size() - 1);
}

void ProgramBuilder::kernel_call(const std::string& name, const std::string& overload,
                                 std::vector<int32_t> args) {
  int32_t op = -1;
  for (size_t i = 0; i < operators_.size(); ++i) {
    if (operators_[i] == std::make_pair(name, overload)) op = int32_t(i);
  }
  if (op < 0) {
    operators_.emplace_back(name, overload);
    op = int32_t(operators_.size() - 1);
  }
  calls_.push_back({op, std::move(args)});
}

std::vector<uint8_t> ProgramBuilder::build() const {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::EValue>> values;
  for (const ValueSpec& v : values_) {
    switch (v.kind) {
      case ValueSpec::kTensor: {
        std::vector<uint8_t> order(v.sizes.size());
        for (size_t d = 0; d < order.size(); ++d) order[d] = uint8_t(d);
        flatbuffers::Offset<fb::AllocationDetails> alloc = 0;
        if (v.offset >= 0) {
          alloc = fb::CreateAllocationDetails(b, 1, uint32_t(v.offset), uint32_t(v.offset >> 32));
        }
        auto t = fb::CreateTensor(b, fb::ScalarType::FLOAT, 0, b.CreateVector(v.sizes),
                                  b.CreateVector(order), false, 0, alloc, 0,
                                  v.dynamic ? fb::TensorShapeDynamism::DYNAMIC_BOUND
                                            : fb::TensorShapeDynamism::STATIC);
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, t.Union()));
        break;
      }
      case ValueSpec::kInt:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, v.int_value).Union()));
        break;
      case ValueSpec::kNone:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::Null, fb::CreateNull(b).Union()));
        break;
      case ValueSpec::kTensorList:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::TensorList,
                                          fb::CreateTensorList(b, b.CreateVector(v.items)).Union()));
        break;
    }
  }
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  for (const Call& call : calls_) {
    instructions.push_back(fb::CreateInstruction(
        b, fb::InstructionArguments::KernelCall,
        fb::CreateKernelCall(b, call.op, b.CreateVector(call.args)).Union()));
  }
  std::vector<flatbuffers::Offset<fb::Operator>> operators;
  for (const auto& [name, overload] : operators_) {
    operators.push_back(fb::CreateOperator(b, b.CreateString(name), b.CreateString(overload)));
  }
  auto chain = fb::CreateChain(b, b.CreateVector(inputs_), b.CreateVector(outputs_),
                               b.CreateVector(instructions));
  auto plan = fb::CreateExecutionPlan(
      b, b.CreateString("forward"), 0, b.CreateVector(values), b.CreateVector(inputs_),
      b.CreateVector(outputs_), b.CreateVector(std::vector<flatbuffers::Offset<fb::Chain>>{chain}),
      b.CreateVector(operators), 0, b.CreateVector(std::vector<int64_t>{0, arena_}));
  auto program = fb::CreateProgram(
      b, 0, b.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{plan}));
  b.Finish(program, fb::ProgramIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Result<Program> ProgramBuilder::load() const {
  const auto bytes = build();
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "built.pte");
  return Program::load(file, file->bytes(), "built.pte");
}

}  // namespace etkit::test
