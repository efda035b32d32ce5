// Node tables of the XNNGraph format → GraphNode. Kinds share parameter
// tables (the format's _XNNNode1x1 and friends), so each table has one
// reader and the kind only selects it.

#include "node_params.h"

#include "xnnpack_graph_generated.h"

namespace etkit::xnnpack {
namespace fb = etkit_xnnpack_fb;
namespace {

void read(const fb::Node1x1& t, GraphNode& n) {
  n.inputs = {t.input_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::Node2x1& t, GraphNode& n) {
  n.inputs = {t.input1_id(), t.input2_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::FullyConnected& t, GraphNode& n) {
  n.inputs = {t.input1_id(), t.filter_id(), t.bias_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

// Padding fields, named alike in every windowed node's table.
template <typename Table>
void read_padding(const Table& t, Window2d& w) {
  w.padding_top = t.padding_top();
  w.padding_right = t.padding_right();
  w.padding_bottom = t.padding_bottom();
  w.padding_left = t.padding_left();
}

void read(const fb::NodeConv& t, GraphNode& n) {
  Window2d& w = n.window;
  read_padding(t, w);
  w.kernel_height = t.kernel_height();
  w.kernel_width = t.kernel_width();
  w.stride_height = t.subsampling_height();
  w.stride_width = t.subsampling_width();
  w.dilation_height = t.dilation_height();
  w.dilation_width = t.dilation_width();
  w.group_input_channels = t.group_input_channels();
  w.group_output_channels = t.group_output_channels();
  w.groups = t.groups();
  w.adjustment_height = t.adjustment_height();
  w.adjustment_width = t.adjustment_width();
  n.inputs = {t.input1_id(), t.filter_id(), t.bias_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::Pooling2D& t, GraphNode& n) {
  Window2d& w = n.window;
  read_padding(t, w);
  w.kernel_height = t.pooling_height();
  w.kernel_width = t.pooling_width();
  w.stride_height = t.stride_height();
  w.stride_width = t.stride_width();
  w.dilation_height = t.dilation_height();
  w.dilation_width = t.dilation_width();
  n.inputs = {t.input_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::ArgMaxPooling2d& t, GraphNode& n) {
  Window2d& w = n.window;
  read_padding(t, w);
  w.kernel_height = t.pooling_height();
  w.kernel_width = t.pooling_width();
  n.inputs = {t.input_id()};
  n.outputs = {t.output_value_id(), t.output_index_id()};
  n.flags = t.flags();
}

void read(const fb::Cat& t, GraphNode& n, size_t count) {
  const uint32_t ids[] = {t.input1_id(), t.input2_id(), t.input3_id(), t.input4_id(),
                          t.input5_id()};
  n.inputs.assign(ids, ids + count);
  n.outputs = {t.output_id()};
  n.axis = t.axis();
  n.flags = t.flags();
}

std::vector<size_t> list_of(const flatbuffers::Vector<uint32_t>* v) {
  std::vector<size_t> out;
  if (v != nullptr) out.assign(v->begin(), v->end());
  return out;
}

Status read_listed(const fb::Node& node, GraphNode& n) {
  switch (node.node_type()) {
    case fb::NodeUnion::StaticTranspose: {
      const auto& t = *node.node_as_StaticTranspose();
      n.list_a = list_of(t.perm());
      if (n.list_a.size() != t.num_dims()) break;
      n.inputs = {t.input_id()};
      n.outputs = {t.output_id()};
      n.flags = t.flags();
      return Ok{};
    }
    case fb::NodeUnion::StaticReshape: {
      const auto& t = *node.node_as_StaticReshape();
      n.list_a = list_of(t.new_shape());
      if (n.list_a.size() != t.num_dims()) break;
      n.inputs = {t.input_id()};
      n.outputs = {t.output_id()};
      n.flags = t.flags();
      return Ok{};
    }
    case fb::NodeUnion::StaticSlice: {
      const auto& t = *node.node_as_StaticSlice();
      n.list_a = list_of(t.offsets());
      n.list_b = list_of(t.sizes());
      if (n.list_a.size() != t.num_dims() || n.list_b.size() != t.num_dims()) break;
      n.inputs = {t.input_id()};
      n.outputs = {t.output_id()};
      n.flags = t.flags();
      return Ok{};
    }
    case fb::NodeUnion::StaticConstantPad: {
      const auto& t = *node.node_as_StaticConstantPad();
      n.list_a = list_of(t.pre_paddings());
      n.list_b = list_of(t.post_paddings());
      if (n.list_a.size() != n.list_b.size()) break;
      n.scalar = t.padding_value();
      n.inputs = {t.input_id()};
      n.outputs = {t.output_id()};
      n.flags = t.flags();
      return Ok{};
    }
    default:
      return Error::make(ErrorCode::kInternal, "not a listed node");
  }
  return Error::make(ErrorCode::kMalformed, "%s: list lengths disagree with num_dims",
                     node_kind_name(static_cast<NodeKind>(node.node_type())));
}

void read(const fb::StaticResizeBilinear2D& t, GraphNode& n) {
  n.new_height = t.new_height();
  n.new_width = t.new_width();
  n.inputs = {t.input_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::ELU& t, GraphNode& n) {
  n.scalar = t.alpha();
  n.inputs = {t.input_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::LeakyReLU& t, GraphNode& n) {
  n.scalar = t.negative_slope();
  n.inputs = {t.input_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

void read(const fb::ScaledDotProductAttention& t, GraphNode& n) {
  n.inputs = {t.query_id(), t.key_id(), t.value_id(), t.scale_id(), t.mask_id()};
  n.outputs = {t.output_id()};
  n.flags = t.flags();
}

}  // namespace

Result<GraphNode> node_params(const fb::Node& node) {
  GraphNode n;
  const auto type = static_cast<uint8_t>(node.node_type());
  if (type == 0 || type > kLastNodeKind || node.node() == nullptr) {
    return Error::make(ErrorCode::kUnsupported, "node kind %u is unknown", unsigned(type));
  }
  n.kind = static_cast<NodeKind>(type);
  using K = NodeKind;
  switch (n.kind) {
    case K::kFullyConnected: read(*node.node_as_FullyConnected(), n); break;
    case K::kConv2d: case K::kDepthwiseConv2d: case K::kConvTranspose2d:
      read(*static_cast<const fb::NodeConv*>(node.node()), n);
      break;
    case K::kAvgPooling2d: case K::kMaxPooling2d:
      read(*static_cast<const fb::Pooling2D*>(node.node()), n);
      break;
    case K::kArgMaxPooling2d: read(*node.node_as_ArgMaxPooling2d(), n); break;
    case K::kConcatenate2: read(*node.node_as_Concatenate2(), n, 2); break;
    case K::kConcatenate3: read(*node.node_as_Concatenate3(), n, 3); break;
    case K::kConcatenate4: read(*node.node_as_Concatenate4(), n, 4); break;
    case K::kConcatenate5: read(*node.node_as_Concatenate5(), n, 5); break;
    case K::kStaticTranspose: case K::kStaticReshape: case K::kStaticSlice:
    case K::kStaticConstantPad:
      ETKIT_TRY(read_listed(node, n));
      break;
    case K::kStaticResizeBilinear2D: read(*node.node_as_StaticResizeBilinear2D(), n); break;
    case K::kELU: read(*node.node_as_ELU(), n); break;
    case K::kLeakyReLU: read(*node.node_as_LeakyReLU(), n); break;
    case K::kScaledDotProductAttention: read(*node.node_as_ScaledDotProductAttention(), n); break;
    case K::kAdd: case K::kDiv: case K::kMinimum: case K::kMultiply: case K::kSubtract:
    case K::kMaximum: case K::kPReLU: case K::kBatchMatrixMultiply:
      read(*static_cast<const fb::Node2x1*>(node.node()), n);
      break;
    default:  // every remaining kind is one input, one output
      read(*static_cast<const fb::Node1x1*>(node.node()), n);
      break;
  }
  return n;
}

}  // namespace etkit::xnnpack
