// Which runner each node kind gets, and the names nodes carry in traces.
// Names follow XNNPACK's "<Operator> (<layout>[, <type>]) [<microkernel>]"
// as upstream's traces show them (the corpus traces: "Multiply (ND)",
// "Fully Connected (NC, F32) GEMM", "Softmax (NC, F32)"), so etkit's
// per-node events read like upstream's.

#include "etkit/delegates/xnnpack/xnn_support.h"

namespace etkit::xnnpack {

NodeRunner runner_of(NodeKind kind) {
  using K = NodeKind;
  switch (kind) {
    case K::kStaticTranspose: case K::kConcatenate2: case K::kConcatenate3:
    case K::kConcatenate4: case K::kConcatenate5: case K::kStaticSlice:
    case K::kBatchMatrixMultiply: case K::kReciprocalSquareRoot: case K::kLog:
    case K::kGelu: case K::kTanh: case K::kExp: case K::kSin:
      return NodeRunner::kPortable;
    case K::kNone: case K::kScaledDotProductAttention:
      return NodeRunner::kUnsupported;
    default:
      return NodeRunner::kXnnpack;
  }
}

const char* portable_kernel_of(NodeKind kind) {
  using K = NodeKind;
  switch (kind) {
    case K::kStaticTranspose: return "aten::permute_copy.out";
    case K::kConcatenate2: case K::kConcatenate3: case K::kConcatenate4:
    case K::kConcatenate5: return "aten::cat.out";
    case K::kStaticSlice: return "aten::slice_copy.Tensor_out";
    case K::kBatchMatrixMultiply: return "aten::bmm.out";
    case K::kReciprocalSquareRoot: return "aten::rsqrt.out";
    case K::kLog: return "aten::log.out";
    case K::kGelu: return "aten::gelu.out";
    case K::kTanh: return "aten::tanh.out";
    case K::kExp: return "aten::exp.out";
    case K::kSin: return "aten::sin.out";
    default: return "";
  }
}

namespace {

// A 1×1, stride-1, unpadded convolution is a GEMM in XNNPACK; others use
// its indirect GEMM.
const char* conv_flavour(const Window2d& w) {
  const bool pointwise = w.kernel_height == 1 && w.kernel_width == 1 && w.stride_height == 1 &&
                         w.stride_width == 1 && w.padding_top == 0 && w.padding_left == 0 &&
                         w.padding_bottom == 0 && w.padding_right == 0;
  return pointwise ? "GEMM" : "IGEMM";
}

}  // namespace

std::string operator_name(const GraphNode& node) {
  using K = NodeKind;
  switch (node.kind) {
    case K::kAdd: return "Add (ND)";
    case K::kFullyConnected: return "Fully Connected (NC, F32) GEMM";
    case K::kSoftmax: return "Softmax (NC, F32)";
    case K::kSigmoid: return "Sigmoid (NC)";
    case K::kClamp: return "Clamp (NC)";
    case K::kConv2d: return std::string("Convolution (NHWC, F32) ") + conv_flavour(node.window);
    case K::kDepthwiseConv2d: return "Convolution (NHWC, F32) DWConv";
    case K::kConvTranspose2d: return "Deconvolution (NHWC, F32)";
    case K::kDiv: return "Divide (ND)";
    case K::kMultiply: return "Multiply (ND)";
    case K::kSubtract: return "Subtract (ND)";
    case K::kMinimum: return "Minimum (ND)";
    case K::kMaximum: return "Maximum (ND)";
    case K::kStaticResizeBilinear2D: return "Resize Bilinear (NHWC, F32)";
    case K::kStaticConstantPad: return "Constant Pad (ND, X32)";
    case K::kAvgPooling2d: return "Average Pooling (NHWC, F32)";
    case K::kMaxPooling2d: return "Max Pooling (NHWC, F32)";
    case K::kArgMaxPooling2d: return "ArgMax Pooling (NHWC, F32)";
    case K::kGlobalAvgPooling2d: return "Global Average Pooling (NWC, F32)";
    case K::kStaticReshape: return "Copy (NC, X32)";
    case K::kFloor: return "Floor (NC)";
    case K::kCeiling: return "Ceiling (NC)";
    case K::kSquareRoot: return "Square Root (NC)";
    case K::kSquare: return "Square (NC)";
    case K::kAbs: return "Abs (NC)";
    case K::kNegate: return "Negate (NC)";
    case K::kHardswish: return "HardSwish (NC)";
    case K::kLeakyReLU: return "Leaky ReLU (NC)";
    case K::kELU: return "ELU (NC)";
    case K::kPReLU: return "PReLU (NC)";
    case K::kConvert: return "Convert (NC, F32)";
    default:
      break;
  }
  if (runner_of(node.kind) == NodeRunner::kPortable) {
    return std::string(node_kind_name(node.kind)) + " (portable " +
           portable_kernel_of(node.kind) + ")";
  }
  return node_kind_name(node.kind);
}

std::string unsupported_reason(const XnnGraph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if (runner_of(node.kind) == NodeRunner::kUnsupported) {
      return "node " + std::to_string(i) + " (" + node_kind_name(node.kind) + ", debug handle " +
             std::to_string(node.debug_handle) + ") is not supported by etkit's XNNPACK backend";
    }
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const GraphValue& value = graph.values[v];
    if (value.datatype != Datatype::kFp32 || value.quantized) {
      return "value " + std::to_string(v) + " is " + (value.quantized ? "quantized " : "") +
             datatype_name(value.datatype) + "; etkit's XNNPACK backend runs fp32 graphs";
    }
  }
  return {};
}

}  // namespace etkit::xnnpack
