#pragma once
// Builds small single-method programs at test time, to exercise load
// checks, tracing and memory behaviour with exactly the defect or feature
// a test needs.

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/program.h"
#include "etkit/core/scalar_type.h"

namespace etkit::test {

class ProgramBuilder {
 public:
  /// A float32 tensor value planned in arena 1 at `offset` (or unplanned
  /// when offset < 0); `dynamic` marks it DYNAMIC_BOUND.
  int32_t tensor(std::vector<int32_t> sizes, int64_t offset, bool dynamic = false,
                 ScalarType dtype = ScalarType::kFloat);
  /// The last tensor added gets `dim_order` (a permutation of its dims)
  /// instead of the default one.
  void set_dim_order(std::vector<uint8_t> dim_order) { values_.back().dim_order = std::move(dim_order); }
  /// A constant tensor whose bytes are stored in the program's constant
  /// segment, as upstream's emitter writes them (or in the inline constant
  /// buffer after legacy_constant_buffer()).
  int32_t constant_tensor(std::vector<int32_t> sizes, ScalarType dtype, std::vector<uint8_t> bytes);
  /// Constants go into Program.constant_buffer inside the flatbuffer, as
  /// older upstream exports keep them (upstream's runtime now refuses this
  /// unless built with its deprecated constant-buffer path; etkit reads it).
  void legacy_constant_buffer() { legacy_constant_buffer_ = true; }
  /// A float32 mutable buffer planned at `offset` with an initial state,
  /// as upstream writes one: data_buffer_idx indexes the offsets of the
  /// program's mutable data segment (the program then gets an eh00 header
  /// and that segment after the flatbuffer).
  int32_t mutable_buffer(std::vector<int32_t> sizes, int64_t offset, std::vector<float> initial);
  int32_t integer(int64_t value);
  int32_t none();
  int32_t tensor_list(std::vector<int32_t> items);
  /// A Tensor?[] list; an item -1 is None, as upstream's emitter writes it.
  int32_t optional_tensor_list(std::vector<int32_t> items);
  /// An IntList (its items become Int values, boxed as upstream does).
  int32_t int_list(const std::vector<int64_t>& items);
  int32_t real(double value);
  int32_t boolean(bool value);
  int32_t string(const std::string& value);
  /// Adds an instruction calling "name.overload" with `args`.
  void kernel_call(const std::string& name, const std::string& overload, std::vector<int32_t> args);
  /// Adds an instruction calling backend `backend_id` on `payload` (stored
  /// inline in the program, as upstream's emitter stores small payloads)
  /// with `args` (its inputs, then its outputs).
  void delegate_call(const std::string& backend_id, std::vector<uint8_t> payload, std::vector<int32_t> args);
  void inputs(std::vector<int32_t> values) { inputs_ = std::move(values); }
  void outputs(std::vector<int32_t> values) { outputs_ = std::move(values); }
  void arena(int64_t bytes) { arena_ = bytes; }

  std::vector<uint8_t> build() const;
  /// Builds and loads (the bytes are copied into a FileData).
  Result<Program> load() const;

 private:
  struct ValueSpec {
    enum Kind { kTensor, kInt, kNone, kTensorList, kOptionalTensorList, kIntList, kDouble, kBool, kString } kind;
    std::vector<int32_t> sizes;
    int64_t offset = -1;
    bool dynamic = false;
    int64_t int_value = 0;
    std::vector<int32_t> items;
    double double_value = 0;
    std::string text;
    ScalarType dtype = ScalarType::kFloat;
    std::vector<uint8_t> dim_order;  // empty: the default (0, 1, ...)
    int32_t constant = 0;  // index into constants_ (0: not a constant)
    int32_t mutable_index = 0;  // index into the mutable segment's offsets (0: none)
  };
  struct Call {
    int32_t op;  ///< an operator index, or for a delegate call -1 - its delegate index
    std::vector<int32_t> args;
  };
  struct Delegate {
    std::string backend_id;
    std::vector<uint8_t> payload;
  };
  std::vector<Delegate> delegates_;
  std::vector<ValueSpec> values_;
  std::vector<std::pair<std::string, std::string>> operators_;
  std::vector<Call> calls_;
  std::vector<std::vector<uint8_t>> constants_ = {{}};  // index 0 reserved
  std::vector<std::vector<uint8_t>> mutable_data_ = {{}};  // index 0 reserved
  std::vector<int32_t> inputs_, outputs_;
  int64_t arena_ = 1024;
  bool legacy_constant_buffer_ = false;
};

/// x (the input, float32[4] at offset 0) -> a = x + x (at 16) ->
/// b = a * a (the output, at `b_offset`), in a `arena`-byte arena. With b
/// at 0 the plan reuses x's bytes once x is read (as upstream plans inputs);
/// with b at 16 it puts b on bytes a still needs.
ProgramBuilder two_step_program(int64_t b_offset, int64_t arena);

/// A running sum held in a mutable buffer with an initial state, as LLM
/// programs hold their KV caches: state (value 1, initially 10, 20, 30, 40)
/// = state + x (the input, float32[4]); the output is the state.
ProgramBuilder running_sum_program();

}  // namespace etkit::test
