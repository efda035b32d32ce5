#pragma once
// A program's tables read through its binary schema, for the size and
// diff code: the verified flatbuffer with its segments located, every
// tensor that names data (constants and mutable state), what each segment
// holds, and every XNNPACK constant with the node that reads it.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "etkit/core/extended_header.h"
#include "etkit/core/scalar_type.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "flatbuffer_walk.h"

namespace etkit::inspector::detail {

/// A .pte whose program flatbuffer verified against the schema.
struct ProgramFile {
  ByteSpan file;
  ExtendedHeader header;
  uint64_t flatbuffer_end = 0;
  const reflection::Schema* schema = nullptr;
  const flatbuffers::Table* root = nullptr;

  static Result<ProgramFile> open(ByteSpan file, const std::string& name);
  size_t segment_count() const;
  /// Segment i's bytes (empty when it lies outside the file).
  ByteSpan segment(size_t i) const;
  /// Segment i's [begin, end) in the file, clipped to it; begin == end when outside.
  std::pair<uint64_t, uint64_t> segment_range(size_t i) const;
  const reflection::Object& object(const char* name) const { return object_named(*schema, name); }
};

/// A tensor value naming data (data_buffer_idx > 0): a constant, or, when
/// planned, a mutable buffer's initial state.
struct DataTensor {
  std::string method;
  size_t value = 0;
  const flatbuffers::Table* tensor = nullptr;
  uint32_t buffer = 0;
  bool planned = false;
  std::string fqn;              ///< extra_tensor_info's name, else empty
  uint64_t mutable_table = 0;   ///< its mutable_data_segments entry
  ScalarType type = ScalarType::kFloat;
  std::vector<int64_t> sizes;
  uint64_t bytes = 0;
  std::string shape() const;  ///< "float32[64, 3, 3, 3]"
};
void for_each_data_tensor(const ProgramFile& program, const std::function<void(const DataTensor&)>& visit);

using Items = std::map<uint32_t, std::pair<std::string, uint64_t>>;  // index -> (name, bytes)

/// What the program's segments hold, from the tables that refer to them.
struct SegmentUses {
  int64_t constant_segment = -1;
  std::vector<uint64_t> constant_offsets;
  Items constants;                                            // data_buffer_idx -> constant
  std::map<uint32_t, std::vector<uint64_t>> mutable_offsets;  // segment -> offsets
  std::map<uint32_t, Items> mutable_states;                   // segment -> data_buffer_idx -> tensor
  std::map<uint32_t, std::string> delegates;                  // segment -> "delegate X (method m, delegate d)"
  std::map<uint32_t, std::string> backends;                   // segment -> backend id
  std::map<uint32_t, std::string> named;                      // segment -> key
};
SegmentUses segment_uses(const ProgramFile& program);

/// A constant input of an XNNPACK node (first reader of its bytes).
struct XnnpackConstant {
  std::string delegate;  ///< as SegmentUses::delegates names it
  size_t node = 0;
  const xnnpack::GraphNode* graph_node = nullptr;
  size_t input = 0;
  const xnnpack::GraphValue* value = nullptr;
  std::string describe() const;  ///< "node 3 Conv2d (debug handle 5) input 1 [32, 3, 3, 3]"
};
/// Every XNNPACK delegate's constants, in node order; payloads that do not
/// read are skipped (their bytes stay one part).
void for_each_xnnpack_constant(const ProgramFile& program, const SegmentUses& uses,
                               const std::function<void(const XnnpackConstant&)>& visit);

}  // namespace etkit::inspector::detail
