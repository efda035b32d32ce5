// Method load checks, inputs and dynamic shapes, caller-supplied memory,
// tracer events, and the promise that execute() never allocates.

#include "etkit/core/method.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "etkit/core/event_tracer.h"
#include "etkit/core/input_snapshot.h"
#include "etkit/core/kernel_registry.h"
#include "support/corpus.h"
#include "support/program_builder.h"
#include "support/kernels.h"

// Counts heap allocations made while `g_counting` is set. The replaced
// global new/delete pair uses malloc/free consistently; GCC cannot see the
// replacement and warns about a mismatch that does not exist.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
static std::atomic<bool> g_counting{false};
static std::atomic<size_t> g_allocations{0};
void* operator new(size_t size) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace etkit {
namespace {

using test::ProgramBuilder;

// forward(x, y) = add(x, y) on planned f32[2, 2] tensors.
ProgramBuilder add_program(bool dynamic = false) {
  ProgramBuilder b;
  const std::vector<int32_t> sizes = dynamic ? std::vector<int32_t>{4, 4} : std::vector<int32_t>{2, 2};
  const int64_t bytes = dynamic ? 64 : 16;
  const int32_t x = b.tensor(sizes, 0, dynamic);
  const int32_t y = b.tensor(sizes, bytes, dynamic);
  const int32_t alpha = b.integer(1);
  const int32_t out = b.tensor(sizes, 2 * bytes, dynamic);
  b.kernel_call("aten::add", "out", {x, y, alpha, out, out});
  b.inputs({x, y});
  b.outputs({out});
  b.arena(3 * bytes);
  return b;
}

Tensor f32(std::vector<float>& data, std::vector<int64_t> sizes) {
  return *Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {},
                       data.data(), data.size() * sizeof(float));
}

TEST(Method, RunsABuiltProgram) {
  auto program = add_program().load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  ASSERT_TRUE((*method)->set_input(0, f32(x, {2, 2})).ok());
  ASSERT_TRUE((*method)->set_input(1, f32(y, {2, 2})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  const Tensor& out = (*method)->output(0).unchecked_tensor();
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 4),
            (std::vector<float>{11, 22, 33, 44}));
}

// Float16 tensors run through the float32 kernels on staged copies; when
// every staged tensor is empty there are no bytes to stage, and the copies
// must still be float32 (softmax of an empty float16 tensor was refused as
// "unsupported dtype float16"; found by the upstream op suite).
TEST(Method, EmptyFloat16TensorsReachFloat32KernelsAsFloat32) {
  ProgramBuilder b;
  const int32_t x = b.tensor({5, 0}, 0, false, ScalarType::kHalf);
  const int32_t y = b.tensor({5, 0}, 0, false, ScalarType::kHalf);
  b.kernel_call("aten::_softmax", "out", {x, b.integer(-1), b.boolean(false), y, y});
  b.inputs({x});
  b.outputs({y});
  b.arena(16);
  const Program program = test::checked(b.load(), "program");
  const auto method = test::checked(Method::load(program, "forward", test::with_kernels()), "method");
  const Status status = method->execute();
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_EQ(method->output(0).unchecked_tensor().numel(), 0);
}

// Constants in the constant segment (as upstream's emitter writes them) and
// in the legacy inline constant buffer (as older exports keep them) read the
// same: out = x + c with c = {0.5, -1, 2, 8}.
TEST(Method, ConstantsAreReadFromTheSegmentAndFromTheLegacyInlineBuffer) {
  for (bool legacy : {false, true}) {
    ProgramBuilder b;
    if (legacy) b.legacy_constant_buffer();
    const std::vector<float> c = {0.5f, -1.f, 2.f, 8.f};
    std::vector<uint8_t> bytes(sizeof(float) * c.size());
    std::memcpy(bytes.data(), c.data(), bytes.size());
    const int32_t constant = b.constant_tensor({4}, ScalarType::kFloat, bytes);
    const int32_t x = b.tensor({4}, 0);
    const int32_t out = b.tensor({4}, 16);
    b.kernel_call("aten::add", "out", {x, constant, b.integer(1), out, out});
    b.inputs({x});
    b.outputs({out});
    b.arena(32);
    const Program program = test::checked(b.load(), "program");
    const auto method = test::checked(Method::load(program, "forward", test::with_kernels()), "method");
    std::vector<float> in = {1, 2, 3, 4};
    ASSERT_TRUE(method->set_input(0, f32(in, {4})).ok());
    ASSERT_TRUE(method->execute().ok());
    const Tensor& result = method->output(0).unchecked_tensor();
    EXPECT_EQ(std::vector<float>(result.data_as<float>(), result.data_as<float>() + 4),
              (std::vector<float>{1.5f, 1.f, 5.f, 12.f}))
        << (legacy ? "legacy inline buffer" : "constant segment");
  }
}

// x[:, idx] as upstream's emitter writes it: index.Tensor with a Tensor?[]
// whose None is the value index -1 (or an index to a None value).
TEST(Method, NoneInAnOptionalTensorListMayBeMinusOne) {
  for (bool minus_one : {true, false}) {
    ProgramBuilder b;
    const int32_t x = b.tensor({3, 4}, 0);
    const int32_t idx = b.tensor({2}, 48, false, ScalarType::kLong);
    const int32_t none = minus_one ? -1 : b.none();
    const int32_t list = b.optional_tensor_list({none, idx});
    const int32_t out = b.tensor({3, 2}, 64);
    b.kernel_call("aten::index", "Tensor_out", {x, list, out, out});
    b.inputs({x, idx});
    b.outputs({out});
    b.arena(96);
    auto program = b.load();
    ASSERT_TRUE(program.ok()) << program.error().message();
    auto method = Method::load(*program, "forward", test::with_kernels());
    ASSERT_TRUE(method.ok()) << method.error().message();
    std::vector<float> xs = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
    std::vector<int64_t> is = {3, 1};
    const int64_t idx_size = 2;
    ASSERT_TRUE((*method)->set_input(0, f32(xs, {3, 4})).ok());
    ASSERT_TRUE((*method)->set_input(1, *Tensor::make(ScalarType::kLong, Span<const int64_t>(&idx_size, 1), {},
                                                      is.data(), is.size() * sizeof(int64_t)))
                    .ok());
    ASSERT_TRUE((*method)->execute().ok());
    const Tensor& y = (*method)->output(0).unchecked_tensor();
    EXPECT_EQ(std::vector<float>(y.data_as<float>(), y.data_as<float>() + 6),
              (std::vector<float>{3, 1, 13, 11, 23, 21}));
  }
}

// x[:, mask] as upstream's emitter writes it: a bool mask after a None.
TEST(Method, BoolMaskAfterANoneSelectsColumns) {
  ProgramBuilder b;
  const int32_t x = b.tensor({3, 4}, 0);
  const int32_t mask = b.tensor({4}, 48, false, ScalarType::kBool);
  const int32_t list = b.optional_tensor_list({-1, mask});
  const int32_t out = b.tensor({3, 4}, 64);
  b.kernel_call("aten::index", "Tensor_out", {x, list, out, out});
  b.inputs({x, mask});
  b.outputs({out});
  b.arena(112);
  auto program = b.load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> xs = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  uint8_t ms[4] = {1, 0, 0, 1};
  const int64_t four = 4;
  ASSERT_TRUE((*method)->set_input(0, f32(xs, {3, 4})).ok());
  ASSERT_TRUE((*method)->set_input(1, *Tensor::make(ScalarType::kBool, Span<const int64_t>(&four, 1), {}, ms, 4)).ok());
  ASSERT_TRUE((*method)->execute().ok());
  const Tensor& y = (*method)->output(0).unchecked_tensor();
  ASSERT_EQ(y.size(1), 2);
  EXPECT_EQ(std::vector<float>(y.data_as<float>(), y.data_as<float>() + 6), (std::vector<float>{0, 3, 10, 13, 20, 23}));
}

TEST(Method, MissingMethodListsTheAvailableOnes) {
  auto program = add_program().load();
  auto method = Method::load(*program, "backward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  EXPECT_STREQ(method.error().message(), "built.pte: no method 'backward' (methods: forward)");
}

TEST(Method, WrongArgumentTypeIsRejectedAtLoad) {
  ProgramBuilder b;
  const int32_t x = b.tensor({2}, 0), y = b.tensor({2}, 8), out = b.tensor({2}, 16);
  b.kernel_call("aten::add", "out", {x, y, y, out, out});  // alpha is a tensor
  b.inputs({x, y});
  b.outputs({out});
  auto method = Method::load(*b.load(), "forward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  EXPECT_STREQ(method.error().message(),
               "built.pte: method 'forward': chain 0 instruction 0 (aten::add.out): argument 2 "
               "is tensor, expected scalar");
}

TEST(Method, WrongArgumentCountIsRejectedAtLoad) {
  ProgramBuilder b;
  const int32_t x = b.tensor({2}, 0), out = b.tensor({2}, 8);
  b.kernel_call("aten::relu", "out", {x, out});
  b.inputs({x});
  b.outputs({out});
  auto method = Method::load(*b.load(), "forward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  EXPECT_NE(std::string(method.error().message()).find("2 arguments, the kernel takes 3"),
            std::string::npos);
}

TEST(Method, ReadingAValueNothingWroteIsRejectedAtLoad) {
  ProgramBuilder b;
  const int32_t x = b.tensor({2}, 0);
  const int32_t ghost = b.tensor({2}, -1);  // no memory, not an input
  const int32_t alpha = b.integer(1);
  const int32_t out = b.tensor({2}, 8);
  b.kernel_call("aten::add", "out", {x, ghost, alpha, out, out});
  b.inputs({x});
  b.outputs({out});
  auto method = Method::load(*b.load(), "forward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  EXPECT_STREQ(method.error().message(),
               "built.pte: method 'forward': chain 0 instruction 0 (aten::add.out): argument 1 "
               "reads value 1, which has no memory and is not written by any earlier "
               "instruction");
}

TEST(Method, UnknownOperatorsAreAllListed) {
  ProgramBuilder b;
  const int32_t x = b.tensor({2}, 0), out = b.tensor({2}, 8);
  b.kernel_call("my::first", "out", {x, out, out});
  b.kernel_call("my::second", "", {x, out, out});
  b.inputs({x});
  b.outputs({out});
  auto method = Method::load(*b.load(), "forward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  EXPECT_STREQ(method.error().message(),
               "built.pte: method 'forward': no kernel for 2 operators: my::first.out, my::second");
}

// Missing kernels are found before any memory is allocated: with a memory
// limit the planned arena would exceed, the error is still the kernels'.
TEST(Method, MissingKernelsAreReportedBeforeAnyAllocation) {
  ProgramBuilder b = add_program();
  b.arena(int64_t(1) << 40);
  auto program = b.load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  KernelRegistry empty;
  MethodOptions options;
  options.kernels = &empty;
  options.memory_limit = 1024;
  auto method = Method::load(*program, "forward", options);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::kMissingKernel) << method.error().message();
}

TEST(Method, ArenasBeyondTheMachineAreRefusedNamingTheArena) {
  ProgramBuilder b = add_program();
  b.arena(2 << 20);
  auto program = b.load();
  ASSERT_TRUE(program.ok());
  MethodOptions options = test::with_kernels();
  options.available_memory = 1 << 20;
  auto method = Method::load(*program, "forward", options);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(method.error().message()).find("memory arena 1 asks for 2097152 bytes"), std::string::npos)
      << method.error().message();
  options.available_memory = 4 << 20;
  EXPECT_TRUE(Method::load(*program, "forward", options).ok());
}

TEST(Method, DynamicInputsResizeWithinTheirBound) {
  auto program = add_program(/*dynamic=*/true).load();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> x(6, 1.5f), y(6, 2.0f);
  ASSERT_TRUE((*method)->set_input(0, f32(x, {2, 3})).ok());
  ASSERT_TRUE((*method)->set_input(1, f32(y, {2, 3})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  const Tensor& out = (*method)->output(0).unchecked_tensor();
  EXPECT_EQ(out.dim(), 2);
  EXPECT_EQ(out.size(0), 2);
  EXPECT_EQ(out.size(1), 3);
  EXPECT_EQ(out.data_as<float>()[5], 3.5f);
  std::vector<float> big(20, 0.f);
  Status too_big = (*method)->set_input(0, f32(big, {5, 4}));
  ASSERT_FALSE(too_big.ok());
  EXPECT_STREQ(too_big.error().message(),
               "method 'forward': input 0: resize to 20 elements needs 80 bytes, more than the "
               "64 planned for it (its upper bound)");
}

TEST(Method, StaticInputsRejectOtherShapesAndDtypes) {
  auto program = add_program().load();
  auto method = Method::load(*program, "forward", test::with_kernels());
  std::vector<float> wrong(6, 0.f);
  EXPECT_FALSE((*method)->set_input(0, f32(wrong, {2, 3})).ok());
  std::vector<int32_t> ints(4, 1);
  std::vector<int64_t> sizes = {2, 2};
  auto int_tensor = Tensor::make(ScalarType::kInt, Span<const int64_t>(sizes.data(), 2), {},
                                 ints.data(), 16);
  Status status = (*method)->set_input(0, *int_tensor);
  ASSERT_FALSE(status.ok());
  EXPECT_STREQ(status.error().message(), "method 'forward': input 0 must be float32, got int32");
}

// Upstream's runtime never resizes a static tensor ("Attempted to resize a
// static tensor"), even to fewer elements than it holds: a smaller image
// given to a fixed-size model is an error naming the input and both shapes,
// not logits computed from a half-filled buffer.
TEST(Method, StaticInputsRejectSmallerShapesThatWouldFitTheirBytes) {
  auto program = add_program().load();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> half(2, 1.f), reshaped(4, 1.f);
  Status smaller = (*method)->set_input(0, f32(half, {1, 2}));
  ASSERT_FALSE(smaller.ok());
  EXPECT_STREQ(smaller.error().message(), "method 'forward': input 0 has a static shape [2, 2]; got [1, 2]");
  Status same_bytes = (*method)->set_input(1, f32(reshaped, {1, 4}));
  ASSERT_FALSE(same_bytes.ok());
  EXPECT_STREQ(same_bytes.error().message(), "method 'forward': input 1 has a static shape [2, 2]; got [1, 4]");
  EXPECT_TRUE((*method)->set_input(0, f32(reshaped, {2, 2})).ok());
}

TEST(Method, UsesCallerSuppliedArenas) {
  auto program = add_program().load();
  alignas(64) static uint8_t arena[48];
  MethodOptions options;
  options.kernels = &all_kernels();
  options.arenas = {Span<uint8_t>(), Span<uint8_t>(arena, sizeof(arena))};
  auto method = Method::load(*program, "forward", options);
  ASSERT_TRUE(method.ok()) << method.error().message();
  const void* out = (*method)->output(0).unchecked_tensor().data();
  EXPECT_EQ(out, arena + 32);  // planned offset of the output
  alignas(64) static uint8_t small[16];
  options.arenas[1] = Span<uint8_t>(small, sizeof(small));
  auto too_small = Method::load(*program, "forward", options);
  ASSERT_FALSE(too_small.ok());
  EXPECT_NE(std::string(too_small.error().message()).find("caller arena 1 has 16 bytes, the plan needs 48"),
            std::string::npos);
}

TEST(Method, MemoryLimitBoundsWhatAFileCanMakeItAllocate) {
  ProgramBuilder b = add_program();
  b.arena(int64_t{1} << 30);  // a plan asking for 1 GiB
  auto program = b.load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  MethodOptions options;
  options.kernels = &all_kernels();
  options.memory_limit = 64u << 20;
  auto refused = Method::load(*program, "forward", options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kOutOfMemory);
  EXPECT_NE(std::string(refused.error().message()).find("over the memory limit of 67108864"),
            std::string::npos)
      << refused.error().message();
  // The limit counts everything the method allocates: the 48-byte plan
  // fits alone, not with the 4 MiB kernel scratch.
  auto small = add_program().load();
  options.memory_limit = 1024;
  EXPECT_FALSE(Method::load(*small, "forward", options).ok());
  alignas(64) static uint8_t scratch[kKernelScratchBytes];
  options.kernel_scratch = Span<uint8_t>(scratch, sizeof scratch);
  EXPECT_TRUE(Method::load(*small, "forward", options).ok());
}

TEST(Method, PlannedMemoryStartsZeroed) {
  // out = x + y where y is never set: it reads as zeros, every load.
  auto program = add_program().load();
  for (int load = 0; load < 2; ++load) {
    auto method = Method::load(*program, "forward", test::with_kernels());
    ASSERT_TRUE(method.ok()) << method.error().message();
    std::vector<float> x = {1, 2, 3, 4};
    ASSERT_TRUE((*method)->set_input(0, f32(x, {2, 2})).ok());
    ASSERT_TRUE((*method)->execute().ok());
    const Tensor& out = (*method)->output(0).unchecked_tensor();
    EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 4), x);
  }
}

// Kernels read bool tensors as C++ bool, for which bytes other than 0 and 1
// are undefined: such bytes are refused where they enter.
TEST(Method, BoolBytesOtherThanZeroAndOneAreRefusedAtTheBoundary) {
  ProgramBuilder b;
  const int32_t mask = b.tensor({4}, 0, false, ScalarType::kBool);
  const int32_t out = b.tensor({4}, 16, false, ScalarType::kBool);
  b.kernel_call("aten::logical_not", "out", {mask, out, out});
  b.inputs({mask});
  b.outputs({out});
  b.arena(32);
  auto program = b.load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<uint8_t> bytes = {0, 1, 2, 0};
  const int64_t sizes[] = {4};
  auto input = Tensor::make(ScalarType::kBool, Span<const int64_t>(sizes, 1), {}, bytes.data(), 4);
  const Status refused = (*method)->set_input(0, *input);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.error().message()).find("input 0: bool element 2 holds 2"),
            std::string::npos)
      << refused.error().message();
  bytes[2] = 1;
  EXPECT_TRUE((*method)->set_input(0, *input).ok());

  ProgramBuilder c;
  const int32_t constant = c.constant_tensor({4}, ScalarType::kBool, {1, 0, 7, 0});
  const int32_t not_out = c.tensor({4}, 0, false, ScalarType::kBool);
  c.kernel_call("aten::logical_not", "out", {constant, not_out, not_out});
  c.outputs({not_out});
  c.arena(16);
  auto with_constant = c.load();
  ASSERT_TRUE(with_constant.ok()) << with_constant.error().message();
  auto bad_constant = Method::load(*with_constant, "forward", test::with_kernels());
  ASSERT_FALSE(bad_constant.ok());
  EXPECT_NE(std::string(bad_constant.error().message()).find("constant bool element 2 holds 7"),
            std::string::npos)
      << bad_constant.error().message();
}

// Records what the runtime reports, in order.
class RecordingTracer : public EventTracer {
 public:
  std::vector<std::string> events;
  void create_event_block(const char* name) override { events.push_back(std::string("block ") + name); }
  EventTracerEntry start_profiling(const char* name, int32_t chain, int32_t instruction) override {
    EventTracerEntry entry;
    entry.name = name;
    entry.chain_id = chain;
    entry.instruction_id = instruction;
    return entry;
  }
  void end_profiling(EventTracerEntry e) override {
    events.push_back(std::string(e.name) + " " + std::to_string(e.chain_id) + " " +
                     std::to_string(e.instruction_id));
  }
  EventTracerEntry start_profiling_delegate(const char*, int32_t) override { return {}; }
  void end_profiling_delegate(EventTracerEntry, ByteSpan) override {}
  void log_profiling_delegate(const char*, int32_t, uint64_t, uint64_t, ByteSpan) override {}
  int32_t track_allocator(const char* name) override {
    events.push_back(std::string("allocator ") + name);
    return 0;
  }
  void track_allocation(int32_t, uint64_t size) override {
    events.push_back("allocation " + std::to_string(size));
  }
  bool wants_values(LoggedValueKind) const override { return true; }
  void log_value(const Value& value, LoggedValueKind kind, int32_t, int32_t instruction,
                 const char* name) override {
    events.push_back(std::string(kind == LoggedValueKind::kProgramOutput ? "output " : "value ") +
                     name + " " + std::to_string(instruction) + " " + to_string(value.tag()));
  }
  void set_bundled_input_index(int32_t) override {}
};

TEST(Method, TracerSeesEveryStepNamedAsUpstream) {
  auto program = add_program().load();
  RecordingTracer tracer;
  MethodOptions options;
  options.kernels = &all_kernels();
  options.tracer = &tracer;
  auto method = Method::load(*program, "forward", options);
  ASSERT_TRUE(method.ok());
  std::vector<float> x(4, 1.f), y(4, 2.f);
  ASSERT_TRUE((*method)->set_input(0, f32(x, {2, 2})).ok());
  ASSERT_TRUE((*method)->set_input(1, f32(y, {2, 2})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  // Events are recorded when they end, so inner ones come first, as in
  // upstream's traces (corpus upstream-runtime/tutorial_cnn_intermediates):
  // the out argument's value is logged inside the kernel's event, so before
  // native_call and its OPERATOR_CALL; outputs at chain -1, instruction 0.
  EXPECT_EQ(tracer.events, (std::vector<std::string>{
                               "allocator planned_memory", "allocation 48",
                               "Method::init -1 0", "Program::load_method -1 0", "block Execute",
                               "value aten::add.out 0 tensor", "native_call_add.out 0 0",
                               "OPERATOR_CALL 0 0", "Method::execute -1 0",
                               "output output 0 tensor"}));
}

// upstream's LLM export leaves the token input without planned memory: it
// holds the caller's data once set_input borrows it. Executing before that
// is an error naming the input (a kernel read through a null pointer
// before); a dynamic one takes fewer tokens than its bound.
TEST(Method, AnUnplannedInputMustBeSetBeforeExecuteAndMayTakeFewerTokens) {
  auto program = Program::load_file(std::string(ETKIT_SOURCE_DIR) + "/samples/tiny_llama_dynamic/tiny_llama_dynamic.pte");
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  // make_tiny_llama.py exports with max_seq_len 128; upstream's export_llm
  // bounds the token dimension at max_seq_len - 1.
  constexpr int64_t kTokenBound = 127;
  EXPECT_FALSE((*method)->input_is_static(0));
  EXPECT_EQ((*method)->input(0).unchecked_tensor().size(1), kTokenBound);
  Status early = (*method)->execute();
  ASSERT_FALSE(early.ok());
  EXPECT_NE(std::string(early.error().message()).find("input 0 has no planned memory and was not set"),
            std::string::npos)
      << early.error().message();
  int64_t tokens[3] = {1, 2, 3}, position = 0;
  const int64_t token_sizes[2] = {1, 3}, position_sizes[1] = {1};
  auto token_view = Tensor::make(ScalarType::kLong, Span<const int64_t>(token_sizes, 2), {}, tokens, sizeof tokens);
  auto position_view = Tensor::make(ScalarType::kLong, Span<const int64_t>(position_sizes, 1), {}, &position,
                                    sizeof position);
  ASSERT_TRUE((*method)->set_input(0, *token_view).ok());
  ASSERT_TRUE((*method)->set_input(1, *position_view).ok());
  EXPECT_TRUE((*method)->execute().ok());
  int64_t too_many[kTokenBound + 1] = {};
  const int64_t over_sizes[2] = {1, kTokenBound + 1};
  auto over = Tensor::make(ScalarType::kLong, Span<const int64_t>(over_sizes, 2), {}, too_many, sizeof too_many);
  EXPECT_FALSE((*method)->set_input(0, *over).ok());  // past the bound
}

TEST(Method, ExecuteAllocatesNothing) {
  for (const char* file : {"upstream/pte/maxpool2d.pte", "upstream/pte/softmax.pte",
                           "upstream/pte/module_linear_inline_constants.pte"}) {
    auto program = Program::load_file(test::corpus(file));
    ASSERT_TRUE(program.ok());
    auto method = Method::load(*program, "forward", test::with_kernels());
    ASSERT_TRUE(method.ok()) << method.error().message();
    std::vector<std::vector<float>> buffers;
    for (size_t i = 0; i < (*method)->input_count(); ++i) {
      const Tensor& spec = (*method)->input(i).unchecked_tensor();
      buffers.emplace_back(size_t(spec.numel()), 0.5f);
      auto view = Tensor::make(spec.scalar_type(), spec.sizes(), spec.dim_order(),
                               buffers.back().data(), spec.nbytes());
      ASSERT_TRUE((*method)->set_input(i, *view).ok());
    }
    g_allocations = 0;
    g_counting = true;
    Status status = (*method)->execute();
    g_counting = false;
    ASSERT_TRUE(status.ok()) << status.error().message();
    EXPECT_EQ(g_allocations.load(), 0u) << file;
  }
}

// The planner lets b = (x + x)^2 reuse x's bytes once x is read (as
// upstream plans inputs: lifetime [0, last use]), so a second execute
// without the inputs put back computes on b: 1 -> 4, then 4 -> 64.
TEST(InputSnapshot, RestoredInputsMakeEveryRunTheSame) {
  auto program = test::two_step_program(0, 32).load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> ones(4, 1.f);
  ASSERT_TRUE((*method)->set_input(0, f32(ones, {4})).ok());
  const InputSnapshot snapshot = InputSnapshot::capture(**method);
  auto first_output = [&] { return (*method)->output(0).unchecked_tensor().data_as<float>()[0]; };
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(first_output(), 4.f);
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(first_output(), 64.f);  // what the input's bytes held: the previous output
  ASSERT_TRUE(snapshot.restore(**method).ok());
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(first_output(), 4.f);
}

// The buffer starts as the program's initial data, keeps what each execute
// wrote, and reset_state() puts it back.
TEST(MutableBuffers, InitialStateIsCopiedInAtLoadAndKeptAcrossExecutions) {
  auto program = test::running_sum_program().load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok()) << method.error().message();
  EXPECT_EQ((*method)->initial_state_values(), (std::vector<size_t>{1}));
  auto state = [&] {
    const float* d = (*method)->output(0).unchecked_tensor().data_as<float>();
    return std::vector<float>(d, d + 4);
  };
  EXPECT_EQ(state(), (std::vector<float>{10, 20, 30, 40}));  // before any execute
  std::vector<float> x = {1, 2, 3, 4};
  ASSERT_TRUE((*method)->set_input(0, f32(x, {4})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(state(), (std::vector<float>{11, 22, 33, 44}));
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(state(), (std::vector<float>{12, 24, 36, 48}));
  (*method)->reset_state();
  EXPECT_EQ(state(), (std::vector<float>{10, 20, 30, 40}));
  ASSERT_TRUE((*method)->set_input(0, f32(x, {4})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(state(), (std::vector<float>{11, 22, 33, 44}));
  // A second method loaded from the same program starts from the initial state.
  auto fresh = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->output(0).unchecked_tensor().data_as<float>()[0], 10.f);
}

// A copy of the method (as a traced run loads one) takes the state, runs
// one step, and gives the state back: the sums continue as if every step
// ran on one method (hand-derived: 10 + 1 + 1 + 1 ...).
TEST(MutableBuffers, StateMovesBetweenCopiesOfOneMethod) {
  auto program = test::running_sum_program().load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  auto copy = Method::load(*program, "forward", test::with_kernels());
  ASSERT_TRUE(method.ok() && copy.ok());
  auto first = [](Method& m) { return m.output(0).unchecked_tensor().data_as<float>()[0]; };
  std::vector<float> x = {1, 2, 3, 4};
  ASSERT_TRUE((*method)->set_input(0, f32(x, {4})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(first(**method), 11.f);
  ASSERT_TRUE((*copy)->copy_state_from(**method).ok());
  ASSERT_TRUE((*copy)->set_input(0, f32(x, {4})).ok());
  ASSERT_TRUE((*copy)->execute().ok());
  EXPECT_EQ(first(**copy), 12.f);
  ASSERT_TRUE((*method)->copy_state_from(**copy).ok());
  ASSERT_TRUE((*method)->set_input(0, f32(x, {4})).ok());
  ASSERT_TRUE((*method)->execute().ok());
  EXPECT_EQ(first(**method), 13.f);
  // Another method's plan is refused.
  auto other = test::two_step_program(0, 32).load();
  ASSERT_TRUE(other.ok());
  auto stranger = Method::load(*other, "forward", test::with_kernels());
  ASSERT_TRUE(stranger.ok());
  const Status refused = (*method)->copy_state_from(**stranger);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.error().message()).find("planned otherwise"), std::string::npos);
  EXPECT_EQ(first(**method), 13.f);
}

}  // namespace
}  // namespace etkit
