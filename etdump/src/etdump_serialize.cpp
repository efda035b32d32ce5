// Builds the ETDump flatbuffer from the recorded trace, after the runs.

#include "etdump_gen_state.h"
#include "etkit/core/atomic_file.h"
#include "etdump_generated.h"

namespace etkit::etdump {
namespace fb = ::etdump;
namespace {

// Name of the debug event that reports events dropped from a block.
constexpr const char* kDroppedEventsName = "ETDUMP_DROPPED_EVENTS";

flatbuffers::Offset<flatbuffers::String> string_of(flatbuffers::FlatBufferBuilder& b,
                                                   const ETDumpGen::State& s, PooledString p) {
  if (p.length == 0) return 0;
  return b.CreateString(s.pool.data() + p.offset, p.length);
}

flatbuffers::Offset<fb::Tensor> tensor_of(flatbuffers::FlatBufferBuilder& b, const TensorRecord& t) {
  auto sizes = b.CreateVector(t.sizes, t.rank);
  auto strides = b.CreateVector(t.strides, t.rank);
  return fb::CreateTensor(b, static_cast<executorch_flatbuffer::ScalarType>(t.dtype), sizes,
                          strides, t.offset);
}

flatbuffers::Offset<fb::Value> value_of(flatbuffers::FlatBufferBuilder& b, const ETDumpGen::State& s,
                                        const ETDumpGen::Record& r) {
  flatbuffers::Offset<fb::Tensor> tensor = 0;
  flatbuffers::Offset<fb::TensorList> list = 0;
  flatbuffers::Offset<fb::Int> int_value = 0;
  flatbuffers::Offset<fb::Bool> bool_value = 0;
  flatbuffers::Offset<fb::Double> double_value = 0;
  switch (r.value_kind) {
    case ValueKind::kTensor:
      if (r.tensor_count == 1) tensor = tensor_of(b, s.tensors[r.tensor_first]);
      break;
    case ValueKind::kTensorList: {
      std::vector<flatbuffers::Offset<fb::Tensor>> items;
      for (uint32_t i = 0; i < r.tensor_count; ++i) items.push_back(tensor_of(b, s.tensors[r.tensor_first + i]));
      list = fb::CreateTensorList(b, b.CreateVector(items));
      break;
    }
    case ValueKind::kInt: int_value = fb::CreateInt(b, r.int_value); break;
    case ValueKind::kBool: bool_value = fb::CreateBool(b, r.int_value != 0); break;
    case ValueKind::kDouble: double_value = fb::CreateDouble(b, r.double_value); break;
    default: break;
  }
  // Upstream marks program outputs only; intermediate outputs carry no flag.
  flatbuffers::Offset<fb::Bool> output = 0;
  if (r.is_output) output = fb::CreateBool(b, true);
  return fb::CreateValue(b, static_cast<fb::ValueType>(r.value_kind), tensor, list, int_value, 0,
                         double_value, bool_value, output);
}

flatbuffers::Offset<fb::Event> event_of(flatbuffers::FlatBufferBuilder& b, const ETDumpGen::State& s,
                                        const ETDumpGen::Record& r, double ns_per_tick) {
  switch (r.kind) {
    case RecordKind::kProfile: {
      auto name = string_of(b, s, r.name);
      auto delegate_str = string_of(b, s, r.delegate_str);
      flatbuffers::Offset<flatbuffers::Vector<uint8_t>> metadata = 0;
      if (r.metadata.length > 0) {
        metadata = b.CreateVector(reinterpret_cast<const uint8_t*>(s.pool.data() + r.metadata.offset),
                                  r.metadata.length);
      }
      // Ticks become nanoseconds here, so every trace has one unit.
      const auto to_ns = [ns_per_tick](uint64_t ticks) {
        return ns_per_tick == 1.0 ? ticks : static_cast<uint64_t>(double(ticks) * ns_per_tick);
      };
      auto event = fb::CreateProfileEvent(b, name, r.chain, r.instruction, r.delegate_int,
                                          delegate_str, metadata, to_ns(r.start), to_ns(r.end));
      return fb::CreateEvent(b, event);
    }
    case RecordKind::kAllocation:
      return fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, int32_t(r.start), r.end));
    case RecordKind::kDebug: {
      auto name = string_of(b, s, r.name);
      auto value = value_of(b, s, r);
      // Chain -1 (program outputs) is stored as upstream's size_t -1.
      auto event = fb::CreateDebugEvent(b, static_cast<uint64_t>(int64_t(r.chain)),
                                        r.instruction, value, r.delegate_int, 0, name);
      return fb::CreateEvent(b, 0, 0, event);
    }
  }
  return 0;
}

}  // namespace

Result<std::vector<uint8_t>> ETDumpGen::serialize() const {
  const State& s = *state_;
  flatbuffers::FlatBufferBuilder b(1024 + s.records.size() * 64);
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  for (size_t index = 0; index < s.blocks.size(); ++index) {
    const BlockRecord& block = s.blocks[index];
    std::vector<flatbuffers::Offset<fb::Event>> events;
    for (size_t e = 0; e < block.event_count; ++e) {
      events.push_back(event_of(b, s, s.records[block.first_event + e], options_.clock.ns_per_tick));
    }
    if (block.dropped_events > 0) {
      // The format has no field for it; a named debug event carries the count.
      auto value = fb::CreateValue(b, fb::ValueType::Int, 0, 0,
                                   fb::CreateInt(b, int64_t(block.dropped_events)));
      events.push_back(fb::CreateEvent(
          b, 0, 0, fb::CreateDebugEvent(b, 0, -1, value, -1, 0, b.CreateString(kDroppedEventsName))));
    }
    std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
    for (const AllocatorRecord& allocator : s.allocators) {
      if (allocator.block == index) {
        allocators.push_back(fb::CreateAllocator(b, string_of(b, s, allocator.name)));
      }
    }
    auto name = string_of(b, s, block.name);
    runs.push_back(fb::CreateRunData(b, name, block.bundled_input_index,
                                     allocators.empty() ? 0 : b.CreateVector(allocators),
                                     b.CreateVector(events)));
  }
  auto root = fb::CreateETDump(b, 0, b.CreateVector(runs));
  fb::FinishSizePrefixedETDumpBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Status ETDumpGen::write(const std::string& path) const {
  ETKIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, serialize());
  // Whole or not at all: an interrupted run leaves no half trace behind.
  return write_file_atomically(path, ByteSpan{bytes.data(), bytes.size()});
}

}  // namespace etkit::etdump
