#include "shape_checks.h"

#include <string>

namespace etkit::xnnpack {
namespace {

using Dims = std::vector<size_t>;

std::string text(const Dims& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

// Output extent of a window over `size` input positions; 0 when none fits.
size_t window_out(size_t size, uint32_t pad_a, uint32_t pad_b, uint32_t kernel, uint32_t stride,
                  uint32_t dilation) {
  const size_t padded = size + pad_a + pad_b;
  const size_t extent = (size_t(kernel) - 1) * (dilation == 0 ? 1 : dilation) + 1;
  if (kernel == 0 || stride == 0 || padded < extent) return 0;
  return (padded - extent) / stride + 1;
}

// Numpy-style broadcast of two shapes; false when they do not broadcast.
bool broadcast(const Dims& a, const Dims& b, Dims& out) {
  out.assign(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const size_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return false;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return true;
}

size_t count(const Dims& dims) {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

// Convolutions and pools over NHWC input: the window's output extent, and
// for convolutions a filter of the size the channel counts say.
bool window_dims(const XnnGraph& g, const GraphNode& n, Dims& out) {
  using K = NodeKind;
  const Dims& in = g.values[n.inputs[0]].dims;
  const Window2d& w = n.window;
  if (in.size() != 4) return false;
  const bool conv = n.kind == K::kConv2d || n.kind == K::kDepthwiseConv2d;
  const uint32_t dh = conv || n.kind == K::kMaxPooling2d ? w.dilation_height : 1;
  const uint32_t dw = conv || n.kind == K::kMaxPooling2d ? w.dilation_width : 1;
  const size_t channels = conv ? size_t(w.groups) * w.group_output_channels : in[3];
  if (n.kind == K::kConv2d && size_t(w.groups) * w.group_input_channels != in[3]) return false;
  if (n.kind == K::kDepthwiseConv2d && w.groups != in[3]) return false;
  out = {in[0], window_out(in[1], w.padding_top, w.padding_bottom, w.kernel_height, w.stride_height, dh),
         window_out(in[2], w.padding_left, w.padding_right, w.kernel_width, w.stride_width, dw), channels};
  if (conv) {
    const Dims& filter = g.values[n.inputs[1]].dims;
    if (count(filter) != channels * w.kernel_height * w.kernel_width *
                             (n.kind == K::kConv2d ? w.group_input_channels : 1)) {
      return false;
    }
  }
  return out[1] > 0 && out[2] > 0;
}

// A deconvolution (transposed convolution) over NHWC input: XNNPACK's
// output extent stride * (in - 1) + adjustment + dilated kernel - padding,
// which must be positive (Debian's XNNPACK divides by it when set up), an
// adjustment below the stride, and a filter of the size the channels say.
bool deconvolution_dims(const XnnGraph& g, const GraphNode& n, Dims& out) {
  const Dims& in = g.values[n.inputs[0]].dims;
  const Window2d& w = n.window;
  if (in.size() != 4 || in[1] == 0 || in[2] == 0 || size_t(w.groups) * w.group_input_channels != in[3]) return false;
  if (w.stride_height == 0 || w.stride_width == 0 || w.kernel_height == 0 || w.kernel_width == 0 ||
      w.adjustment_height >= w.stride_height || w.adjustment_width >= w.stride_width) {
    return false;
  }
  const auto extent = [](size_t size, uint32_t stride, uint32_t adjustment, uint32_t kernel, uint32_t dilation,
                         uint32_t pad_a, uint32_t pad_b) -> size_t {
    const size_t full = stride * (size - 1) + adjustment + size_t(dilation == 0 ? 1 : dilation) * (kernel - 1) + 1;
    return full > size_t(pad_a) + pad_b ? full - pad_a - pad_b : 0;
  };
  const size_t channels = size_t(w.groups) * w.group_output_channels;
  out = {in[0],
         extent(in[1], w.stride_height, w.adjustment_height, w.kernel_height, w.dilation_height, w.padding_top,
                w.padding_bottom),
         extent(in[2], w.stride_width, w.adjustment_width, w.kernel_width, w.dilation_width, w.padding_left,
                w.padding_right),
         channels};
  const Dims& filter = g.values[n.inputs[1]].dims;
  if (count(filter) != channels * w.kernel_height * w.kernel_width * w.group_input_channels) return false;
  return out[1] > 0 && out[2] > 0 && channels > 0;
}

// A fully connected node: [..., inputs] x the filter; batch dims may be
// kept or flattened into one.
bool fully_connected_dims(const XnnGraph& g, const GraphNode& n, Dims& out) {
  const Dims& in = g.values[n.inputs[0]].dims;
  const Dims& filter = g.values[n.inputs[1]].dims;
  // XNN_FLAG_TRANSPOSE_WEIGHTS (1): the filter is [input, output].
  const bool transposed = (n.flags & 1u) != 0;
  if (in.empty() || filter.size() != 2) return false;
  const size_t inputs = filter[transposed ? 0 : 1], outputs = filter[transposed ? 1 : 0];
  if (inputs == 0 || count(in) % inputs != 0) return false;
  out = in;
  out.back() = outputs;
  if (in.back() != inputs) out = {count(in) / inputs, outputs};
  const Dims& declared = g.values[n.outputs[0]].dims;
  if (!declared.empty() && out != declared && count(out) == count(declared) && declared.back() == outputs) {
    out = declared;  // batch dims may be kept or flattened
  }
  return true;
}

// Argmax pooling: windows that do not overlap (the stride is the kernel);
// both outputs, values and indices, have the implied shape.
bool argmax_pooling_dims(const XnnGraph& g, const GraphNode& n, Dims& out) {
  const Dims& in = g.values[n.inputs[0]].dims;
  const Window2d& w = n.window;
  if (in.size() != 4) return false;
  out = {in[0], window_out(in[1], w.padding_top, w.padding_bottom, w.kernel_height, w.kernel_height, 1),
         window_out(in[2], w.padding_left, w.padding_right, w.kernel_width, w.kernel_width, 1), in[3]};
  if (n.outputs.size() != 2 || n.outputs[1] >= g.values.size() || g.values[n.outputs[1]].dims != out) return false;
  return out[1] > 0 && out[2] > 0;
}

// A static transpose's output: input dims in the order of `permutation`,
// which must name each dim once.
bool transpose_dims(const Dims& in, const std::vector<size_t>& permutation, Dims& out) {
  if (permutation.size() != in.size()) return false;
  std::vector<uint8_t> seen(in.size(), 0);
  out.clear();
  for (size_t p : permutation) {
    if (p >= in.size() || seen[p]++) return false;
    out.push_back(in[p]);
  }
  return true;
}

// The output dims the node implies, or false when its inputs do not fit it;
// `checked` is false for kinds whose shapes the portable kernel checks.
bool implied_dims(const XnnGraph& g, const GraphNode& n, Dims& out, bool& checked) {
  using K = NodeKind;
  const Dims& in = g.values[n.inputs[0]].dims;
  checked = true;
  switch (n.kind) {
    case K::kConv2d: case K::kDepthwiseConv2d: case K::kAvgPooling2d: case K::kMaxPooling2d:
      return window_dims(g, n, out);
    case K::kConvTranspose2d:
      return deconvolution_dims(g, n, out);
    case K::kArgMaxPooling2d:
      return argmax_pooling_dims(g, n, out);
    case K::kGlobalAvgPooling2d:
      if (in.size() != 4) return false;
      out = {in[0], 1, 1, in[3]};
      return true;
    case K::kFullyConnected:
      return fully_connected_dims(g, n, out);
    case K::kAdd: case K::kMultiply: case K::kSubtract: case K::kDiv: case K::kMinimum:
    case K::kMaximum:
      return broadcast(in, g.values[n.inputs[1]].dims, out);
    case K::kStaticReshape:
      out = g.values[n.outputs[0]].dims;
      return count(out) == count(in);
    case K::kStaticConstantPad:
      if (n.list_a.size() != in.size()) return false;
      out = in;
      for (size_t d = 0; d < in.size(); ++d) out[d] += n.list_a[d] + n.list_b[d];
      return true;
    case K::kStaticTranspose:
      return transpose_dims(in, n.list_a, out);
    case K::kPReLU:
      // XNNPACK reads one slope per channel (the input's last dim).
      out = in;
      return !in.empty() && n.inputs.size() > 1 && n.inputs[1] < g.values.size() &&
             count(g.values[n.inputs[1]].dims) == in.back();
    case K::kClamp: case K::kSoftmax: case K::kSigmoid: case K::kFloor: case K::kCeiling:
    case K::kSquareRoot: case K::kSquare: case K::kAbs: case K::kNegate: case K::kHardswish:
    case K::kLeakyReLU: case K::kELU: case K::kConvert:
    case K::kReciprocalSquareRoot: case K::kLog: case K::kGelu: case K::kTanh: case K::kExp:
    case K::kSin:
      out = in;
      return true;
    case K::kStaticResizeBilinear2D:
      if (in.size() != 4) return false;
      out = {in[0], n.new_height, n.new_width, in[3]};
      return true;
    default:
      // Concatenation, slices and batch matmul run on portable kernels,
      // which check sizes themselves.
      checked = false;
      return true;
  }
}

}  // namespace

Status check_node_shapes(const XnnGraph& graph, size_t index) {
  const GraphNode& node = graph.nodes[index];
  Dims implied;
  bool checked = true;
  const bool fits = implied_dims(graph, node, implied, checked);
  const Dims& declared = graph.values[node.outputs[0]].dims;
  if (fits && (!checked || implied == declared)) return Ok{};
  return Error::make(ErrorCode::kMalformed,
                     "node %zu (%s, debug handle %u): input %s %s, but the output is declared %s",
                     index, node_kind_name(node.kind), node.debug_handle,
                     text(graph.values[node.inputs[0]].dims).c_str(),
                     fits ? ("gives " + text(implied)).c_str() : "does not fit the node",
                     text(declared).c_str());
}

}  // namespace etkit::xnnpack
