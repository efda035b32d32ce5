// Names of node kinds and element types, as the format spells them.

#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::xnnpack {

const char* node_kind_name(NodeKind kind) {
  static const char* const kNames[] = {
      "None", "Add", "FullyConnected", "Softmax", "Sigmoid", "StaticTranspose", "Clamp",
      "Conv2d", "Div", "StaticResizeBilinear2D", "StaticConstantPad", "AvgPooling2d", "Minimum",
      "DepthwiseConv2d", "MaxPooling2d", "Multiply", "Subtract", "Floor", "Convert",
      "GlobalAvgPooling2d", "StaticReshape", "ArgMaxPooling2d", "SquareRoot", "Ceiling",
      "Hardswish", "LeakyReLU", "Maximum", "Negate", "Square", "ELU", "Abs", "PReLU",
      "Concatenate2", "Concatenate3", "Concatenate4", "StaticSlice", "ScaledDotProductAttention",
      "BatchMatrixMultiply", "Concatenate5", "ConvTranspose2d", "ReciprocalSquareRoot", "Log",
      "Gelu", "Tanh", "Exp", "Sin",
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kLastNodeKind + 1, "one name per kind");
  const auto index = static_cast<size_t>(kind);
  return index <= kLastNodeKind ? kNames[index] : "unknown";
}

const char* datatype_name(Datatype type) {
  switch (type) {
    case Datatype::kInvalid: return "invalid";
    case Datatype::kFp32: return "fp32";
    case Datatype::kFp16: return "fp16";
    case Datatype::kQint8: return "qint8";
    case Datatype::kQuint8: return "quint8";
    case Datatype::kQint32: return "qint32";
    case Datatype::kQcint8: return "qcint8";
    case Datatype::kQcint32: return "qcint32";
    case Datatype::kQcint4: return "qcint4";
    case Datatype::kQdint8: return "qdint8";
    case Datatype::kQbint4: return "qbint4";
    case Datatype::kQpint8: return "qpint8";
    case Datatype::kInt32: return "int32";
    case Datatype::kPfp32: return "pfp32";
    case Datatype::kBf16: return "bf16";
  }
  return "unknown";
}

}  // namespace etkit::xnnpack
