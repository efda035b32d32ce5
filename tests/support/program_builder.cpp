#include "support/program_builder.h"

#include <cstring>

#include "etkit/core/file_data.h"
#include "program_generated.h"

namespace etkit::test {
namespace fb = executorch_flatbuffer;

int32_t ProgramBuilder::tensor(std::vector<int32_t> sizes, int64_t offset, bool dynamic,
                               ScalarType dtype) {
  ValueSpec v{ValueSpec::kTensor, std::move(sizes), offset, dynamic, 0, {}};
  v.dtype = dtype;
  values_.push_back(v);
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::constant_tensor(std::vector<int32_t> sizes, ScalarType dtype,
                                        std::vector<uint8_t> bytes) {
  ValueSpec v{ValueSpec::kTensor, std::move(sizes), -1, false, 0, {}};
  v.dtype = dtype;
  v.constant = int32_t(constants_.size());
  constants_.push_back(std::move(bytes));
  values_.push_back(v);
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::mutable_buffer(std::vector<int32_t> sizes, int64_t offset, std::vector<float> initial) {
  ValueSpec v{ValueSpec::kTensor, std::move(sizes), offset, false, 0, {}};
  v.mutable_index = int32_t(mutable_data_.size());
  std::vector<uint8_t> bytes(initial.size() * sizeof(float));
  std::memcpy(bytes.data(), initial.data(), bytes.size());
  mutable_data_.push_back(std::move(bytes));
  values_.push_back(v);
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

int32_t ProgramBuilder::optional_tensor_list(std::vector<int32_t> items) {
  values_.push_back({ValueSpec::kOptionalTensorList, {}, -1, false, 0, std::move(items)});
  return int32_t(values_.size() - 1);
}

int32_t ProgramBuilder::int_list(const std::vector<int64_t>& items) {
  std::vector<int32_t> boxed;
  for (int64_t item : items) boxed.push_back(integer(item));
  values_.push_back({ValueSpec::kIntList, {}, -1, false, 0, boxed});
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::real(double value) {
  ValueSpec v{ValueSpec::kDouble, {}, -1, false, 0, {}};
  v.double_value = value;
  values_.push_back(v);
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::boolean(bool value) {
  values_.push_back({ValueSpec::kBool, {}, -1, false, value ? 1 : 0, {}});
  return int32_t(values_.size() - 1);
}
int32_t ProgramBuilder::string(const std::string& value) {
  ValueSpec v{ValueSpec::kString, {}, -1, false, 0, {}};
  v.text = value;
  values_.push_back(v);
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

void ProgramBuilder::delegate_call(const std::string& backend_id, std::vector<uint8_t> payload,
                                   std::vector<int32_t> args) {
  delegates_.push_back({backend_id, std::move(payload)});
  calls_.push_back({-int32_t(delegates_.size()), std::move(args)});
}

std::vector<uint8_t> ProgramBuilder::build() const {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::EValue>> values;
  for (const ValueSpec& v : values_) {
    switch (v.kind) {
      case ValueSpec::kTensor: {
        std::vector<uint8_t> order(v.sizes.size());
        for (size_t d = 0; d < order.size(); ++d) order[d] = uint8_t(d);
        if (v.dim_order.size() == order.size()) order = v.dim_order;
        flatbuffers::Offset<fb::AllocationDetails> alloc = 0;
        if (v.offset >= 0) {
          alloc = fb::CreateAllocationDetails(b, 1, uint32_t(v.offset), uint32_t(v.offset >> 32));
        }
        auto t = fb::CreateTensor(b, static_cast<fb::ScalarType>(v.dtype), 0, b.CreateVector(v.sizes),
                                  b.CreateVector(order), false, uint32_t(v.constant + v.mutable_index), alloc, 0,
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
      case ValueSpec::kIntList:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::IntList,
                                          fb::CreateIntList(b, b.CreateVector(std::vector<int64_t>(
                                                                   v.items.begin(), v.items.end())))
                                              .Union()));
        break;
      case ValueSpec::kDouble:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::Double,
                                          fb::CreateDouble(b, v.double_value).Union()));
        break;
      case ValueSpec::kBool:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::Bool,
                                          fb::CreateBool(b, v.int_value != 0).Union()));
        break;
      case ValueSpec::kString:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::String,
                                          fb::CreateString(b, b.CreateString(v.text)).Union()));
        break;
      case ValueSpec::kTensorList:
        values.push_back(fb::CreateEValue(b, fb::KernelTypes::TensorList,
                                          fb::CreateTensorList(b, b.CreateVector(v.items)).Union()));
        break;
      case ValueSpec::kOptionalTensorList:
        values.push_back(fb::CreateEValue(
            b, fb::KernelTypes::OptionalTensorList,
            fb::CreateOptionalTensorList(b, b.CreateVector(v.items)).Union()));
        break;
    }
  }
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  for (const Call& call : calls_) {
    if (call.op < 0) {
      instructions.push_back(fb::CreateInstruction(
          b, fb::InstructionArguments::DelegateCall,
          fb::CreateDelegateCall(b, -1 - call.op, b.CreateVector(call.args)).Union()));
      continue;
    }
    instructions.push_back(fb::CreateInstruction(
        b, fb::InstructionArguments::KernelCall,
        fb::CreateKernelCall(b, call.op, b.CreateVector(call.args)).Union()));
  }
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates;
  std::vector<flatbuffers::Offset<fb::BackendDelegateInlineData>> delegate_data;
  for (const Delegate& d : delegates_) {
    auto processed = fb::CreateBackendDelegateDataReference(b, fb::DataLocation::INLINE,
                                                            uint32_t(delegate_data.size()));
    delegates.push_back(fb::CreateBackendDelegate(
        b, b.CreateString(d.backend_id), processed,
        b.CreateVector(std::vector<flatbuffers::Offset<fb::CompileSpec>>{})));
    b.ForceVectorAlignment(d.payload.size(), 1, 16);
    delegate_data.push_back(fb::CreateBackendDelegateInlineData(b, b.CreateVector(d.payload)));
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
      b.CreateVector(operators), b.CreateVector(delegates),
      b.CreateVector(std::vector<int64_t>{0, arena_}));
  // Data after the flatbuffer, as upstream's emitter (1.x) writes every
  // program: segment 0 holds the constants (Program.constant_segment, even
  // when there are none: upstream's runtime refuses a program without it
  // unless built with the deprecated inline constant_buffer path), the next
  // one the mutable buffers' initial states. Entries are 16-byte aligned and
  // offset index 0 is reserved in both lists.
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  std::vector<uint8_t> segment;
  std::vector<flatbuffers::Offset<fb::DataSegment>> segment_table;
  const auto append_segment = [&](const std::vector<std::vector<uint8_t>>& entries) {
    segment.resize((segment.size() + 15) / 16 * 16);
    const uint64_t start = segment.size();
    std::vector<uint64_t> offsets = {0};
    for (size_t m = 1; m < entries.size(); ++m) {
      segment.resize(start + (segment.size() - start + 15) / 16 * 16);
      offsets.push_back(segment.size() - start);
      segment.insert(segment.end(), entries[m].begin(), entries[m].end());
    }
    segment_table.push_back(fb::CreateDataSegment(b, start, segment.size() - start));
    return fb::CreateSubsegmentOffsets(b, uint32_t(segment_table.size() - 1), b.CreateVector(offsets));
  };
  flatbuffers::Offset<fb::SubsegmentOffsets> constant_segment = 0;
  if (legacy_constant_buffer_) {
    for (const auto& bytes : constants_) {
      b.ForceVectorAlignment(bytes.size(), 1, 16);
      buffers.push_back(fb::CreateBuffer(b, b.CreateVector(bytes)));
    }
  } else {
    constant_segment = append_segment(constants_);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::SubsegmentOffsets>>> mutables = 0;
  if (mutable_data_.size() > 1) {
    mutables = b.CreateVector(std::vector<flatbuffers::Offset<fb::SubsegmentOffsets>>{
        append_segment(mutable_data_)});
  }
  auto program = fb::CreateProgram(
      b, 0, b.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{plan}),
      buffers.size() > 1 ? b.CreateVector(buffers) : 0,
      delegate_data.empty() ? 0 : b.CreateVector(delegate_data),
      segment_table.empty() ? 0 : b.CreateVector(segment_table), constant_segment, mutables);
  b.Finish(program, fb::ProgramIdentifier());
  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (segment_table.empty()) return bytes;
  // The eh00 extended header goes right after the file identifier; every
  // flatbuffer offset is relative except the root's, which moves with it.
  constexpr uint32_t kHeader = 32;
  const uint64_t program_size = bytes.size() + kHeader;
  const uint64_t base = (program_size + 15) / 16 * 16, data_size = segment.size();
  uint8_t header[kHeader] = {'e', 'h', '0', '0'};
  std::memcpy(header + 4, &kHeader, 4);
  std::memcpy(header + 8, &program_size, 8);
  std::memcpy(header + 16, &base, 8);
  std::memcpy(header + 24, &data_size, 8);
  uint32_t root = 0;
  std::memcpy(&root, bytes.data(), 4);
  root += kHeader;
  std::memcpy(bytes.data(), &root, 4);
  bytes.insert(bytes.begin() + 8, header, header + kHeader);
  bytes.resize(base);
  bytes.insert(bytes.end(), segment.begin(), segment.end());
  return bytes;
}

Result<Program> ProgramBuilder::load() const {
  const auto bytes = build();
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "built.pte");
  return Program::load(file, file->bytes(), "built.pte");
}

ProgramBuilder two_step_program(int64_t b_offset, int64_t arena) {
  ProgramBuilder builder;
  const int32_t x = builder.tensor({4}, 0);
  const int32_t a = builder.tensor({4}, 16);
  const int32_t b = builder.tensor({4}, b_offset);
  builder.kernel_call("aten::add", "out", {x, x, builder.integer(1), a, a});
  builder.kernel_call("aten::mul", "out", {a, a, b, b});
  builder.inputs({x});
  builder.outputs({b});
  builder.arena(arena);
  return builder;
}

ProgramBuilder running_sum_program() {
  ProgramBuilder builder;
  const int32_t x = builder.tensor({4}, 0);
  const int32_t state = builder.mutable_buffer({4}, 32, {10.f, 20.f, 30.f, 40.f});
  builder.kernel_call("aten::add", "out", {state, x, builder.integer(1), state, state});
  builder.inputs({x});
  builder.outputs({state});
  builder.arena(64);
  return builder;
}

}  // namespace etkit::test
