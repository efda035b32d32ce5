#pragma once
// The in-memory form of a trace while it is recorded: fixed-size records in
// storage reserved up front, plus pools for strings and tensor shapes.
// Shared by the recorder (etdump_gen.cpp) and the writer
// (etdump_serialize.cpp).

#include <cstdint>
#include <vector>

#include "etkit/core/tensor.h"
#include "etkit/etdump/etdump_gen.h"

namespace etkit::etdump {

enum class RecordKind : uint8_t { kProfile, kAllocation, kDebug };

/// Debug value kinds, numbered as the schema's ValueType.
enum class ValueKind : uint8_t { kNull = 0, kInt, kBool, kFloat, kDouble, kTensor, kTensorList, kString };

/// A pooled string: offset into State::pool and length; length 0 = none.
struct PooledString {
  uint32_t offset = 0;
  uint32_t length = 0;
};

struct ETDumpGen::Record {
  RecordKind kind = RecordKind::kProfile;
  ValueKind value_kind = ValueKind::kNull;
  bool is_output = false;
  int32_t chain = 0;
  int32_t instruction = -1;
  int32_t delegate_int = -1;
  PooledString name;
  PooledString delegate_str;
  PooledString metadata;
  uint64_t start = 0;  // profile start; allocation: allocator id
  uint64_t end = 0;    // profile end; allocation: size
  int64_t int_value = 0;
  double double_value = 0;
  uint32_t tensor_first = 0;
  uint32_t tensor_count = 0;
};

struct TensorRecord {
  ScalarType dtype = ScalarType::kFloat;
  uint8_t rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  int64_t offset = -1;  // in the debug buffer; -1 when the data was dropped
};

struct BlockRecord {
  PooledString name;
  int32_t bundled_input_index = -1;
  size_t first_event = 0;
  size_t event_count = 0;
  size_t dropped_events = 0;
};

struct AllocatorRecord {
  size_t block = 0;  // index of the block it was registered in
  PooledString name;
};

struct ETDumpGen::State {
  // Sized (not just reserved) at construction so its pages are committed
  // before any run: first-touch page faults would otherwise land inside
  // the timed region. `record_count` of them are in use.
  std::vector<Record> records;
  size_t record_count = 0;
  std::vector<BlockRecord> blocks;
  std::vector<TensorRecord> tensors;  // reserved; used for logged values only
  std::vector<AllocatorRecord> allocators;
  std::vector<char> pool;
  size_t pool_used = 0;
  // Open-addressing table: name pointer -> pooled copy (names handed to the
  // tracer by the runtime are stable, so the pointer is the identity).
  std::vector<const char*> intern_keys;
  std::vector<PooledString> intern_values;
  size_t debug_used = 0;
  size_t dropped_events = 0;
  size_t dropped_blocks = 0;
  size_t dropped_values = 0;
  size_t dropped_strings = 0;
  size_t intermediate_values = 0;
};

}  // namespace etkit::etdump
