// Which runner each node kind gets, and the names nodes carry in traces.
// Names follow XNNPACK's "<Operator> (<layout>[, <type>]) [<microkernel>]"
// as upstream's traces show them (the corpus traces: "Multiply (ND)",
// "Fully Connected (NC, F32) GEMM", "Softmax (NC, F32)"), so etkit's
// per-node events read like upstream's.

#include "etkit/delegates/xnnpack/xnn_support.h"

#include <cctype>
#include <cmath>

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

ScalarType buffer_scalar_type(Datatype type) {
  switch (type) {
    case Datatype::kQint8: case Datatype::kQcint8: case Datatype::kQdint8: return ScalarType::kChar;
    case Datatype::kQuint8: return ScalarType::kByte;
    case Datatype::kQint32: case Datatype::kQcint32: case Datatype::kInt32: return ScalarType::kInt;
    default: return ScalarType::kFloat;
  }
}

namespace {

bool copies_elements(NodeKind kind) {
  using K = NodeKind;
  return kind == K::kStaticTranspose || kind == K::kConcatenate2 || kind == K::kConcatenate3 ||
         kind == K::kConcatenate4 || kind == K::kConcatenate5 || kind == K::kStaticSlice;
}

bool same_quantization(const GraphValue& a, const GraphValue& b) {
  return a.datatype == b.datatype && a.quant.kind == b.quant.kind && a.quant.scale == b.quant.scale &&
         a.quant.zero_point == b.quant.zero_point;
}

// Why XNNPACK cannot requantize node `index`'s static int8 arithmetic, or
// "": the ratio of every input scale (times the filter's, per channel, for
// convolutions and linears) to the output scale must lie where XNNPACK's
// fixed-point parameters can hold it. Debian's XNNPACK asserts (aborts
// the process) below 2^-32 for convolutions, and refuses ratios outside
// [2^-10, 2^8) for elementwise nodes; both are refused here by name.
std::string requantization_problem(const XnnGraph& graph, size_t index) {
  const GraphNode& node = graph.nodes[index];
  const auto static_int8 = [&graph](uint32_t v) {
    return v != kNoValue && graph.values[v].quant.kind == QuantKind::kPerTensor &&
           (graph.values[v].datatype == Datatype::kQint8 || graph.values[v].datatype == Datatype::kQuint8);
  };
  if (node.inputs.empty() || node.outputs.empty() || !static_int8(node.inputs[0]) || !static_int8(node.outputs[0])) {
    return {};
  }
  using K = NodeKind;
  const bool weighted = node.kind == K::kConv2d || node.kind == K::kDepthwiseConv2d ||
                        node.kind == K::kConvTranspose2d || node.kind == K::kFullyConnected;
  const double out_scale = graph.values[node.outputs[0]].quant.scale;
  std::vector<double> ratios;
  if (weighted && node.inputs.size() > 1 && node.inputs[1] != kNoValue) {
    const QuantParams& filter = graph.values[node.inputs[1]].quant;
    std::vector<float> scales = filter.kind == QuantKind::kPerChannel ? filter.scales : std::vector<float>{filter.scale};
    for (float s : scales) ratios.push_back(double(graph.values[node.inputs[0]].quant.scale) * s / out_scale);
  } else if (!weighted) {
    for (uint32_t v : node.inputs) {
      if (static_int8(v)) ratios.push_back(double(graph.values[v].quant.scale) / out_scale);
    }
  }
  const double low = weighted ? std::ldexp(1.0, -32) : std::ldexp(1.0, -10), high = 256.0;
  for (double r : ratios) {
    if (!(r >= low && r < high)) {
      return "node " + std::to_string(index) + " (" + node_kind_name(node.kind) + ", debug handle " +
             std::to_string(node.debug_handle) + ") needs a requantization scale of " + std::to_string(r) +
             " (input over output scales), outside what XNNPACK represents [" + std::to_string(low) + ", 256)";
    }
  }
  return {};
}

}  // namespace

std::string portable_node_problem(const XnnGraph& graph, size_t index) {
  const GraphNode& node = graph.nodes[index];
  const std::string name = "node " + std::to_string(index) + " (" + node_kind_name(node.kind) +
                           ", debug handle " + std::to_string(node.debug_handle) + ")";
  if (node.outputs.empty()) return name + " has no output";
  const GraphValue& out = graph.values[node.outputs[0]];
  for (uint32_t v : node.inputs) {
    if (v == kNoValue) continue;
    const GraphValue& in = graph.values[v];
    if (copies_elements(node.kind) && !same_quantization(in, out)) {
      return name + " reads " + value_kind(in) + " value " + std::to_string(v) + " into " + value_kind(out) +
             " value " + std::to_string(node.outputs[0]) +
             "; etkit's portable fallback copies elements only between values of one datatype and quantization";
    }
    if (!copies_elements(node.kind) && in.datatype != Datatype::kFp32) {
      return name + " reads " + value_kind(in) + " value " + std::to_string(v) + "; etkit's portable " +
             portable_kernel_of(node.kind) + " fallback computes in fp32 only";
    }
  }
  const Datatype type = out.datatype;
  const bool copyable = type == Datatype::kFp32 || type == Datatype::kInt32 ||
                        ((type == Datatype::kQint8 || type == Datatype::kQuint8 || type == Datatype::kQint32) &&
                         out.quant.kind == QuantKind::kPerTensor);
  if (!copyable) {
    return name + " writes " + value_kind(out) + " value " + std::to_string(node.outputs[0]) +
           ", which etkit's portable fallback does not run";
  }
  const bool bounded = !(std::isinf(node.output_min) && node.output_min < 0) ||
                       !(std::isinf(node.output_max) && node.output_max > 0);
  if (bounded && out.datatype != Datatype::kFp32) {
    return name + " clamps a " + value_kind(out) + " output; etkit's portable fallback clamps fp32 outputs only";
  }
  return {};
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

NodeRunner node_runner(const XnnGraph& graph, const GraphNode& node) {
  if (node.kind == NodeKind::kConvert && !node.outputs.empty() &&
      graph.values[node.outputs[0]].datatype == Datatype::kQdint8) {
    return NodeRunner::kDynamicQuant;
  }
  if (node.kind == NodeKind::kFullyConnected && !node.inputs.empty() &&
      graph.values[node.inputs[0]].datatype == Datatype::kQdint8) {
    return NodeRunner::kDynamicQuant;
  }
  return runner_of(node.kind);
}

std::string value_kind(const GraphValue& value) {
  switch (value.datatype) {
    case Datatype::kFp32: return "fp32";
    case Datatype::kQint8: return "qs8";
    case Datatype::kQuint8: return "qu8";
    case Datatype::kQint32: return "qs32";
    case Datatype::kQcint8: return "qc8w";
    case Datatype::kQcint32: return "qc32";
    case Datatype::kQcint4: return "qc4w";
    case Datatype::kQdint8: return "qd8";
    case Datatype::kQbint4: return "qb4w";
    default: return datatype_name(value.datatype);
  }
}

namespace {

std::string upper(std::string text) {
  for (char& c : text) c = char(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// Why `value` (index v) cannot run, or "": XNNPACK takes fp32 and static
// int8 values; qd8 activations and 4-bit weights run on etkit's kernels,
// so they must sit where those kernels read them.
std::string value_problem(const XnnGraph& graph, size_t v) {
  const GraphValue& value = graph.values[v];
  const std::string name = "value " + std::to_string(v) + " (" + datatype_name(value.datatype) + ")";
  if (value.dq_datatype != Datatype::kInvalid) {
    return name + " uses the legacy dynamic quantization marker (dq_datatype), which etkit does not run";
  }
  const bool needs_params = value.datatype != Datatype::kFp32 && value.datatype != Datatype::kInt32;
  if (needs_params && !value.quantized()) return name + " has a quantized datatype but no quantization parameters";
  switch (value.datatype) {
    case Datatype::kFp32: case Datatype::kQint8: case Datatype::kQuint8: case Datatype::kQint32:
    case Datatype::kQcint32:
      return {};
    case Datatype::kQcint8: case Datatype::kQcint4: case Datatype::kQbint4: {
      if (value.datatype == Datatype::kQcint8) {
        bool dynamic_user = false;
        for (const GraphNode& node : graph.nodes) {
          if (node.inputs.size() > 1 && node.inputs[1] == v && node_runner(graph, node) == NodeRunner::kDynamicQuant) {
            dynamic_user = true;
          }
        }
        if (!dynamic_user) return {};  // a static qs8 filter: XNNPACK's
      }
      // 4-bit (and qd8 × qc8w) filters: constants read by etkit's fully connected.
      if (value.constant.size == 0) return name + " is a 4-bit or dynamic-quantization weight that is not constant";
      for (const GraphNode& node : graph.nodes) {
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          if (node.inputs[i] != v) continue;
          if (node.kind != NodeKind::kFullyConnected || i != 1 ||
              graph.values[node.inputs[0]].datatype != Datatype::kQdint8) {
            return name + " is read by a " + node_kind_name(node.kind) +
                   " node; etkit runs 4-bit weights only as the filter of a fully connected node with qdint8 input";
          }
        }
      }
      return {};
    }
    case Datatype::kQdint8: {
      for (const GraphNode& node : graph.nodes) {
        for (uint32_t out : node.outputs) {
          if (out == v && (node.kind != NodeKind::kConvert ||
                           graph.values[node.inputs[0]].datatype != Datatype::kFp32)) {
            return name + " is written by a " + std::string(node_kind_name(node.kind)) +
                   " node; etkit quantizes qdint8 values only with a Convert from fp32";
          }
        }
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          if (node.inputs[i] == v && (node.kind != NodeKind::kFullyConnected || i != 0)) {
            return name + " is read by a " + std::string(node_kind_name(node.kind)) +
                   " node; etkit reads qdint8 values only as the input of a fully connected node";
          }
        }
      }
      if (value.external_input || value.external_output) return name + " is a delegate input or output";
      return {};
    }
    default:
      return name + " is not a value kind etkit's XNNPACK backend runs (fp32, qs8, qu8, qc8w, qd8, qc4w, qb4w)";
  }
}

}  // namespace

std::string operator_name(const XnnGraph& graph, const GraphNode& node) {
  const GraphValue* in = node.inputs.empty() || node.inputs[0] == kNoValue ? nullptr : &graph.values[node.inputs[0]];
  const GraphValue* out = node.outputs.empty() ? nullptr : &graph.values[node.outputs[0]];
  const bool quantized = (in != nullptr && in->quantized()) || (out != nullptr && out->quantized());
  if (!quantized) return operator_name(node);
  using K = NodeKind;
  const std::string in_kind = in ? upper(value_kind(*in)) : "";
  const std::string out_kind = out ? upper(value_kind(*out)) : "";
  const std::string filter =
      node.inputs.size() > 1 && node.inputs[1] != kNoValue ? upper(value_kind(graph.values[node.inputs[1]])) : "";
  switch (node.kind) {
    case K::kConvert: return "Convert (NC, " + in_kind + ", " + out_kind + ")";
    case K::kFullyConnected:
      if (node_runner(graph, node) == NodeRunner::kDynamicQuant) {
        return "Fully Connected (NC, QD8, " + out_kind + ", " + filter + ") etkit";
      }
      return "Fully Connected (NC, " + in_kind + ", " + filter + ") GEMM";
    case K::kConv2d: {
      const std::string name = operator_name(node);  // "Convolution (NHWC, F32) GEMM"
      return "Convolution (NHWC, " + in_kind + ", " + filter + ")" + name.substr(name.find(')') + 1);
    }
    case K::kDepthwiseConv2d: return "Convolution (NHWC, " + in_kind + ", " + filter + ") DWConv";
    default: {
      std::string name = operator_name(node);
      const size_t close = name.find(')');
      if (close != std::string::npos) name.insert(close, ", " + in_kind);
      return name;
    }
  }
}

std::string unsupported_reason(const XnnGraph& graph) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& node = graph.nodes[i];
    if (runner_of(node.kind) == NodeRunner::kUnsupported) {
      return "node " + std::to_string(i) + " (" + node_kind_name(node.kind) + ", debug handle " +
             std::to_string(node.debug_handle) + ") is not supported by etkit's XNNPACK backend";
    }
    if (node_runner(graph, node) == NodeRunner::kPortable) {
      const std::string problem = portable_node_problem(graph, i);
      if (!problem.empty()) return problem;
    }
    if (node.kind == NodeKind::kPReLU && node.inputs.size() > 1 && node.inputs[1] != kNoValue &&
        graph.values[node.inputs[1]].constant.size == 0) {
      // This XNNPACK copies the slope when it creates the operator.
      return "node " + std::to_string(i) + " (PReLU, debug handle " + std::to_string(node.debug_handle) +
             ") takes its slope from value " + std::to_string(node.inputs[1]) +
             ", which is not a constant; this XNNPACK needs a constant slope";
    }
    if (node_runner(graph, node) == NodeRunner::kXnnpack) {
      const std::string requantization = requantization_problem(graph, i);
      if (!requantization.empty()) return requantization;
      // Debian's XNNPACK asserts (aborts the process) when an operator's
      // input or output has no elements: refuse such a graph by name.
      std::vector<uint32_t> operands = node.inputs;
      operands.insert(operands.end(), node.outputs.begin(), node.outputs.end());
      for (uint32_t v : operands) {
        if (v != kNoValue && graph.values[v].element_count() == 0) {
          return "node " + std::to_string(i) + " (" + node_kind_name(node.kind) + ", debug handle " +
                 std::to_string(node.debug_handle) + ") uses value " + std::to_string(v) +
                 ", which has no elements; this XNNPACK cannot run operators on empty tensors";
        }
      }
    }
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const std::string problem = value_problem(graph, v);
    if (!problem.empty()) return problem;
  }
  return {};
}

}  // namespace etkit::xnnpack
