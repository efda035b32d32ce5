#pragma once
/// @file
/// Upstream's XNNPACK delegate payload, read and checked: the optional
/// "XH00" header, the XNNGraph flatbuffer ("XN01"/"XN00") and its constant
/// data (inside the payload, or the program's named data by sha256 key).
/// Plain structs with every id resolved and every size checked, so the
/// backend and `etinspect info` never touch the flatbuffer. Needs no
/// XNNPACK library.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"

namespace etkit::xnnpack {

/// The payload's own header (upstream's XNNHeader): where the flatbuffer
/// and the constant data lie in the payload.
struct PayloadHeader {
  uint16_t length = 0;
  uint32_t flatbuffer_offset = 0;
  uint32_t flatbuffer_size = 0;
  uint32_t constant_data_offset = 0;
  uint64_t constant_data_size = 0;
};

/// Parses the header when the payload starts with one ("XH00" at byte 4).
/// Returns false in `present` for a bare flatbuffer (older payloads).
/// Fails when a region lies outside the payload.
Result<PayloadHeader> parse_payload_header(ByteSpan payload, bool& present);

/// Node kinds, numbered as the format's node union (0 is none).
enum class NodeKind : uint8_t {
  kNone = 0, kAdd, kFullyConnected, kSoftmax, kSigmoid, kStaticTranspose, kClamp,
  kConv2d, kDiv, kStaticResizeBilinear2D, kStaticConstantPad, kAvgPooling2d, kMinimum,
  kDepthwiseConv2d, kMaxPooling2d, kMultiply, kSubtract, kFloor, kConvert,
  kGlobalAvgPooling2d, kStaticReshape, kArgMaxPooling2d, kSquareRoot, kCeiling,
  kHardswish, kLeakyReLU, kMaximum, kNegate, kSquare, kELU, kAbs, kPReLU,
  kConcatenate2, kConcatenate3, kConcatenate4, kStaticSlice, kScaledDotProductAttention,
  kBatchMatrixMultiply, kConcatenate5, kConvTranspose2d, kReciprocalSquareRoot, kLog,
  kGelu, kTanh, kExp, kSin,
};
constexpr uint8_t kLastNodeKind = static_cast<uint8_t>(NodeKind::kSin);

/// The format's name of a node kind ("FullyConnected").
const char* node_kind_name(NodeKind kind);

/// Element types (XNNPACK's numbering).
enum class Datatype : uint8_t {
  kInvalid = 0, kFp32 = 1, kFp16 = 2, kQint8 = 3, kQuint8 = 4, kQint32 = 5, kQcint8 = 6,
  kQcint32 = 7, kQcint4 = 8, kQdint8 = 9, kQbint4 = 10, kQpint8 = 11, kInt32 = 12,
  kPfp32 = 13, kBf16 = 14,
};
const char* datatype_name(Datatype type);

constexpr uint32_t kNoValue = std::numeric_limits<uint32_t>::max();

/// How a quantized value maps its integers to real numbers
/// (real = (q - zero_point) * scale), as the format's QuantParams union.
enum class QuantKind : uint8_t {
  kNone,             ///< a float or int32 value
  kPerTensor,        ///< one scale and zero point (qint8, quint8, qint32)
  kPerChannel,       ///< one scale per index of channel_dim (qcint8, qcint32, qcint4)
  kPerTokenDynamic,  ///< scales computed at run time per row (qdint8)
  kPerChannelGroup,  ///< one scale per channel and group of group_size inputs (qbint4)
};
const char* quant_kind_name(QuantKind kind);

struct QuantParams {
  QuantKind kind = QuantKind::kNone;
  float scale = 1;         ///< per tensor
  int32_t zero_point = 0;  ///< per tensor; 4-bit weights always use 8
  /// Per channel: one per channel. Per channel group: [channels][groups],
  /// row-major, as the bf16 values the format stores (widened to float).
  std::vector<float> scales;
  uint32_t channel_dim = 0;
  uint32_t group_size = 0;        ///< per channel group
  uint32_t num_nonbatch_dims = 0; ///< per token: the trailing dims of one row
};

struct GraphValue {
  uint32_t id = 0;  ///< the id nodes refer to (id_out)
  Datatype datatype = Datatype::kInvalid;
  std::vector<size_t> dims;
  ByteSpan constant;        ///< empty for non-constant values
  bool external_input = false;
  bool external_output = false;
  /// For an external value, its position in the delegate call's arguments
  /// (inputs first, then outputs), as upstream's runtime binds them.
  uint32_t external_id = 0xFFFFFFFFu;
  QuantParams quant;
  /// The legacy dynamic-quantization marker (dq_datatype) of older payloads.
  Datatype dq_datatype = Datatype::kInvalid;
  bool quantized() const { return quant.kind != QuantKind::kNone; }
  size_t element_count() const;
  size_t byte_size() const;  ///< element count × element size
};

/// Parameters of convolution and pooling nodes.
struct Window2d {
  uint32_t padding_top = 0, padding_right = 0, padding_bottom = 0, padding_left = 0;
  uint32_t kernel_height = 0, kernel_width = 0;
  uint32_t stride_height = 1, stride_width = 1;
  uint32_t dilation_height = 1, dilation_width = 1;
  uint32_t group_input_channels = 0, group_output_channels = 0, groups = 1;
  uint32_t adjustment_height = 0, adjustment_width = 0;
};

struct GraphNode {
  NodeKind kind = NodeKind::kNone;
  uint32_t debug_handle = 0;
  /// Value indices (into XnnGraph::values), in the kind's order: the data
  /// input first, then filter and bias (kNoValue when absent), or the
  /// concatenated inputs.
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  uint32_t flags = 0;
  float output_min = -std::numeric_limits<float>::infinity();
  float output_max = std::numeric_limits<float>::infinity();
  Window2d window;
  /// perm (transpose), new_shape (reshape), offsets (slice), pre_paddings.
  std::vector<size_t> list_a;
  /// sizes (slice), post_paddings.
  std::vector<size_t> list_b;
  float scalar = 0;   ///< padding value, ELU alpha, leaky ReLU slope
  uint32_t axis = 0;  ///< concatenation axis
  uint32_t new_height = 0, new_width = 0;
};

struct XnnGraph {
  std::string version;
  bool has_header = false;
  std::vector<GraphValue> values;
  std::vector<GraphNode> nodes;
  /// Value indices of the delegate's inputs and outputs in the order of the
  /// call's arguments (by external id, not the payload's input_ids order).
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  /// Aligned copies of a misaligned flatbuffer or constant, which the
  /// values' constants then point into (shared: copies of a graph stay valid).
  std::vector<std::shared_ptr<const std::vector<uint64_t>>> owned_storage;
};

/// Looks up named data by key (the program's, then its .ptd files').
using NamedDataLookup = std::function<Result<ByteSpan>(const std::string& key)>;

/// Reads and checks a payload. Every id, dimension and constant size is
/// checked; constants point into `payload` or into named data, which must
/// outlive the graph, or, where those are misaligned, into the graph's own
/// aligned copies (kernels read constants as floats and int32s in place). Errors name the node or value and what is wrong.
Result<XnnGraph> read_xnn_graph(ByteSpan payload, const NamedDataLookup& named_data);

}  // namespace etkit::xnnpack
