// Programs built at test time with one defect each; the loader must reject
// each with a message naming the method, the place and the numbers.

#include <gtest/gtest.h>

#include <string>

#include "etkit/core/file_data.h"
#include "etkit/core/program.h"
#include "program_generated.h"

namespace etkit {
namespace {
namespace fb = executorch_flatbuffer;

// Knobs for one small program: forward(x) = add(x, x) on a planned f32[2,2].
struct Spec {
  int32_t op_index = 0;
  int32_t output_value = 1;
  std::vector<int32_t> kernel_args = {0, 0, 2, 1};
  uint32_t memory_id = 1;
  uint32_t offset_low = 16;
  uint32_t offset_high = 0;
  int64_t arena_size = 64;
  bool add_jump = false;
  int32_t jump_target = 0;
  bool tensor_union_without_table = false;
  std::vector<uint8_t> dim_order = {0, 1};
  int32_t negative_size = 0;  // when non-zero, replaces the first size
  bool constant_past_segment = false;
  bool no_delegates_field = false;
};

std::vector<uint8_t> build(const Spec& spec) {
  flatbuffers::FlatBufferBuilder b;
  auto tensor = [&](uint32_t offset) {
    std::vector<int32_t> sizes = {spec.negative_size ? spec.negative_size : 2, 2};
    auto alloc = fb::CreateAllocationDetails(b, spec.memory_id, offset, spec.offset_high);
    return fb::CreateTensor(b, fb::ScalarType::FLOAT, 0, b.CreateVector(sizes),
                            b.CreateVector(spec.dim_order), false, 0, alloc);
  };
  std::vector<flatbuffers::Offset<fb::EValue>> values;
  values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, tensor(0).Union()));
  if (spec.tensor_union_without_table) {
    values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, 0));
  } else {
    values.push_back(fb::CreateEValue(b, fb::KernelTypes::Tensor, tensor(spec.offset_low).Union()));
  }
  values.push_back(fb::CreateEValue(b, fb::KernelTypes::Int, fb::CreateInt(b, 1).Union()));
  if (spec.constant_past_segment) {
    std::vector<int32_t> sizes = {64};
    values.push_back(fb::CreateEValue(
        b, fb::KernelTypes::Tensor,
        fb::CreateTensor(b, fb::ScalarType::FLOAT, 0, b.CreateVector(sizes),
                         b.CreateVector(std::vector<uint8_t>{0}), false, 1)
            .Union()));
  }
  std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
  instructions.push_back(fb::CreateInstruction(
      b, fb::InstructionArguments::KernelCall,
      fb::CreateKernelCall(b, spec.op_index, b.CreateVector(spec.kernel_args)).Union()));
  if (spec.add_jump) {
    instructions.push_back(fb::CreateInstruction(
        b, fb::InstructionArguments::JumpFalseCall,
        fb::CreateJumpFalseCall(b, 2, spec.jump_target).Union()));
  }
  auto chain = fb::CreateChain(b, b.CreateVector(std::vector<int32_t>{0}),
                               b.CreateVector(std::vector<int32_t>{spec.output_value}),
                               b.CreateVector(instructions));
  auto op = fb::CreateOperator(b, b.CreateString("aten::add"), b.CreateString("out"));
  auto plan = fb::CreateExecutionPlan(
      b, b.CreateString("forward"), 0, b.CreateVector(values),
      b.CreateVector(std::vector<int32_t>{0}),
      b.CreateVector(std::vector<int32_t>{spec.output_value}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Chain>>{chain}),
      b.CreateVector(std::vector<flatbuffers::Offset<fb::Operator>>{op}),
      spec.no_delegates_field ? 0 : b.CreateVector(std::vector<flatbuffers::Offset<fb::BackendDelegate>>{}),
      b.CreateVector(std::vector<int64_t>{0, spec.arena_size}));
  flatbuffers::Offset<fb::SubsegmentOffsets> constants = 0;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::DataSegment>>> segments = 0;
  if (spec.constant_past_segment) {
    // Segment 0 has 16 bytes; constant 1 (a 256-byte tensor) starts at 0.
    segments = b.CreateVector(std::vector<flatbuffers::Offset<fb::DataSegment>>{
        fb::CreateDataSegment(b, 0, 16)});
    constants = fb::CreateSubsegmentOffsets(b, 0, b.CreateVector(std::vector<uint64_t>{0, 0}));
  }
  auto program = fb::CreateProgram(
      b, 0, b.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{plan}), 0, 0,
      segments, constants);
  b.Finish(program, fb::ProgramIdentifier());
  std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (spec.constant_past_segment) {
    // Add an extended header pointing at 16 bytes of segment data. The
    // flatbuffer has 4 spare bytes after its identifier only, so build the
    // header in front of a copy: root offset and identifier are rewritten.
    const size_t header = 32;
    std::vector<uint8_t> out(8 + header + (bytes.size() - 8) + 16, 0);
    uint32_t root = flatbuffers::ReadScalar<uint32_t>(bytes.data()) + header;
    std::memcpy(out.data(), &root, 4);
    std::memcpy(out.data() + 4, "ET12eh00", 8);
    const uint32_t length = header;
    const uint64_t program_size = 8 + header + (bytes.size() - 8);
    const uint64_t base = program_size;
    std::memcpy(out.data() + 12, &length, 4);
    std::memcpy(out.data() + 16, &program_size, 8);
    std::memcpy(out.data() + 24, &base, 8);
    std::memcpy(out.data() + 8 + header, bytes.data() + 8, bytes.size() - 8);
    return out;
  }
  return bytes;
}

Result<Program> load(const Spec& spec) {
  const auto bytes = build(spec);
  auto file = FileData::copy_of(ByteSpan{bytes.data(), bytes.size()}, "built.pte");
  return Program::load(file, file->bytes(), "built.pte");
}

std::string message_of(const Spec& spec) {
  auto program = load(spec);
  EXPECT_FALSE(program.ok());
  return program.ok() ? std::string() : program.error().message();
}

TEST(ProgramVerify, TheBaselineProgramLoads) {
  auto program = load(Spec{});
  ASSERT_TRUE(program.ok()) << program.error().message();
}

TEST(ProgramVerify, AMissingDelegatesFieldIsRefusedAsUpstreamRefusesIt) {
  Spec spec;
  spec.no_delegates_field = true;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': the execution plan has no delegates field (upstream's "
            "runtime refuses it; an empty list is what exporters write)");
}

TEST(ProgramVerify, ValueIndexOutOfRange) {
  Spec spec;
  spec.kernel_args = {0, 0, 7, 1};
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': chain 0 instruction 0 (kernel call) refers "
            "to value 7, outside the 3 values");
}

TEST(ProgramVerify, OutputIndexOutOfRange) {
  Spec spec;
  spec.output_value = 3;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': outputs refers to value 3, outside the 3 values");
}

TEST(ProgramVerify, OperatorIndexOutOfRange) {
  Spec spec;
  spec.op_index = 1;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': chain 0 instruction 0: operator 1, but the "
            "method lists 1 operators");
}

TEST(ProgramVerify, PlannedTensorBeyondItsArena) {
  Spec spec;
  spec.offset_low = 40;  // 40 + 16 bytes > 48-byte arena
  spec.arena_size = 48;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': values[1]: planned at offset 40 + 16 bytes, "
            "beyond arena 1 of 48 bytes");
}

TEST(ProgramVerify, HighOffsetWordCounts) {
  Spec spec;
  spec.offset_high = 1;  // both tensors move up by 2^32; value 0 fails first
  EXPECT_NE(message_of(spec).find("values[0]: planned at offset 4294967296 + 16 bytes"),
            std::string::npos);
}

TEST(ProgramVerify, ArenaIndexOutOfRange) {
  Spec spec;
  spec.memory_id = 2;
  EXPECT_NE(message_of(spec).find("planned in memory arena 2, but the method has 2 arenas"),
            std::string::npos);
}

TEST(ProgramVerify, JumpTargetOutOfRange) {
  Spec spec;
  spec.add_jump = true;
  spec.jump_target = 5;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': chain 0 instruction 1: jump to instruction 5, "
            "outside the chain's 2 instructions");
  spec.jump_target = 1;
  EXPECT_TRUE(load(spec).ok());
}

TEST(ProgramVerify, UnionTypeWithoutTable) {
  Spec spec;
  spec.tensor_union_without_table = true;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': values[1]: Tensor value without its table");
}

TEST(ProgramVerify, DimOrderMustBeAPermutation) {
  Spec spec;
  spec.dim_order = {1, 1};
  EXPECT_NE(message_of(spec).find("dim_order is not a permutation of 0..1"), std::string::npos);
  spec.dim_order = {0};
  EXPECT_NE(message_of(spec).find("dim_order has 1 entries for a tensor of rank 2"),
            std::string::npos);
}

TEST(ProgramVerify, NegativeSizes) {
  Spec spec;
  spec.negative_size = -3;
  EXPECT_NE(message_of(spec).find("dimension 0 has negative size -3"), std::string::npos);
}

TEST(ProgramVerify, ConstantPastItsSegment) {
  Spec spec;
  spec.constant_past_segment = true;
  EXPECT_EQ(message_of(spec),
            "built.pte: method 'forward': values[3]: constant 1 at offset 0 + 256 bytes "
            "runs past its segment (16 bytes)");
}

}  // namespace
}  // namespace etkit
