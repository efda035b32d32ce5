#pragma once
/// @file
/// Zero-copy reader of ETDump traces (.etdp): run blocks and their events
/// are read straight from the mapped file, one view at a time.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"
#include "etkit/core/tensor.h"

namespace etdump {
struct ETDump;
struct RunData;
struct Value;
}  // namespace etdump

namespace etkit {
class FileData;
}

namespace etkit::etdump {

enum class EventKind { kProfile, kAllocation, kDebug };

const char* to_string(EventKind kind);

/// Views below borrow from the trace's bytes; valid while the ETDump lives.
struct ProfileEventView {
  std::string_view name;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string_view delegate_debug_id_str;
  ByteSpan delegate_debug_metadata;
  uint64_t start_time = 0;
  uint64_t end_time = 0;
};

struct AllocationEventView {
  int32_t allocator_id = 0;
  uint64_t allocation_size = 0;
};

/// A tensor recorded in a debug event; its data is in the debug buffer.
struct DebugTensorView {
  ScalarType scalar_type = ScalarType::kFloat;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;  ///< Byte offset of the data in the debug buffer.
};

struct DebugEventView {
  std::string_view name;
  uint64_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string_view delegate_debug_id_str;
  /// "null", "int", "bool", "float", "double", "tensor", "tensor_list",
  /// "string".
  std::string_view value_type;
  bool is_output = false;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;  ///< Float and double values.
  std::vector<DebugTensorView> tensors;  ///< One for "tensor", n for lists.
};

/// One event: exactly one of the three kinds.
struct EventView {
  EventKind kind = EventKind::kProfile;
  ProfileEventView profile;
  AllocationEventView allocation;
  DebugEventView debug;
};

/// Ticks from `start` to `end` as upstream's Inspector counts them: an end
/// before its start, both within 32 bits, wrapped around 2^32 - 1 (a 32-bit
/// timer that rolled over); any other end before its start counts 0. The
/// one rule every etkit tool times events with.
uint64_t elapsed_ticks(uint64_t start, uint64_t end);

/// Per-block counts used by summaries.
struct RunBlockStats {
  size_t profile_events = 0;
  size_t allocation_events = 0;
  size_t debug_events = 0;
  bool has_times = false;
  uint64_t first_start = 0;  ///< Smallest profile start time.
  uint64_t last_end = 0;     ///< Largest profile end time.
  size_t reversed_events = 0;  ///< Profile events that end before they start.
  size_t first_reversed = 0;   ///< Index of the first of them.
};

/// A view of a logged tensor's data in the debug buffer. Fails (naming
/// the offset and sizes) when the data lies outside the buffer or the
/// shape is invalid, as happens with a mismatched or truncated buffer.
Result<Tensor> debug_tensor(const DebugTensorView& tensor, ByteSpan debug_buffer);

class RunBlock {
 public:
  std::string_view name() const;
  int32_t bundled_input_index() const;
  size_t allocator_count() const;
  std::string_view allocator_name(size_t index) const;
  size_t event_count() const;
  /// Decodes event `index` (< event_count()).
  EventView event(size_t index) const;
  /// Only the kind of event `index`, without decoding it (for passes that
  /// look at one kind of a million events).
  EventKind event_kind(size_t index) const;
  RunBlockStats stats() const;

 private:
  friend class ETDump;
  explicit RunBlock(const ::etdump::RunData* data) : data_(data) {}
  const ::etdump::RunData* data_;
};

/// A verified trace. Loading checks the flatbuffer and that every event has
/// exactly one kind, so iteration never fails.
class ETDump {
 public:
  /// The earliest profile event's start over every block (0 without any):
  /// the origin timelines and exports measure from.
  uint64_t first_start() const;

  static Result<ETDump> load_file(const std::string& path);
  static Result<ETDump> load(std::shared_ptr<const FileData> owner,
                             std::string name);

  const std::string& name() const { return name_; }
  uint32_t version() const;
  /// Bytes of the flatbuffer (size prefix included).
  uint64_t size() const { return size_; }
  size_t block_count() const;
  RunBlock block(size_t index) const;

 private:
  ETDump() = default;
  std::shared_ptr<const FileData> owner_;
  std::string name_;
  uint64_t size_ = 0;
  const ::etdump::ETDump* root_ = nullptr;
};

}  // namespace etkit::etdump
