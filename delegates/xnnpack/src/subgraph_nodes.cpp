// Graph node → xnn_define_* call. Parameters map one to one, except for
// depthwise convolutions, whose format stores the depth multiplier as
// group_output_channels and the channel count as groups.

#include "subgraph_nodes.h"

#include <cmath>

namespace etkit::xnnpack {
namespace {

using K = NodeKind;

bool has_range(const GraphNode& node) {
  return !(std::isinf(node.output_min) && node.output_min < 0) ||
         !(std::isinf(node.output_max) && node.output_max > 0);
}

// Kinds whose XNNPACK node applies an output range itself.
bool takes_range(NodeKind kind) {
  switch (kind) {
    case K::kAdd: case K::kFullyConnected: case K::kClamp: case K::kConv2d: case K::kDiv:
    case K::kAvgPooling2d: case K::kDepthwiseConv2d: case K::kMaxPooling2d: case K::kMultiply:
    case K::kSubtract: case K::kGlobalAvgPooling2d: case K::kConvTranspose2d:
      return true;
    default:
      return false;
  }
}

xnn_status define_window_node(xnn_subgraph_t s, const GraphNode& n, uint32_t in, uint32_t out,
                              uint32_t filter, uint32_t bias, float lo, float hi) {
  const Window2d& w = n.window;
  switch (n.kind) {
    case K::kConv2d:
      return xnn_define_convolution_2d(
          s, w.padding_top, w.padding_right, w.padding_bottom, w.padding_left, w.kernel_height,
          w.kernel_width, w.stride_height, w.stride_width, w.dilation_height, w.dilation_width,
          w.groups, w.group_input_channels, w.group_output_channels, lo, hi, in, filter, bias, out,
          n.flags);
    case K::kDepthwiseConv2d:
      return xnn_define_depthwise_convolution_2d(
          s, w.padding_top, w.padding_right, w.padding_bottom, w.padding_left, w.kernel_height,
          w.kernel_width, w.stride_height, w.stride_width, w.dilation_height, w.dilation_width,
          w.group_output_channels, w.groups, lo, hi, in, filter, bias, out, n.flags);
    case K::kConvTranspose2d:
      return xnn_define_deconvolution_2d(
          s, w.padding_top, w.padding_right, w.padding_bottom, w.padding_left,
          w.adjustment_height, w.adjustment_width, w.kernel_height, w.kernel_width,
          w.stride_height, w.stride_width, w.dilation_height, w.dilation_width, w.groups,
          w.group_input_channels, w.group_output_channels, lo, hi, in, filter, bias, out, n.flags);
    case K::kAvgPooling2d:
      return xnn_define_average_pooling_2d(s, w.padding_top, w.padding_right, w.padding_bottom,
                                           w.padding_left, w.kernel_height, w.kernel_width,
                                           w.stride_height, w.stride_width, lo, hi, in, out,
                                           n.flags);
    case K::kMaxPooling2d:
      return xnn_define_max_pooling_2d(s, w.padding_top, w.padding_right, w.padding_bottom,
                                       w.padding_left, w.kernel_height, w.kernel_width,
                                       w.stride_height, w.stride_width, w.dilation_height,
                                       w.dilation_width, lo, hi, in, out, n.flags);
    default:
      return xnn_status_unsupported_parameter;
  }
}

xnn_status define_unary(xnn_subgraph_t s, const GraphNode& n, uint32_t in, uint32_t out) {
  switch (n.kind) {
    case K::kSoftmax: return xnn_define_softmax(s, in, out, n.flags);
    case K::kSigmoid: return xnn_define_sigmoid(s, in, out, n.flags);
    case K::kFloor: return xnn_define_floor(s, in, out, n.flags);
    case K::kCeiling: return xnn_define_ceiling(s, in, out, n.flags);
    case K::kSquareRoot: return xnn_define_square_root(s, in, out, n.flags);
    case K::kSquare: return xnn_define_square(s, in, out, n.flags);
    case K::kAbs: return xnn_define_abs(s, in, out, n.flags);
    case K::kNegate: return xnn_define_negate(s, in, out, n.flags);
    case K::kHardswish: return xnn_define_hardswish(s, in, out, n.flags);
    case K::kConvert: return xnn_define_convert(s, in, out, n.flags);
    case K::kELU: return xnn_define_elu(s, n.scalar, in, out, n.flags);
    case K::kLeakyReLU: return xnn_define_leaky_relu(s, n.scalar, in, out, n.flags);
    case K::kStaticReshape:
      return xnn_define_static_reshape(s, n.list_a.size(), n.list_a.data(), in, out, n.flags);
    case K::kStaticConstantPad:
      return xnn_define_static_constant_pad(s, n.list_a.data(), n.list_b.data(), n.scalar, in,
                                            out, n.flags);
    case K::kStaticResizeBilinear2D:
      return xnn_define_static_resize_bilinear_2d(s, n.new_height, n.new_width, in, out,
                                                  n.flags);
    default:
      return xnn_status_unsupported_parameter;
  }
}

xnn_status define_binary(xnn_subgraph_t s, const GraphNode& n, uint32_t a, uint32_t b,
                         uint32_t out, float lo, float hi) {
  switch (n.kind) {
    case K::kAdd: return xnn_define_add2(s, lo, hi, a, b, out, n.flags);
    case K::kMultiply: return xnn_define_multiply2(s, lo, hi, a, b, out, n.flags);
    case K::kSubtract: return xnn_define_subtract(s, lo, hi, a, b, out, n.flags);
    case K::kDiv: return xnn_define_divide(s, lo, hi, a, b, out, n.flags);
    case K::kMinimum: return xnn_define_minimum2(s, a, b, out, n.flags);
    case K::kMaximum: return xnn_define_maximum2(s, a, b, out, n.flags);
    case K::kPReLU: return xnn_define_prelu(s, a, b, out, n.flags);
    default: return xnn_status_unsupported_parameter;
  }
}

xnn_datatype xnn_type(Datatype type) { return static_cast<xnn_datatype>(static_cast<int>(type)); }

// A static-quantized fully connected node with a per-channel filter, as
// the equivalent 1×1 convolution: [rows, K] is viewed as [1, 1, rows, K]
// on both sides through reshapes (internal values with the same
// quantization), the filter is already [N, 1, 1, K].
xnn_status define_pointwise_linear(xnn_subgraph_t s, const XnnGraph& graph, const GraphNode& n,
                                   const SubgraphIds& id, uint32_t out, float lo, float hi) {
  const GraphValue& in = graph.values[n.inputs[0]];
  const GraphValue& result = graph.values[n.outputs[0]];
  const size_t k = in.dims.back(), channels = result.dims.back();
  const size_t rows = k == 0 ? 0 : in.element_count() / k;
  const std::vector<size_t> in4 = {1, 1, rows, k}, out4 = {1, 1, rows, channels};
  uint32_t in_view = XNN_INVALID_VALUE_ID, out_view = XNN_INVALID_VALUE_ID;
  xnn_status status = define_value(s, in, in4, nullptr, XNN_INVALID_VALUE_ID, 0, &in_view);
  if (status == xnn_status_success) status = define_value(s, result, out4, nullptr, XNN_INVALID_VALUE_ID, 0, &out_view);
  if (status == xnn_status_success) status = xnn_define_static_reshape(s, 4, in4.data(), id(n.inputs[0]), in_view, 0);
  if (status != xnn_status_success) return status;
  status = xnn_define_convolution_2d(s, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, channels, lo, hi, in_view,
                                     id(n.inputs[1]), id(n.inputs[2]), out_view, 0);
  if (status != xnn_status_success) return status;
  return xnn_define_static_reshape(s, result.dims.size(), result.dims.data(), out_view, out, 0);
}

// Defines the node itself, writing `out` (the node's output, or the
// intermediate a trailing clamp reads).
xnn_status define_core(xnn_subgraph_t s, const XnnGraph& graph, const GraphNode& n, const SubgraphIds& id,
                       uint32_t out, float lo, float hi) {
  const uint32_t in = id(n.inputs[0]);
  switch (n.kind) {
    case K::kFullyConnected:
      if (is_pointwise_filter(graph, n.inputs[1])) return define_pointwise_linear(s, graph, n, id, out, lo, hi);
      return xnn_define_fully_connected(s, lo, hi, in, id(n.inputs[1]), id(n.inputs[2]), out,
                                        n.flags);
    case K::kConv2d: case K::kDepthwiseConv2d: case K::kConvTranspose2d:
      return define_window_node(s, n, in, out, id(n.inputs[1]), id(n.inputs[2]), lo, hi);
    case K::kAvgPooling2d: case K::kMaxPooling2d:
      return define_window_node(s, n, in, out, XNN_INVALID_VALUE_ID, XNN_INVALID_VALUE_ID, lo,
                                hi);
    case K::kGlobalAvgPooling2d:
      return xnn_define_global_average_pooling_2d(s, lo, hi, in, out, n.flags);
    case K::kClamp:
      return xnn_define_clamp(s, lo, hi, in, out, n.flags);
    case K::kArgMaxPooling2d: {
      const Window2d& w = n.window;
      return xnn_define_argmax_pooling_2d(s, w.padding_top, w.padding_right, w.padding_bottom,
                                          w.padding_left, w.kernel_height, w.kernel_width, in,
                                          out, id(n.outputs[1]), n.flags);
    }
    case K::kAdd: case K::kMultiply: case K::kSubtract: case K::kDiv: case K::kMinimum:
    case K::kMaximum: case K::kPReLU:
      return define_binary(s, n, in, id(n.inputs[1]), out, lo, hi);
    default:
      return define_unary(s, n, in, out);
  }
}

}  // namespace

xnn_status define_node(xnn_subgraph_t subgraph, const XnnGraph& graph, const GraphNode& node,
                       const SubgraphIds& id) {
  const uint32_t out = id(node.outputs[0]);
  if (takes_range(node.kind) || !has_range(node)) {
    return define_core(subgraph, graph, node, id, out, node.output_min, node.output_max);
  }
  const GraphValue& value = graph.values[node.outputs[0]];
  uint32_t unclamped = XNN_INVALID_VALUE_ID;
  xnn_status status = xnn_define_tensor_value(subgraph, xnn_datatype_fp32, value.dims.size(),
                                              value.dims.data(), nullptr, XNN_INVALID_VALUE_ID,
                                              0, &unclamped);
  if (status != xnn_status_success) return status;
  const float inf = INFINITY;
  status = define_core(subgraph, graph, node, id, unclamped, -inf, inf);
  if (status != xnn_status_success) return status;
  return xnn_define_clamp(subgraph, node.output_min, node.output_max, unclamped, out, 0);
}

xnn_status define_value(xnn_subgraph_t subgraph, const GraphValue& value, const std::vector<size_t>& dims,
                        const void* data, uint32_t external_id, uint32_t flags, uint32_t* id_out) {
  switch (value.quant.kind) {
    case QuantKind::kPerTensor:
      return xnn_define_quantized_tensor_value(subgraph, xnn_type(value.datatype), value.quant.zero_point,
                                               value.quant.scale, dims.size(), dims.data(), data, external_id,
                                               flags, id_out);
    case QuantKind::kPerChannel:
      return xnn_define_channelwise_quantized_tensor_value(subgraph, xnn_type(value.datatype),
                                                           value.quant.scales.data(), dims.size(),
                                                           value.quant.channel_dim, dims.data(), data,
                                                           external_id, flags, id_out);
    case QuantKind::kNone:
      return xnn_define_tensor_value(subgraph, xnn_datatype_fp32, dims.size(), dims.data(), data, external_id,
                                     flags, id_out);
    default:  // dynamic and blockwise values run on etkit's kernels, never here
      return xnn_status_unsupported_parameter;
  }
}

bool is_pointwise_filter(const XnnGraph& graph, uint32_t value) {
  if (value == kNoValue || graph.values[value].datatype != Datatype::kQcint8) return false;
  for (const GraphNode& node : graph.nodes) {
    if (node.kind == NodeKind::kFullyConnected && node.inputs.size() > 1 && node.inputs[1] == value &&
        graph.values[node.inputs[0]].datatype != Datatype::kQdint8) {
      return true;
    }
  }
  return false;
}

}  // namespace etkit::xnnpack
