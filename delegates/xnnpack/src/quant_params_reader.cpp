// QuantizedTensorValue's parameters → QuantParams, checked against the
// value they describe: datatype, channel dim, one scale per channel (or
// per channel and group), positive finite scales, zero points within the
// datatype. Scales come inline or from the constant data (fp32 per
// channel, bf16 per group, as upstream's serializer writes them).

#include <cmath>
#include <cstring>

#include "quant_params_reader.h"

namespace etkit::xnnpack {
namespace fb = etkit_xnnpack_fb;

namespace {

// bf16 bits widened to float (exact).
float widen_bf16(uint16_t bits) {
  const uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

// Inline fp32 group scales become bf16 by dropping the low half, as
// upstream's runtime converts them.
float truncate_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return widen_bf16(uint16_t(bits >> 16));
}

Error bad(size_t index, const char* what, const GraphValue& value) {
  return Error::make(ErrorCode::kMalformed, "value %zu (%s): %s", index, datatype_name(value.datatype), what);
}

Status check_scales(size_t index, const GraphValue& value, const std::vector<float>& scales) {
  for (float s : scales) {
    if (!(s > 0) || !std::isfinite(s)) return bad(index, "scales must be positive and finite", value);
  }
  return Ok{};
}

}  // namespace

namespace {

Status read_per_tensor(size_t index, const fb::PerTensorQuant& p, GraphValue& value) {
  QuantParams& q = value.quant;
  q.kind = QuantKind::kPerTensor;
  q.scale = p.scale();
  q.zero_point = p.zero_point();
  const Datatype t = value.datatype;
  if (t != Datatype::kQint8 && t != Datatype::kQuint8 && t != Datatype::kQint32) {
    return bad(index, "per-tensor quantization needs qint8, quint8 or qint32", value);
  }
  const int32_t lo = t == Datatype::kQuint8 ? 0 : (t == Datatype::kQint8 ? -128 : 0);
  const int32_t hi = t == Datatype::kQuint8 ? 255 : (t == Datatype::kQint8 ? 127 : 0);
  if (q.zero_point < lo || q.zero_point > hi) return bad(index, "zero point is out of the datatype's range", value);
  return check_scales(index, value, {q.scale});
}

Status read_per_channel(size_t index, const fb::PerChannelQuant& p, const ConstantLookup& constant,
                        GraphValue& value) {
  QuantParams& q = value.quant;
  q.kind = QuantKind::kPerChannel;
  q.channel_dim = uint32_t(p.channel_dim());
  const Datatype t = value.datatype;
  if (t != Datatype::kQcint8 && t != Datatype::kQcint32 && t != Datatype::kQcint4) {
    return bad(index, "per-channel quantization needs qcint8, qcint32 or qcint4", value);
  }
  if (p.channel_dim() < 0 || size_t(p.channel_dim()) >= value.dims.size()) {
    return bad(index, "channel_dim is out of range", value);
  }
  const size_t channels = value.dims[q.channel_dim];
  if (p.scale_buffer_idx() != 0) {
    ETKIT_ASSIGN_OR_RETURN(ByteSpan bytes, constant(p.scale_buffer_idx()));
    if (p.num_scales() != channels || bytes.size < size_t(channels) * 4) {
      return bad(index, "the scale buffer does not hold one fp32 scale per channel", value);
    }
    q.scales.resize(channels);
    std::memcpy(q.scales.data(), bytes.data, channels * 4);
  } else {
    if (p.scale() == nullptr || p.scale()->size() != channels) {
      return bad(index, "per-channel scales do not number one per channel", value);
    }
    q.scales.assign(p.scale()->begin(), p.scale()->end());
  }
  q.zero_point = t == Datatype::kQcint4 ? 8 : 0;
  return check_scales(index, value, q.scales);
}

Status read_per_token(size_t index, const fb::PerTokenDynamicQuant& p, GraphValue& value) {
  QuantParams& q = value.quant;
  q.kind = QuantKind::kPerTokenDynamic;
  if (value.datatype != Datatype::kQdint8) return bad(index, "per-token quantization needs qdint8", value);
  if (p.num_nonbatch_dims() < 1 || size_t(p.num_nonbatch_dims()) > value.dims.size()) {
    return bad(index, "num_nonbatch_dims is out of range", value);
  }
  if (value.constant.size > 0) return bad(index, "a dynamically quantized value cannot be constant", value);
  q.num_nonbatch_dims = uint32_t(p.num_nonbatch_dims());
  return Ok{};
}

Status read_per_channel_group(size_t index, const fb::PerChannelGroupQuant& p, const ConstantLookup& constant,
                              GraphValue& value) {
  QuantParams& q = value.quant;
  q.kind = QuantKind::kPerChannelGroup;
  if (value.datatype != Datatype::kQbint4) return bad(index, "per-channel-group quantization needs qbint4", value);
  if (value.dims.size() != 2 || p.channel_dim() != 0) {
    return bad(index, "blockwise weights must be 2-D, channels first", value);
  }
  if (p.group_size() <= 0 || p.group_size() % 2 != 0 || value.dims[1] % size_t(p.group_size()) != 0) {
    return bad(index, "group_size must be even and divide the input channels", value);
  }
  q.group_size = uint32_t(p.group_size());
  q.zero_point = 8;
  const size_t count = value.dims[0] * (value.dims[1] / q.group_size);
  if (p.scale_buffer_idx() != 0) {
    ETKIT_ASSIGN_OR_RETURN(ByteSpan bytes, constant(p.scale_buffer_idx()));
    if (p.num_scales() != count || bytes.size < count * 2) {
      return bad(index, "the scale buffer does not hold one bf16 scale per channel and group", value);
    }
    q.scales.resize(count);
    for (size_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data + 2 * i, 2);
      q.scales[i] = widen_bf16(bits);
    }
  } else if (p.scale_bf16() != nullptr && p.scale_bf16()->size() == count) {
    for (uint16_t bits : *p.scale_bf16()) q.scales.push_back(widen_bf16(bits));
  } else if (p.scale() != nullptr && p.scale()->size() == count) {
    for (float s : *p.scale()) q.scales.push_back(truncate_to_bf16(s));
  } else {
    return bad(index, "group scales do not number one per channel and group", value);
  }
  return check_scales(index, value, q.scales);
}

}  // namespace

Status read_quant_params(size_t index, const fb::QuantizedTensorValue& wrapper, const ConstantLookup& constant,
                         GraphValue& value) {
  switch (wrapper.quant_params_type()) {
    case fb::QuantParams::PerTensorQuant: {
      const fb::PerTensorQuant* p = wrapper.quant_params_as_PerTensorQuant();
      if (p == nullptr) return bad(index, "per-tensor quantization without its table", value);
      return read_per_tensor(index, *p, value);
    }
    case fb::QuantParams::PerChannelQuant: {
      const fb::PerChannelQuant* p = wrapper.quant_params_as_PerChannelQuant();
      if (p == nullptr) return bad(index, "per-channel quantization without its table", value);
      return read_per_channel(index, *p, constant, value);
    }
    case fb::QuantParams::PerTokenDynamicQuant: {
      const fb::PerTokenDynamicQuant* p = wrapper.quant_params_as_PerTokenDynamicQuant();
      if (p == nullptr) return bad(index, "per-token quantization without its table", value);
      return read_per_token(index, *p, value);
    }
    case fb::QuantParams::PerChannelGroupQuant: {
      const fb::PerChannelGroupQuant* p = wrapper.quant_params_as_PerChannelGroupQuant();
      if (p == nullptr) return bad(index, "per-channel-group quantization without its table", value);
      return read_per_channel_group(index, *p, constant, value);
    }
    default:
      return bad(index, "quantized value without quantization parameters", value);
  }
}

const char* quant_kind_name(QuantKind kind) {
  switch (kind) {
    case QuantKind::kNone: return "none";
    case QuantKind::kPerTensor: return "per tensor";
    case QuantKind::kPerChannel: return "per channel";
    case QuantKind::kPerTokenDynamic: return "per token (dynamic)";
    case QuantKind::kPerChannelGroup: return "per channel group";
  }
  return "?";
}

}  // namespace etkit::xnnpack
