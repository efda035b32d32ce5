#include "xnn_graph_generator.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "support/xnn_payload_layout.h"
#include "xnnpack_graph_generated.h"

namespace etkit::fuzz {
namespace {

namespace fb = etkit_xnnpack_fb;
using Dims = std::vector<uint32_t>;
using D = fb::Datatype;

enum class Quant { kNone, kPerTensor, kPerChannel, kPerToken, kPerChannelGroup };

struct ValueSpec {
  D type = D::fp32;
  Dims dims;
  Quant quant = Quant::kNone;
  float scale = 0.1f;
  int32_t zero_point = 0;
  uint32_t channel_dim = 0;
  uint32_t group_size = 0;
  uint32_t constant = 0;  // index into the constant table, 0 for none
  bool input = false, output = false;
};

uint64_t numel(const Dims& dims) {
  uint64_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

unsigned bits_of(D type) {
  switch (type) {
    case D::qint8: case D::quint8: case D::qcint8: case D::qdint8: return 8;
    case D::qcint4: case D::qbint4: return 4;
    default: return 32;
  }
}

class Generator {
 public:
  explicit Generator(Choices& in) : in_(in) {}

  std::vector<uint8_t> run() {
    const size_t inputs = 1 + in_.pick(2);
    for (size_t i = 0; i < inputs; ++i) live_.push_back(external_input(random_dims(1 + in_.pick(4))));
    const size_t count = 1 + in_.pick(7);
    for (size_t n = 0; n < count; ++n) add_node();
    values_[live_.back()].output = true;
    if (in_.pick(4) == 0) values_[live_[in_.pick(live_.size())]].output = true;
    return finish();
  }

 private:
  // ---- values ----
  uint32_t add(ValueSpec spec) {
    values_.push_back(std::move(spec));
    return uint32_t(values_.size() - 1);
  }
  uint32_t dim() {  // mostly small, sometimes odd or prime, now and then empty
    static const uint32_t kSizes[] = {1, 2, 3, 4, 5, 7, 1, 3, 13, 0};
    return kSizes[in_.pick(in_.pick(16) == 0 ? 10 : 9)];
  }
  Dims random_dims(size_t rank) {
    Dims dims(rank);
    for (uint32_t& d : dims) d = dim();
    return dims;
  }
  uint32_t external_input(Dims dims) {
    ValueSpec spec;
    spec.dims = std::move(dims);
    spec.input = true;
    if (in_.pick(4) == 0) quantize_per_tensor(spec, in_.coin() ? D::qint8 : D::quint8);
    return add(spec);
  }
  void quantize_per_tensor(ValueSpec& spec, D type) {
    spec.type = type;
    spec.quant = Quant::kPerTensor;
    static const float kScales[] = {0.5f, 0.05f, 0.003f, 1e-30f, 7.0f};
    spec.scale = kScales[in_.pick(5)];
    spec.zero_point = type == D::quint8 ? int32_t(in_.pick(256)) : int32_t(in_.pick(256)) - 128;
    if (type == D::qint32) spec.zero_point = 0;
    if (in_.pick(64) == 0) spec.zero_point = 300;  // out of range: must be refused
  }
  // An intermediate like `like` (same element kind) with `dims`.
  uint32_t like(uint32_t v, Dims dims) {
    ValueSpec spec = values_[v];
    spec.dims = std::move(dims);
    spec.constant = 0;
    spec.input = spec.output = false;
    if (spec.quant == Quant::kPerTensor && in_.pick(4) == 0) quantize_per_tensor(spec, spec.type);
    if (spec.type == D::qdint8) spec = ValueSpec{D::fp32, spec.dims};
    return add(spec);
  }
  // A constant of `type` (fp32 values in [-2, 2], integers over their range).
  uint32_t constant(D type, Dims dims, Quant quant, uint32_t channel_dim = 0, uint32_t group_size = 0) {
    ValueSpec spec;
    spec.type = type;
    spec.dims = std::move(dims);
    spec.quant = quant;
    spec.channel_dim = channel_dim;
    spec.group_size = group_size;
    spec.scale = 0.02f;
    uint64_t bytes = (numel(spec.dims) * bits_of(type) + 7) / 8;
    if (in_.pick(32) == 0 && bytes > 0) --bytes;  // a constant shorter than its shape: refused
    spec.constant = constant_bytes(bytes, type == D::fp32);
    return add(spec);
  }
  uint32_t constant_bytes(uint64_t size, bool floats) {
    data_.resize((data_.size() + 15) / 16 * 16);
    offsets_.push_back({data_.size(), size});
    uint32_t state = in_.word() | 1;
    for (uint64_t i = 0; i < size; i += floats ? 4 : 1) {
      state = state * 1664525u + 1013904223u;
      if (floats) {
        const float x = float(int32_t(state >> 8) % 4096) / 1024.0f;
        const uint8_t* raw = reinterpret_cast<const uint8_t*>(&x);
        data_.insert(data_.end(), raw, raw + std::min<uint64_t>(4, size - i));
      } else {
        data_.push_back(uint8_t(state >> 24));
      }
    }
    return uint32_t(offsets_.size() - 1);
  }
  uint32_t pick_live() { return live_[live_.size() - 1 - in_.pick(std::min<size_t>(live_.size(), 3))]; }
  uint32_t live_of_rank(size_t rank) {
    for (size_t i = live_.size(); i-- > 0;) {
      if (values_[live_[i]].dims.size() == rank && in_.pick(4) != 0) return live_[i];
    }
    return external_input(random_dims(rank));
  }

  // ---- nodes ----
  void node(fb::NodeUnion kind, flatbuffers::Offset<void> params, uint32_t output) {
    flatbuffers::Offset<fb::OutputMinMax> range = 0;
    if (in_.pick(6) == 0) range = fb::CreateOutputMinMax(b_, -float(in_.pick(4)), float(in_.pick(7)));
    nodes_.push_back(fb::CreateNode(b_, kind, params, uint32_t(nodes_.size() + 1), range));
    live_.push_back(output);
  }
  uint32_t id(uint32_t v) { return in_.pick(128) == 0 ? uint32_t(values_.size() + 5) : v; }  // sometimes dangling
  Dims maybe_wrong(Dims dims) {
    if (!dims.empty() && in_.pick(24) == 0) dims[in_.pick(dims.size())] += 1;
    return dims;
  }

  void add_node() {
    switch (in_.pick(14)) {
      case 0: case 1: return unary();
      case 2: return binary();
      case 3: return transpose();
      case 4: return reshape();
      case 5: return slice();
      case 6: return concatenate();
      case 7: case 8: return convolution();
      case 9: return pooling();
      case 10: return fully_connected();
      case 11: return convert();
      case 12: return pad_or_resize();
      default: return other();
    }
  }

  void unary() {
    static const fb::NodeUnion kKinds[] = {
        fb::NodeUnion::Abs, fb::NodeUnion::Negate, fb::NodeUnion::Square, fb::NodeUnion::SquareRoot,
        fb::NodeUnion::Ceiling, fb::NodeUnion::Floor, fb::NodeUnion::Hardswish, fb::NodeUnion::Sigmoid,
        fb::NodeUnion::Clamp, fb::NodeUnion::Softmax, fb::NodeUnion::Gelu, fb::NodeUnion::Tanh,
        fb::NodeUnion::Exp, fb::NodeUnion::Sin, fb::NodeUnion::Log, fb::NodeUnion::ReciprocalSquareRoot,
        fb::NodeUnion::GlobalAvgPooling2d};
    const fb::NodeUnion kind = kKinds[in_.pick(std::size(kKinds))];
    const uint32_t x = pick_live();
    Dims dims = values_[x].dims;
    if (kind == fb::NodeUnion::GlobalAvgPooling2d && dims.size() == 4) dims[1] = dims[2] = 1;
    const uint32_t y = like(x, maybe_wrong(dims));
    node(kind, fb::CreateNode1x1(b_, id(x), y).Union(), y);
  }

  void binary() {
    static const fb::NodeUnion kKinds[] = {fb::NodeUnion::Add,     fb::NodeUnion::Subtract, fb::NodeUnion::Multiply,
                                           fb::NodeUnion::Div,     fb::NodeUnion::Minimum,  fb::NodeUnion::Maximum,
                                           fb::NodeUnion::PReLU,   fb::NodeUnion::BatchMatrixMultiply};
    const fb::NodeUnion kind = kKinds[in_.pick(std::size(kKinds))];
    const uint32_t a = pick_live();
    Dims dims = values_[a].dims;
    if (kind == fb::NodeUnion::BatchMatrixMultiply) {
      if (dims.size() < 3) dims.insert(dims.begin(), 3 - dims.size(), 1);
      Dims b_dims = dims;
      b_dims.back() = dim();
      std::swap(b_dims[b_dims.size() - 2], b_dims.back());
      b_dims[b_dims.size() - 2] = dims.back();
      const uint32_t a3 = dims == values_[a].dims ? a : like(a, dims);
      const uint32_t b = in_.coin() ? constant(D::fp32, b_dims, Quant::kNone) : like(a, b_dims);
      Dims out = dims;
      out.back() = b_dims.back();
      const uint32_t y = like(a, maybe_wrong(out));
      node(kind, fb::CreateNode2x1(b_, id(a3), b, y).Union(), y);
      return;
    }
    Dims b_dims = dims;
    if (!b_dims.empty() && in_.coin()) b_dims[in_.pick(b_dims.size())] = 1;  // broadcast
    if (in_.pick(8) == 0) b_dims.erase(b_dims.begin(), b_dims.begin() + long(in_.pick(b_dims.size() + 1)));
    const ValueSpec sa = values_[a];
    const uint32_t b = in_.coin() ? constant(sa.type == D::qdint8 ? D::fp32 : sa.type, b_dims,
                                             sa.quant == Quant::kPerTensor ? Quant::kPerTensor : Quant::kNone)
                                  : like(a, b_dims);
    const uint32_t y = like(a, maybe_wrong(dims));
    node(kind, fb::CreateNode2x1(b_, id(a), b, y).Union(), y);
  }

  void transpose() {
    const uint32_t x = pick_live();
    const Dims in = values_[x].dims;
    std::vector<uint32_t> perm(in.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = uint32_t(i);
    for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[in_.pick(i)]);
    if (!perm.empty() && in_.pick(32) == 0) perm[0] = perm.back();  // not a permutation
    Dims out(in.size());
    for (size_t i = 0; i < perm.size(); ++i) out[i] = in[std::min<size_t>(perm[i], in.size() - 1)];
    const uint32_t y = like(x, maybe_wrong(out));
    node(fb::NodeUnion::StaticTranspose,
         fb::CreateStaticTranspose(b_, uint32_t(perm.size()), b_.CreateVector(perm), id(x), y).Union(), y);
  }

  void reshape() {
    const uint32_t x = pick_live();
    const Dims in = values_[x].dims;
    Dims out;
    switch (in_.pick(3)) {
      case 0: out = {uint32_t(numel(in))}; break;
      case 1: out = {1, uint32_t(numel(in))}; break;
      default: out = in; std::reverse(out.begin(), out.end()); break;
    }
    const uint32_t y = like(x, maybe_wrong(out));
    node(fb::NodeUnion::StaticReshape,
         fb::CreateStaticReshape(b_, uint32_t(out.size()), b_.CreateVector(out), id(x), y).Union(), y);
  }

  void slice() {
    const uint32_t x = pick_live();
    const Dims in = values_[x].dims;
    Dims offsets(in.size()), sizes(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      offsets[d] = in[d] == 0 ? 0 : uint32_t(in_.pick(in[d]));
      sizes[d] = in[d] - offsets[d] == 0 ? 0 : 1 + uint32_t(in_.pick(in[d] - offsets[d]));
    }
    const uint32_t y = like(x, maybe_wrong(sizes));
    node(fb::NodeUnion::StaticSlice,
         fb::CreateStaticSlice(b_, uint32_t(in.size()), b_.CreateVector(offsets), b_.CreateVector(sizes), id(x), y)
             .Union(),
         y);
  }

  void concatenate() {
    static const fb::NodeUnion kKinds[] = {fb::NodeUnion::Concatenate2, fb::NodeUnion::Concatenate3,
                                           fb::NodeUnion::Concatenate4, fb::NodeUnion::Concatenate5};
    const size_t parts = 2 + in_.pick(4);
    const uint32_t x = pick_live();
    Dims out = values_[x].dims;
    if (out.empty()) out.push_back(1);
    const uint32_t axis = uint32_t(in_.pick(out.size()));
    uint32_t ids[5] = {};
    for (size_t i = 0; i < parts; ++i) ids[i] = x;
    if (values_[x].dims.empty()) ids[0] = like(x, out);
    out[axis] *= uint32_t(parts);
    const uint32_t y = like(x, maybe_wrong(out));
    node(kKinds[parts - 2],
         fb::CreateCat(b_, axis, id(ids[0]), ids[1], ids[2], ids[3], y, 0, ids[4]).Union(), y);
  }

  // The filter and bias kinds a quantized or float convolution reads.
  void filter_and_bias(uint32_t x, Dims filter_dims, uint32_t channel_dim, uint32_t channels, uint32_t& filter,
                       uint32_t& bias) {
    const ValueSpec in = values_[x];
    if (in.type == D::fp32 || in_.pick(16) == 0) {
      filter = constant(D::fp32, filter_dims, Quant::kNone);
      bias = in_.coin() ? constant(D::fp32, {channels}, Quant::kNone) : UINT32_MAX;
      return;
    }
    const bool per_channel = in_.coin();
    filter = constant(per_channel ? D::qcint8 : in.type, filter_dims,
                      per_channel ? Quant::kPerChannel : Quant::kPerTensor, channel_dim);
    bias = in_.coin() ? constant(per_channel ? D::qcint32 : D::qint32, {channels},
                                 per_channel ? Quant::kPerChannel : Quant::kPerTensor)
                      : UINT32_MAX;
  }

  static uint32_t window_out(uint32_t in, uint32_t pad, uint32_t kernel, uint32_t stride, uint32_t dilation) {
    const int64_t span = int64_t(dilation) * (kernel - 1) + 1;
    const int64_t padded = int64_t(in) + 2 * pad;
    return padded < span ? 0 : uint32_t((padded - span) / stride + 1);
  }

  void convolution() {
    const uint32_t x = live_of_rank(4);
    const Dims in = values_[x].dims;  // NHWC
    const uint32_t k = 1 + uint32_t(in_.pick(3)), stride = 1 + uint32_t(in_.pick(2)),
                   pad = uint32_t(in_.pick(2)), dilation = 1 + uint32_t(in_.pick(8) == 0);
    const int kind = int(in_.pick(3));  // conv, depthwise, transposed
    const uint32_t channels = in[3], out_channels = kind == 1 ? channels : 1 + uint32_t(in_.pick(4));
    Dims out = in;
    if (kind == 2) {
      out[1] = in[1] == 0 ? 0 : (in[1] - 1) * stride + dilation * (k - 1) + 1 - std::min(2 * pad, in[1]);
      out[2] = in[2] == 0 ? 0 : (in[2] - 1) * stride + dilation * (k - 1) + 1 - std::min(2 * pad, in[2]);
    } else {
      out[1] = window_out(in[1], pad, k, stride, dilation);
      out[2] = window_out(in[2], pad, k, stride, dilation);
    }
    out[3] = out_channels;
    uint32_t filter = 0, bias = 0;
    const Dims filter_dims = kind == 1 ? Dims{1, k, k, channels} : Dims{out_channels, k, k, channels};
    filter_and_bias(x, filter_dims, kind == 1 ? 3 : 0, out_channels, filter, bias);
    const uint32_t y = like(x, maybe_wrong(out));
    const uint32_t groups = kind == 1 ? channels : 1;
    auto params = fb::CreateNodeConv(b_, pad, pad, pad, pad, k, k, stride, stride, dilation, dilation,
                                     kind == 1 ? 1 : channels, kind == 1 ? 1 : out_channels, groups, 0, 0, id(x),
                                     filter, bias, y);
    static const fb::NodeUnion kKinds[] = {fb::NodeUnion::Conv2d, fb::NodeUnion::DepthwiseConv2d,
                                           fb::NodeUnion::ConvTranspose2d};
    node(kKinds[kind], params.Union(), y);
  }

  void pooling() {
    const uint32_t x = live_of_rank(4);
    const Dims in = values_[x].dims;
    const uint32_t k = 1 + uint32_t(in_.pick(3)), stride = 1 + uint32_t(in_.pick(2)), pad = uint32_t(in_.pick(2));
    const int kind = int(in_.pick(3));  // avg, max, argmax
    Dims out = in;
    out[1] = window_out(in[1], pad, k, kind == 2 ? k : stride, 1);
    out[2] = window_out(in[2], pad, k, kind == 2 ? k : stride, 1);
    const uint32_t y = like(x, maybe_wrong(out));
    if (kind == 2) {
      ValueSpec index;
      index.type = D::int32;
      index.dims = out;
      const uint32_t indices = add(index);
      node(fb::NodeUnion::ArgMaxPooling2d,
           fb::CreateArgMaxPooling2d(b_, pad, pad, pad, pad, k, k, id(x), y, indices).Union(), y);
      return;
    }
    node(kind == 0 ? fb::NodeUnion::AvgPooling2d : fb::NodeUnion::MaxPooling2d,
         fb::CreatePooling2D(b_, pad, pad, pad, pad, k, k, stride, stride, 1, 1, id(x), y).Union(), y);
  }

  void fully_connected() {
    uint32_t x = pick_live();
    Dims in = values_[x].dims;
    if (in.empty()) return;
    const uint32_t k = in.back(), n = 1 + uint32_t(in_.pick(5));
    Dims out = in;
    out.back() = n;
    uint32_t filter = 0, bias = UINT32_MAX;
    if (values_[x].type == D::fp32 && in_.coin()) {
      // Dynamic quantization: fp32 -> qd8, then a qc8w, qc4w or qb4w filter.
      ValueSpec qd;
      qd.type = D::qdint8;
      qd.dims = in;
      qd.quant = Quant::kPerToken;
      const uint32_t xq = add(qd);
      node(fb::NodeUnion::Convert, fb::CreateNode1x1(b_, x, xq).Union(), xq);
      x = xq;
      switch (in_.pick(3)) {
        case 0: filter = constant(D::qcint8, {n, k}, Quant::kPerChannel); break;
        case 1: filter = constant(D::qcint4, {n, k}, Quant::kPerChannel); break;
        default: filter = constant(D::qbint4, {n, k}, Quant::kPerChannelGroup, 0, in_.coin() ? 32 : 2); break;
      }
      if (in_.coin()) bias = constant(D::fp32, {n}, Quant::kNone);
    } else {
      filter_and_bias(x, {n, k}, 0, n, filter, bias);
    }
    ValueSpec y_spec = values_[x].type == D::qdint8 ? ValueSpec{D::fp32, out} : values_[x];
    y_spec.dims = maybe_wrong(out);
    y_spec.constant = 0;
    y_spec.input = y_spec.output = false;
    const uint32_t y = add(y_spec);
    node(fb::NodeUnion::FullyConnected, fb::CreateFullyConnected(b_, id(x), filter, bias, y).Union(), y);
  }

  void convert() {
    const uint32_t x = pick_live();
    ValueSpec out = values_[x];
    out.constant = 0;
    out.input = out.output = false;
    if (out.type == D::fp32) {
      static const D kTo[] = {D::qint8, D::quint8, D::qdint8};
      const D to = kTo[in_.pick(3)];
      if (to == D::qdint8) {
        out.type = to;
        out.quant = Quant::kPerToken;
      } else {
        quantize_per_tensor(out, to);
      }
    } else {
      out = ValueSpec{D::fp32, out.dims};
    }
    const uint32_t y = add(out);
    node(fb::NodeUnion::Convert, fb::CreateNode1x1(b_, id(x), y).Union(), y);
  }

  void pad_or_resize() {
    const uint32_t x = in_.coin() ? pick_live() : live_of_rank(4);
    Dims out = values_[x].dims;
    if (out.size() == 4 && in_.coin()) {
      out[1] = 1 + uint32_t(in_.pick(6));
      out[2] = 1 + uint32_t(in_.pick(6));
      const uint32_t y = like(x, maybe_wrong(out));
      node(fb::NodeUnion::StaticResizeBilinear2D,
           fb::CreateStaticResizeBilinear2D(b_, out[1], out[2], id(x), y, uint32_t(in_.pick(4))).Union(), y);
      return;
    }
    Dims pre(out.size()), post(out.size());
    for (size_t d = 0; d < out.size(); ++d) {
      pre[d] = uint32_t(in_.pick(3));
      post[d] = uint32_t(in_.pick(3));
      out[d] += pre[d] + post[d];
    }
    const uint32_t y = like(x, maybe_wrong(out));
    node(fb::NodeUnion::StaticConstantPad,
         fb::CreateStaticConstantPad(b_, b_.CreateVector(pre), b_.CreateVector(post), 0.5f, id(x), y).Union(), y);
  }

  void other() {
    const uint32_t x = pick_live();
    const uint32_t y = like(x, maybe_wrong(values_[x].dims));
    switch (in_.pick(3)) {
      case 0: node(fb::NodeUnion::ELU, fb::CreateELU(b_, 0.5f, id(x), y).Union(), y); break;
      case 1: node(fb::NodeUnion::LeakyReLU, fb::CreateLeakyReLU(b_, 0.1f, id(x), y).Union(), y); break;
      default:  // not run by etkit: must be refused at load, naming the node
        node(fb::NodeUnion::ScaledDotProductAttention,
             fb::CreateScaledDotProductAttention(b_, id(x), x, x, x, x, y).Union(), y);
    }
  }

  // ---- the payload ----
  flatbuffers::Offset<fb::Value> value_table(const ValueSpec& v, uint32_t external_id, uint32_t id_out) {
    const uint32_t flags = (v.input ? 1u : 0u) | (v.output ? 2u : 0u);
    auto tensor = fb::CreateTensorValue(b_, v.type, uint32_t(v.dims.size()), b_.CreateVector(v.dims), v.constant,
                                        external_id, flags, id_out);
    if (v.quant == Quant::kNone) return fb::CreateValue(b_, fb::ValueUnion::TensorValue, tensor.Union());
    fb::QuantParams kind = fb::QuantParams::PerTensorQuant;
    flatbuffers::Offset<void> params;
    const uint32_t channels = v.channel_dim < v.dims.size() ? v.dims[v.channel_dim] : 1;
    switch (v.quant) {
      case Quant::kPerChannel: {
        kind = fb::QuantParams::PerChannelQuant;
        std::vector<float> scales(channels + (in_.pick(32) == 0), 0.01f);
        params = fb::CreatePerChannelQuant(b_, b_.CreateVector(scales), int32_t(v.channel_dim)).Union();
        break;
      }
      case Quant::kPerToken:
        kind = fb::QuantParams::PerTokenDynamicQuant;
        params = fb::CreatePerTokenDynamicQuant(b_, 1).Union();
        break;
      case Quant::kPerChannelGroup: {
        kind = fb::QuantParams::PerChannelGroupQuant;
        const uint32_t k = v.dims.size() > 1 ? v.dims[1] : 1;
        const uint32_t groups = v.group_size == 0 ? 1 : std::max(1u, k / v.group_size);
        std::vector<uint16_t> bf16(size_t(channels) * groups, 0x3C00);
        params = fb::CreatePerChannelGroupQuant(b_, 0, int32_t(v.channel_dim), int32_t(v.group_size),
                                                b_.CreateVector(bf16))
                     .Union();
        break;
      }
      default: params = fb::CreatePerTensorQuant(b_, v.scale, v.zero_point).Union(); break;
    }
    auto quantized = fb::CreateQuantizedTensorValue(b_, tensor, kind, params);
    return fb::CreateValue(b_, fb::ValueUnion::QuantizedTensorValue, quantized.Union());
  }

  std::vector<uint8_t> finish() {
    std::vector<uint32_t> inputs, outputs;
    for (uint32_t v = 0; v < values_.size(); ++v) {
      if (values_[v].input) inputs.push_back(v);
    }
    for (uint32_t v = 0; v < values_.size(); ++v) {
      if (values_[v].output && !values_[v].input) outputs.push_back(v);
    }
    std::vector<flatbuffers::Offset<fb::Value>> values;
    for (uint32_t v = 0; v < values_.size(); ++v) {
      uint32_t external = UINT32_MAX;
      for (size_t i = 0; i < inputs.size(); ++i) external = inputs[i] == v ? uint32_t(i) : external;
      for (size_t i = 0; i < outputs.size(); ++i) external = outputs[i] == v ? uint32_t(inputs.size() + i) : external;
      values.push_back(value_table(values_[v], external, v));
    }
    std::vector<flatbuffers::Offset<fb::ConstantDataOffset>> offsets;
    for (const auto& [offset, size] : offsets_) offsets.push_back(fb::CreateConstantDataOffset(b_, offset, size));
    auto graph = fb::CreateGraph(b_, b_.CreateString("0"), b_.CreateVector(nodes_), b_.CreateVector(values),
                                 uint32_t(inputs.size() + outputs.size()), b_.CreateVector(inputs),
                                 b_.CreateVector(outputs), 0, 0, b_.CreateVector(offsets));
    b_.Finish(graph, fb::GraphIdentifier());
    return test::xnn_payload(b_.GetBufferPointer(), b_.GetSize(), data_);
  }

  Choices& in_;
  flatbuffers::FlatBufferBuilder b_;
  std::vector<ValueSpec> values_;
  std::vector<uint32_t> live_;
  std::vector<flatbuffers::Offset<fb::Node>> nodes_;
  std::vector<uint8_t> data_;
  std::vector<std::pair<uint64_t, uint64_t>> offsets_ = {{0, 0}};  // index 0: no constant
};

}  // namespace

std::vector<uint8_t> generate_xnn_payload(Choices& choices) { return Generator(choices).run(); }

}  // namespace etkit::fuzz
