// Quantized XNNPACK payloads, built here in upstream's layout, against an
// integer reference written in this file from the documented arithmetic
// (not XNNPACK): static qs8 activations with qc8w filters (run by Debian's
// XNNPACK), and dynamically quantized linears, qd8 activations with qc8w,
// qc4w or blockwise qb4w weights (run by etkit's integer kernels).
// Static results are within one output quantum; dynamic ones within float
// rounding of the exact integer sums. Also the int8 x int4 GEMM itself,
// exactly, and the errors for quantized values etkit cannot run.

#include <gtest/gtest.h>
#include <ATen/ATen.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "etkit/core/backend.h"
#include "etkit/core/kernel_registry.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "etkit/delegates/xnnpack/xnn_support.h"
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#include "etkit/kernels/int4_channel_blocks.h"
#include "etkit/kernels/int8_gemm.h"
#include "etkit/kernels/qd8_rows.h"
#include "support/corpus.h"
#include "support/kernels.h"
#include "support/xnn_payload_builder.h"

namespace etkit::xnnpack {
namespace {

using nlohmann::json;
using test::checked;
using test::PayloadBuilder;

constexpr uint64_t kSeed = 20261125;  // fixed: the checks hold for any draw

int constant_of(PayloadBuilder& p, const at::Tensor& t) {
  const at::Tensor dense = t.contiguous();
  return p.constant(dense.data_ptr(), size_t(dense.nbytes()));
}

Tensor view_of(at::Tensor& t) {
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  return checked(Tensor::make(ScalarType::kFloat, Span<const int64_t>(sizes.data(), sizes.size()), {},
                              t.data_ptr<float>(), size_t(t.numel()) * 4),
                 "tensor");
}

// With ETKIT_WRITE_FUZZ_SEEDS=<dir>, each payload these tests build is
// also written there (how fuzz/seeds/xnnpack_payload/quantized_*.bin were made).
void maybe_write_seed(const std::vector<uint8_t>& payload) {
  static int count = 0;
  const char* dir = std::getenv("ETKIT_WRITE_FUZZ_SEEDS");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/quantized_" + std::to_string(count++) + ".bin";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(payload.data(), 1, payload.size(), f);
    std::fclose(f);
  }
}

// Runs a one-input, one-output payload fused or node by node.
at::Tensor run_payload(const std::vector<uint8_t>& payload, at::Tensor input, std::vector<int64_t> out_sizes,
                       bool per_node, std::string* log = nullptr, int threads = 1) {
  if (!per_node) maybe_write_seed(payload);
  XnnpackOptions options;
  options.threads = threads;
  static std::string captured;  // the log hook is a plain function pointer
  captured.clear();
  if (log != nullptr) options.log = [](const std::string& line) { captured += line; };
  XnnpackBackend backend(options);
  BackendInitContext context;
  context.kernels = &all_kernels();
  context.tracing = per_node;
  context.method_name = "forward";
  void* handle = checked(backend.init(context, ByteSpan{payload.data(), payload.size()}, {}), "init");
  at::Tensor output = at::zeros(out_sizes);
  Tensor in = view_of(input), out = view_of(output);
  Value in_value = Value::from_tensor(&in), out_value = Value::from_tensor(&out);
  Value* args[] = {&in_value, &out_value};
  BackendExecutionContext execution;
  Status status = backend.execute(execution, handle, Span<Value*>(args, 2));
  EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message());
  backend.destroy(handle);
  if (log != nullptr) *log = captured;
  return output;
}

std::string load_error(const std::vector<uint8_t>& payload) {
  XnnpackBackend backend;
  BackendInitContext context;
  context.kernels = &all_kernels();
  auto handle = backend.init(context, ByteSpan{payload.data(), payload.size()}, {});
  if (handle.ok()) {
    backend.destroy(*handle);
    return "";
  }
  return handle.error().message();
}

// ---- the reference: documented affine arithmetic, written independently ----

// Static quantization of a real value: round half to even, clamp.
int32_t quantize(double x, double scale, int32_t zero_point) {
  const double q = std::nearbyint(x / scale) + zero_point;
  return int32_t(std::min(127.0, std::max(-128.0, q)));
}

at::Tensor random_int8(std::mt19937_64& rng, std::vector<int64_t> sizes, int lo = -127, int hi = 127) {
  std::uniform_int_distribution<int> pick(lo, hi);
  at::Tensor t = at::empty(sizes, at::kChar);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<int8_t>()[i] = int8_t(pick(rng));
  return t;
}

TEST(XnnpackQuantized, StaticConvolutionIsWithinOneQuantumOfTheIntegerReference) {
  std::mt19937_64 rng(kSeed);
  const float s_in = 0.05f, s_out = 0.1f;
  const int zp_in = 3, zp_out = -5;
  const std::vector<float> s_w = {0.01f, 0.02f};
  const at::Tensor w = random_int8(rng, {2, 3, 3, 3});  // OHWI
  const at::Tensor bias = at::tensor({150, -320}, at::kInt);
  PayloadBuilder p;
  const int x = p.value("fp32", {1, 4, 4, 3}, 0, 1);
  const int xq = p.per_tensor("qint8", {1, 4, 4, 3}, s_in, zp_in);
  const int wq = p.per_channel("qcint8", {2, 3, 3, 3}, s_w, constant_of(p, w));
  const int bq = p.per_channel("qcint32", {2}, {s_in * s_w[0], s_in * s_w[1]}, constant_of(p, bias));
  const int yq = p.per_tensor("qint8", {1, 4, 4, 2}, s_out, zp_out);
  const int y = p.value("fp32", {1, 4, 4, 2}, 0, 2);
  p.convert(x, xq, 1);
  json conv = {{"padding_top", 1}, {"padding_right", 1}, {"padding_bottom", 1}, {"padding_left", 1},
               {"kernel_height", 3}, {"kernel_width", 3}, {"subsampling_height", 1}, {"subsampling_width", 1},
               {"dilation_height", 1}, {"dilation_width", 1}, {"group_input_channels", 3},
               {"group_output_channels", 2}, {"groups", 1}, {"input1_id", xq}, {"filter_id", wq},
               {"bias_id", bq}, {"output_id", yq}};
  p.node("Conv2d", 2, conv);
  p.convert(yq, y, 3);
  const std::vector<uint8_t> payload = p.finish();
  const at::Tensor input = at::randn({1, 4, 4, 3}) * 2;
  at::Tensor expected = at::zeros({1, 4, 4, 2});
  const auto in = input.accessor<float, 4>();
  const auto wa = w.accessor<int8_t, 4>();
  for (int oh = 0; oh < 4; ++oh)
    for (int ow = 0; ow < 4; ++ow)
      for (int oc = 0; oc < 2; ++oc) {
        int64_t acc = bias[oc].item<int32_t>();
        for (int kh = 0; kh < 3; ++kh)
          for (int kw = 0; kw < 3; ++kw)
            for (int ic = 0; ic < 3; ++ic) {
              const int ih = oh - 1 + kh, iw = ow - 1 + kw;
              if (ih < 0 || iw < 0 || ih >= 4 || iw >= 4) continue;
              acc += int64_t(quantize(in[0][ih][iw][ic], s_in, zp_in) - zp_in) * wa[oc][kh][kw][ic];
            }
        const int32_t q = quantize(double(acc) * s_in * s_w[oc], s_out, zp_out);
        expected[0][oh][ow][oc] = float(q - zp_out) * s_out;
      }
  for (bool per_node : {false, true}) {
    std::string log;
    const at::Tensor actual = run_payload(payload, input.clone(), {1, 4, 4, 2}, per_node, &log);
    EXPECT_LE((actual - expected).abs().max().item<float>(), s_out * 1.001f) << (per_node ? "node by node" : "fused");
    EXPECT_NE(log.find("3 on XNNPACK"), std::string::npos) << log;
  }
}

TEST(XnnpackQuantized, StaticLinearWithPerChannelFilterRunsAsAPointwiseConvolution) {
  std::mt19937_64 rng(kSeed + 1);
  const float s_in = 0.04f, s_out = 0.2f;
  const int zp_in = -2, zp_out = 7;
  const std::vector<float> s_w = {0.01f, 0.03f, 0.02f, 0.015f};
  const at::Tensor w = random_int8(rng, {4, 8});
  const at::Tensor bias = at::tensor({10, -400, 900, 0}, at::kInt);
  PayloadBuilder p;
  const int x = p.value("fp32", {3, 8}, 0, 1);
  const int xq = p.per_tensor("qint8", {3, 8}, s_in, zp_in);
  std::vector<float> bias_scales;
  for (float s : s_w) bias_scales.push_back(s_in * s);
  const int wq = p.per_channel("qcint8", {4, 8}, s_w, constant_of(p, w));
  const int bq = p.per_channel("qcint32", {4}, bias_scales, constant_of(p, bias));
  const int yq = p.per_tensor("qint8", {3, 4}, s_out, zp_out);
  const int y = p.value("fp32", {3, 4}, 0, 2);
  p.convert(x, xq, 1);
  p.fully_connected(xq, wq, bq, yq, 2);
  p.convert(yq, y, 3);
  const at::Tensor input = at::randn({3, 8});
  at::Tensor expected = at::zeros({3, 4});
  for (int r = 0; r < 3; ++r)
    for (int o = 0; o < 4; ++o) {
      int64_t acc = bias[o].item<int32_t>();
      for (int c = 0; c < 8; ++c) {
        acc += int64_t(quantize(input[r][c].item<float>(), s_in, zp_in) - zp_in) * w[o][c].item<int8_t>();
      }
      expected[r][o] = float(quantize(double(acc) * s_in * s_w[o], s_out, zp_out) - zp_out) * s_out;
    }
  const at::Tensor actual = run_payload(p.finish(), input.clone(), {3, 4}, false);
  EXPECT_LE((actual - expected).abs().max().item<float>(), s_out * 1.001f);
}

// Quantize-dequantize in double, as the documented affine arithmetic does
// (round half to even, clamp to int8): the float reference's steps.
at::Tensor fake_quant(const at::Tensor& x, double scale, int zero_point) {
  at::Tensor q = at::clamp(at::round(x.to(at::kDouble) / scale) + zero_point, -128, 127);
  return ((q - zero_point) * scale).to(at::kFloat);
}

// The graph of issue #38, as upstream's XNNPACK lowering of a small int8
// CNN lays it out: Convert fp32 NCHW [1,3,16,16] -> qs8, StaticTranspose to
// NHWC, 3x3 Conv2d qs8 x qc8w, depthwise 3x3 qs8 x qc8w, StaticTranspose
// back to NCHW, reshape, FullyConnected, Convert. The transposes run on
// the portable fallback over one-byte qs8 buffers with 3 and 4 channels:
// the word copy used to treat them as floats and overran them (ASan and
// valgrind: invalid read of 16, write of 8 in copy_words<unsigned int>).
TEST(XnnpackQuantized, TransposedInt8ConvolutionsMatchTheirFloatReferenceWithinOneQuantum) {
  std::mt19937_64 rng(kSeed + 7);
  const float s_x = 0.03f, s_c = 0.05f, s_d = 0.02f, s_y = 0.05f;
  const int zp_x = 1, zp_c = -3, zp_d = 2, zp_y = -1;
  const int c1 = 4, classes = 10, features = c1 * 16 * 16;
  const std::vector<float> s_w = {0.010f, 0.012f, 0.008f, 0.011f}, s_dw = {0.02f, 0.015f, 0.025f, 0.01f};
  const at::Tensor w = random_int8(rng, {c1, 3, 3, 3});  // OHWI
  const at::Tensor wd = random_int8(rng, {1, 3, 3, c1});  // 1HWC
  const at::Tensor wf = random_int8(rng, {classes, features}, -100, 100);
  std::vector<float> s_f(classes);
  for (int o = 0; o < classes; ++o) s_f[size_t(o)] = 0.0004f + 0.00002f * float(o);
  const at::Tensor bias = at::tensor({40, -25, 0, 12}, at::kInt);

  PayloadBuilder p;
  const int x = p.value("fp32", {1, 3, 16, 16}, 0, 1);
  const int xq = p.per_tensor("qint8", {1, 3, 16, 16}, s_x, zp_x);
  const int xt = p.per_tensor("qint8", {1, 16, 16, 3}, s_x, zp_x);
  const int wq = p.per_channel("qcint8", {c1, 3, 3, 3}, s_w, constant_of(p, w));
  std::vector<float> s_b;
  for (float s : s_w) s_b.push_back(s_x * s);
  const int bq = p.per_channel("qcint32", {c1}, s_b, constant_of(p, bias));
  const int conv = p.per_tensor("qint8", {1, 16, 16, c1}, s_c, zp_c);
  const int wdq = p.per_channel("qcint8", {1, 3, 3, c1}, s_dw, constant_of(p, wd), 3);
  const int dw = p.per_tensor("qint8", {1, 16, 16, c1}, s_d, zp_d);
  const int back = p.per_tensor("qint8", {1, c1, 16, 16}, s_d, zp_d);
  const int flat = p.per_tensor("qint8", {1, features}, s_d, zp_d);
  const int wfq = p.per_channel("qcint8", {classes, features}, s_f, constant_of(p, wf));
  const int yq = p.per_tensor("qint8", {1, classes}, s_y, zp_y);
  const int y = p.value("fp32", {1, classes}, 0, 2);
  p.convert(x, xq, 1);
  p.node("StaticTranspose", 2, {{"num_dims", 4}, {"perm", {0, 2, 3, 1}}, {"input_id", xq}, {"output_id", xt}});
  const json window = {{"padding_top", 1}, {"padding_right", 1}, {"padding_bottom", 1}, {"padding_left", 1},
                       {"kernel_height", 3}, {"kernel_width", 3}, {"subsampling_height", 1},
                       {"subsampling_width", 1}, {"dilation_height", 1}, {"dilation_width", 1}};
  json conv_params = window;
  conv_params.update({{"group_input_channels", 3}, {"group_output_channels", c1}, {"groups", 1},
                      {"input1_id", xt}, {"filter_id", wq}, {"bias_id", bq}, {"output_id", conv}});
  p.node("Conv2d", 3, conv_params);
  json dw_params = window;
  dw_params.update({{"group_input_channels", 1}, {"group_output_channels", 1}, {"groups", c1},
                    {"input1_id", conv}, {"filter_id", wdq}, {"bias_id", kNoValue}, {"output_id", dw}});
  p.node("DepthwiseConv2d", 4, dw_params);
  p.node("StaticTranspose", 5, {{"num_dims", 4}, {"perm", {0, 3, 1, 2}}, {"input_id", dw}, {"output_id", back}});
  p.node("StaticReshape", 6, {{"num_dims", 2}, {"new_shape", {1, features}}, {"input_id", back}, {"output_id", flat}});
  p.fully_connected(flat, wfq, -1, yq, 7);
  p.convert(yq, y, 8);
  const std::vector<uint8_t> payload = p.finish();

  // The float reference: libtorch's float ops on dequantized weights, with
  // each activation quantized where the graph quantizes it.
  const at::Tensor input = at::randn({1, 3, 16, 16}) * 1.5;
  const auto per_channel = [](const at::Tensor& q, const std::vector<float>& scales, int64_t dim) {
    std::vector<int64_t> shape(size_t(q.dim()), 1);
    shape[size_t(dim)] = int64_t(scales.size());
    return q.to(at::kFloat) * at::tensor(scales).reshape(shape);
  };
  const at::Tensor w_real = per_channel(w, s_w, 0).permute({0, 3, 1, 2});    // OIHW
  const at::Tensor wd_real = per_channel(wd, s_dw, 3).permute({3, 0, 1, 2});  // C,1,H,W
  const at::Tensor b_real = bias.to(at::kFloat) * at::tensor(s_b);
  at::Tensor r = fake_quant(input, s_x, zp_x);
  r = fake_quant(at::conv2d(r, w_real, b_real, 1, 1), s_c, zp_c);
  r = fake_quant(at::conv2d(r, wd_real, {}, 1, 1, 1, c1), s_d, zp_d);
  const at::Tensor expected = fake_quant(at::linear(r.reshape({1, features}), per_channel(wf, s_f, 0)), s_y, zp_y);
  for (bool per_node : {false, true}) {
    std::string log;
    const at::Tensor actual = run_payload(payload, input.clone(), {1, classes}, per_node, &log);
    EXPECT_LE((actual - expected).abs().max().item<float>(), s_y * 1.001f)
        << (per_node ? "node by node" : "fused") << "\n" << actual << "\n" << expected;
    EXPECT_NE(log.find("2 on portable kernels"), std::string::npos) << log;
  }
}

// The portable fallback copies elements between values of one datatype
// and quantization only, and computes in fp32 only: anything else is a
// load error naming the node (not a silent reinterpretation of bytes).
TEST(XnnpackQuantized, PortableFallbackRefusesWhatItCannotComputeNamingTheNode) {
  PayloadBuilder requantizing;
  const int x = requantizing.value("fp32", {2, 3}, 0, 1);
  const int a = requantizing.per_tensor("qint8", {2, 3}, 0.1f, 0);
  const int b = requantizing.per_tensor("qint8", {3, 2}, 0.2f, 0);
  const int y = requantizing.value("fp32", {3, 2}, 0, 2);
  requantizing.convert(x, a, 1);
  requantizing.node("StaticTranspose", 2, {{"num_dims", 2}, {"perm", {1, 0}}, {"input_id", a}, {"output_id", b}});
  requantizing.convert(b, y, 3);
  const std::string requantize_error = load_error(requantizing.finish());
  EXPECT_NE(requantize_error.find("node 1 (StaticTranspose, debug handle 2) reads qs8 value 1 into qs8 value 2"),
            std::string::npos) << requantize_error;

  PayloadBuilder integer_tanh;
  const int in = integer_tanh.value("fp32", {4}, 0, 1);
  const int q = integer_tanh.per_tensor("qint8", {4}, 0.1f, 0);
  const int t = integer_tanh.per_tensor("qint8", {4}, 0.1f, 0);
  const int out = integer_tanh.value("fp32", {4}, 0, 2);
  integer_tanh.convert(in, q, 1);
  integer_tanh.node("Tanh", 2, {{"input_id", q}, {"output_id", t}});
  integer_tanh.convert(t, out, 3);
  const std::string tanh_error = load_error(integer_tanh.finish());
  EXPECT_NE(tanh_error.find("node 1 (Tanh, debug handle 2) reads qs8 value 1; etkit's portable aten::tanh.out "
                            "fallback computes in fp32 only"),
            std::string::npos) << tanh_error;
}

// ---- dynamic quantization ----

// XNNPACK's documented per-row parameters, computed here in float as its
// reference does: multiplier 255 / (max - min) over a range holding 0; the
// zero point from the end that loses less.
struct RowParams {
  float scale;
  int zero_point;
  float multiplier;
};
RowParams row_params(const float* x, int k) {
  float lo = 0, hi = 0;
  for (int i = 0; i < k; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
  const float multiplier = lo == hi ? 1.0f : 255.0f / (hi - lo);
  const float from_min = -128.0f - lo * multiplier, from_max = 127.0f - hi * multiplier;
  float zp = (-128.0f + lo * multiplier) + (127.0f + hi * multiplier) > 0 ? from_min : from_max;
  zp = std::min(127.0f, std::max(-128.0f, zp));
  return {1.0f / multiplier, int(std::nearbyint(zp)), 1.0f / (1.0f / multiplier)};
}

enum class WeightKind { kQc8w, kQc4w, kQb4w };

// The weight value of a dynamically quantized linear: int8 per channel, or
// 4-bit (two values per byte, the even column in the low nibble, stored +
// 8) per channel or in blocks of `group` with bf16 scales.
int weight_value(PayloadBuilder& p, WeightKind kind, const at::Tensor& values, const std::vector<float>& scales,
                 int group) {
  const int n = int(values.size(0)), k = int(values.size(1));
  if (kind == WeightKind::kQc8w) return p.per_channel("qcint8", {n, k}, scales, constant_of(p, values));
  std::vector<uint8_t> packed(size_t(n * k / 2));
  const int8_t* v = values.data_ptr<int8_t>();
  for (int j = 0; j < n; ++j) {
    for (int c = 0; c < k; c += 2) {
      packed[size_t(j * k / 2 + c / 2)] = uint8_t((v[j * k + c] + 8) | ((v[j * k + c + 1] + 8) << 4));
    }
  }
  const int data = p.constant(packed.data(), packed.size());
  if (kind == WeightKind::kQc4w) return p.per_channel("qcint4", {n, k}, scales, data);
  std::vector<uint16_t> bf16;
  for (float s : scales) {
    uint32_t bits;
    std::memcpy(&bits, &s, 4);
    bf16.push_back(uint16_t(bits >> 16));
  }
  const int scale_data = p.constant(bf16.data(), bf16.size() * 2);
  return p.value("qbint4", {n, k}, data, 0,
                 {{"channel_dim", 0}, {"group_size", group}, {"scale_buffer_idx", scale_data},
                  {"num_scales", scales.size()}},
                 "PerChannelGroupQuant");
}

// The documented arithmetic: each row quantized by XNNPACK's rule, int64
// dot products per block, scaled by the block's and the row's scales, plus bias.
at::Tensor dynamic_linear_reference(const at::Tensor& input, const at::Tensor& values,
                                    const std::vector<float>& scales, const at::Tensor& bias, int groups) {
  const int rows = int(input.size(0)), k = int(input.size(1)), n = int(values.size(0));
  at::Tensor expected = at::zeros({rows, n});
  const int8_t* weight_values = values.data_ptr<int8_t>();
  for (int r = 0; r < rows; ++r) {
    const float* xr = input.data_ptr<float>() + r * k;
    const RowParams q = row_params(xr, k);
    std::vector<int> xq_row(static_cast<size_t>(k));
    for (int c = 0; c < k; ++c) {
      const float scaled = std::min(std::max(xr[c] * q.multiplier, float(-128 - q.zero_point)), float(127 - q.zero_point));
      xq_row[size_t(c)] = int(std::nearbyint(scaled)) + q.zero_point;
    }
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int g = 0; g < groups; ++g) {
        int64_t acc = 0;
        for (int c = g * (k / groups); c < (g + 1) * (k / groups); ++c) {
          acc += int64_t(xq_row[size_t(c)] - q.zero_point) * weight_values[j * k + c];
        }
        sum += double(acc) * scales[size_t(j * groups + g)];
      }
      expected[r][j] = float(sum * q.scale + bias[j].item<float>());
    }
  }
  return expected;
}

// [rows, k] fp32 -> qd8 -> linear with [n, k] weights (+ bias) -> fp32.
void check_dynamic_linear(WeightKind kind) {
  std::mt19937_64 rng(kSeed + 2 + int(kind));
  // 9 rows: two four-row batches of the 4-bit kernel and one row alone; 20
  // channels: two blocks of eight and a partial one; 256 columns: eight
  // groups, and enough work to split over threads.
  const int rows = 9, k = 256, n = 20, group = 32;
  const at::Tensor values = kind == WeightKind::kQc8w ? random_int8(rng, {n, k}) : random_int8(rng, {n, k}, -8, 7);
  const int groups = kind == WeightKind::kQb4w ? k / group : 1;
  std::vector<float> scales(size_t(n * groups));
  std::uniform_real_distribution<float> pick(0.002f, 0.05f);
  for (float& s : scales) {
    s = pick(rng);
    if (kind == WeightKind::kQb4w) {  // bf16-exact, as the format stores them
      uint32_t bits;
      std::memcpy(&bits, &s, 4);
      bits &= 0xFFFF0000u;
      std::memcpy(&s, &bits, 4);
    }
  }
  const at::Tensor bias = at::randn({n});
  PayloadBuilder p;
  const int x = p.value("fp32", {rows, k}, 0, 1);
  const int xq = p.value("qdint8", {rows, k}, 0, 0, {{"num_nonbatch_dims", 1}}, "PerTokenDynamicQuant");
  const int wq = weight_value(p, kind, values, scales, group);
  const int b = p.value("fp32", {n}, constant_of(p, bias));
  const int y = p.value("fp32", {rows, n}, 0, 2);
  p.convert(x, xq, 1);
  p.fully_connected(xq, wq, b, y, 2);
  const std::vector<uint8_t> payload = p.finish();
  const at::Tensor input = at::randn({rows, k}) * 3;
  const at::Tensor expected = dynamic_linear_reference(input, values, scales, bias, groups);
  at::Tensor one_thread;
  for (bool per_node : {false, true}) {
    for (int threads : {1, 2, 3}) {
      std::string log;
      const at::Tensor actual = run_payload(payload, input.clone(), {rows, n}, per_node, &log, threads);
      EXPECT_TRUE(at::allclose(actual, expected, 1e-5, 1e-5))
          << int(kind) << " " << (actual - expected).abs().max().item<float>();
      EXPECT_NE(log.find("2 on etkit's dynamic quantization kernels"), std::string::npos) << log;
      // Output channels split over threads: the same bits for any count.
      if (!one_thread.defined()) one_thread = actual;
      EXPECT_TRUE(at::equal(actual, one_thread)) << int(kind) << " threads " << threads << " per node " << per_node;
    }
  }
}

TEST(XnnpackQuantized, DynamicLinearWithQc8wWeights) { check_dynamic_linear(WeightKind::kQc8w); }
TEST(XnnpackQuantized, DynamicLinearWithQc4wWeights) { check_dynamic_linear(WeightKind::kQc4w); }
TEST(XnnpackQuantized, DynamicLinearWithBlockwiseQb4wWeights) { check_dynamic_linear(WeightKind::kQb4w); }

TEST(XnnpackQuantized, Int4DotProductsEqualTheIntegerProduct) {
  // The packed-byte dot products (activations split into even and odd
  // columns, unsigned nibbles, minus 8 * sum(x)) against plain int64 sums.
  std::mt19937_64 rng(kSeed + 9);
  for (size_t k : {size_t(32), size_t(64), size_t(33), size_t(2048)}) {
    const at::Tensor x = random_int8(rng, {int64_t(k)}, -128, 127);
    const at::Tensor w = random_int8(rng, {int64_t(k)}, -8, 7);
    std::vector<uint8_t> packed((k + 1) / 2, 0);
    for (size_t c = 0; c < k; ++c) {
      const uint8_t nibble = uint8_t(w[int64_t(c)].item<int8_t>() + 8);
      packed[c / 2] |= c % 2 == 0 ? nibble : uint8_t(nibble << 4);
    }
    if (k % 2 != 0) packed.back() |= 0x80;  // the padding nibble holds 8, as a serialized 0
    std::vector<int8_t> even((k + 1) / 2), odd((k + 1) / 2);
    kernels::split_even_odd(x.data_ptr<int8_t>(), k, even.data(), odd.data());
    int64_t x_sum = 0, expected = 0;
    for (size_t c = 0; c < k; ++c) {
      x_sum += x[int64_t(c)].item<int8_t>();
      expected += int64_t(x[int64_t(c)].item<int8_t>()) * w[int64_t(c)].item<int8_t>();
    }
    const int32_t dot = kernels::dot_s8_u4(even.data(), odd.data(), packed.data(), packed.size()) - 8 * int32_t(x_sum);
    EXPECT_EQ(dot, expected) << k;
    if (k % 32 == 0) {  // groups of 32 columns, each against its own sum
      std::vector<int32_t> dots(k / 32);
      std::vector<int32_t> scratch(kernels::group_scratch_ints(k / 32)), generic(k / 32);
      kernels::group_dots_s8_u4(even.data(), odd.data(), packed.data(), k / 32, 16, dots.data(), scratch.data());
      kernels::group_dots_s8_u4_generic(even.data(), odd.data(), packed.data(), k / 32, 16, generic.data(),
                                        scratch.data());
      EXPECT_EQ(dots, generic) << "AVX2 and generic paths differ for k " << k;
      for (size_t g = 0; g < k / 32; ++g) {
        int64_t group_expected = 0, group_sum = 0;
        for (size_t c = g * 32; c < (g + 1) * 32; ++c) {
          group_sum += x[int64_t(c)].item<int8_t>();
          group_expected += int64_t(x[int64_t(c)].item<int8_t>()) * w[int64_t(c)].item<int8_t>();
        }
        EXPECT_EQ(dots[g] - 8 * group_sum, group_expected) << k << " group " << g;
      }
    }
    std::vector<int8_t> unpacked(k);
    kernels::unpack_s4(packed.data(), k, unpacked.data());
    EXPECT_EQ(kernels::dot_s8(x.data_ptr<int8_t>(), unpacked.data(), k), expected) << k;
  }
}

// One weight row against many activation rows at once gives each row's
// group products as one call per row does, wherever the layout puts them.
TEST(XnnpackQuantized, Int4GroupDotsOfManyRowsEqualThoseOfEachRow) {
  std::mt19937_64 rng(kSeed + 11);
  std::uniform_int_distribution<int> byte(0, 255), value(-128, 127);
  for (const size_t group_bytes : {size_t(16), size_t(32)}) {  // 16: the AVX2 kernel where there is one
    for (const size_t groups : {1u, 2u, 3u, 8u}) {
      for (const size_t rows : {1u, 3u, 4u, 5u, 9u}) {
        const size_t bytes = groups * group_bytes, stride = bytes + 3;  // rows apart, not packed
        std::vector<int8_t> even(rows * stride), odd(rows * stride);
        for (size_t i = 0; i < even.size(); ++i) {
          even[i] = int8_t(value(rng));
          odd[i] = int8_t(value(rng));
        }
        std::vector<uint8_t> packed(bytes);
        for (uint8_t& b : packed) b = uint8_t(byte(rng));
        const kernels::DotLayout layout{groups * 8 + 1, 8};  // a channel block's layout, one column in
        std::vector<int32_t> dots(rows * layout.row + 1, -1), scratch(kernels::rows_scratch_ints(groups));
        kernels::group_dots_s8_u4_rows(even.data(), odd.data(), stride, rows, packed.data(), groups, group_bytes,
                                       dots.data() + 1, layout, scratch.data());
        for (size_t r = 0; r < rows; ++r) {
          std::vector<int32_t> one(groups), one_scratch(kernels::group_scratch_ints(groups));
          kernels::group_dots_s8_u4(even.data() + r * stride, odd.data() + r * stride, packed.data(), groups,
                                    group_bytes, one.data(), one_scratch.data());
          for (size_t g = 0; g < groups; ++g) {
            EXPECT_EQ(dots[1 + r * layout.row + g * layout.group], one[g])
                << "group bytes " << group_bytes << ", " << groups << " groups, row " << r << " of " << rows;
          }
        }
      }
    }
  }
}

// Weights repacked in blocks of eight channels give each row's group
// products as plain integer sums over the unpacked weights do, on the VNNI
// path (where the core has it), the AVX2 one and the portable one, padding
// channels included (they sum to 0).
TEST(XnnpackQuantized, Int4ChannelBlockDotsEqualTheIntegerSums) {
  std::mt19937_64 rng(kSeed + 13);
  std::uniform_int_distribution<int> byte(0, 255), value(-128, 127);
  for (const size_t k : {size_t(8), size_t(64), size_t(256)}) {
    for (const size_t group : {size_t(8), size_t(32), k}) {
      if (group > k || k % group != 0) continue;
      for (const size_t n : {size_t(8), size_t(20)}) {
        for (const size_t rows : {size_t(1), size_t(3), size_t(4), size_t(5), size_t(9)}) {
          std::vector<uint8_t> weights(n * k / 2);
          for (uint8_t& b : weights) b = uint8_t(byte(rng));
          std::vector<int8_t> x(rows * k);
          for (int8_t& v : x) v = int8_t(value(rng));
          const std::vector<uint8_t> blocks = kernels::pack_int4_channel_blocks(weights.data(), n, k);
          ASSERT_EQ(blocks.size(), (n + 7) / 8 * 4 * k);
          const size_t groups = k / group;
          for (size_t b = 0; b < (n + 7) / 8; ++b) {
            std::vector<int32_t> fast(rows * groups * 8, -1), generic(rows * groups * 8, -1);
            std::vector<int32_t> without_vnni(rows * groups * 8, -1);
            kernels::channel_block_dots_s8_u4(x.data(), rows, k, blocks.data() + b * 4 * k, group, fast.data());
            kernels::channel_blocks_allow_vnni(false);
            kernels::channel_block_dots_s8_u4(x.data(), rows, k, blocks.data() + b * 4 * k, group,
                                              without_vnni.data());
            kernels::channel_blocks_allow_vnni(true);
            kernels::channel_block_dots_s8_u4_generic(x.data(), rows, k, blocks.data() + b * 4 * k, group,
                                                      generic.data());
            EXPECT_EQ(fast, generic) << "k " << k << " group " << group << " rows " << rows << " block " << b;
            EXPECT_EQ(without_vnni, generic) << "k " << k << " group " << group << " rows " << rows << " block " << b;
            for (size_t r = 0; r < rows; ++r) {
              for (size_t g = 0; g < groups; ++g) {
                for (size_t c = 0; c < 8; ++c) {
                  const size_t j = 8 * b + c;
                  int64_t expected = 0;  // stored nibbles (value + 8), channels past n all 0
                  for (size_t col = g * group; j < n && col < (g + 1) * group; ++col) {
                    const uint8_t packed = weights[j * k / 2 + col / 2];
                    expected += int64_t(x[r * k + col]) * (col % 2 == 0 ? packed & 0x0F : packed >> 4);
                  }
                  EXPECT_EQ(fast[(r * groups + g) * 8 + c], expected)
                      << "k " << k << " group " << group << " row " << r << " group " << g << " channel " << j;
                }
              }
            }
          }
        }
      }
    }
  }
}

// A row's finite range and its qd8 values, on the AVX2 path and the
// portable one, against std::nearbyint over the finite values: halves,
// NaN, infinities, negative zero and values past the clamp, at every
// offset of an 8-wide step and its tail.
TEST(XnnpackQuantized, Qd8RowPassesEqualTheirDefinition) {
  std::mt19937_64 rng(kSeed + 17);
  std::uniform_real_distribution<float> spread(-300.0f, 300.0f);
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 2.5f, -2.5f, 3.5f, 1e30f, -1e30f, 127.5f, -128.5f};
  for (const size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(13), size_t(64), size_t(257)}) {
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<float> x(n);
      for (float& v : x) {
        v = spread(rng);
        if (rng() % 4 == 0) v = std::round(v) + 0.5f;  // a half: ties go to even
        if (rng() % 9 == 0) v = specials[rng() % std::size(specials)];
      }
      float min = 0, max = 0, generic_min = 0, generic_max = 0;
      kernels::finite_range(x.data(), n, min, max);
      kernels::finite_range_generic(x.data(), n, generic_min, generic_max);
      float expected_min = INFINITY, expected_max = -INFINITY;
      for (float v : x) {
        if (!std::isfinite(v)) continue;
        expected_min = std::min(expected_min, v);
        expected_max = std::max(expected_max, v);
      }
      // Equal as numbers (a zero's sign may differ between paths).
      EXPECT_TRUE(min == expected_min && max == expected_max && generic_min == expected_min &&
                  generic_max == expected_max)
          << n << ": " << min << " " << max;
      const int32_t zero_point = int32_t(rng() % 256) - 128;
      const float multiplier = 0.8f, lo = float(-128 - zero_point), hi = float(127 - zero_point);
      std::vector<int8_t> fast(n), generic(n);
      kernels::quantize_qd8(x.data(), n, multiplier, lo, hi, zero_point, fast.data());
      kernels::quantize_qd8_generic(x.data(), n, multiplier, lo, hi, zero_point, generic.data());
      for (size_t i = 0; i < n; ++i) {
        const float product = x[i] * multiplier;
        const int expected =
            std::isnan(product) ? zero_point : int(std::nearbyint(std::min(std::max(product, lo), hi))) + zero_point;
        EXPECT_EQ(int(fast[i]), expected) << "n " << n << " at " << i << ": " << x[i];
        EXPECT_EQ(int(generic[i]), expected) << "n " << n << " at " << i << ": " << x[i];
      }
    }
  }
}

TEST(XnnpackQuantized, QuantizedValuesEtkitCannotRunFailNamingValueAndNode) {
  // A qdint8 value read by an Add, and a 4-bit filter of a static linear.
  PayloadBuilder p;
  const int x = p.value("fp32", {2, 4}, 0, 1);
  const int xq = p.value("qdint8", {2, 4}, 0, 0, {{"num_nonbatch_dims", 1}}, "PerTokenDynamicQuant");
  const int sum = p.value("fp32", {2, 4}, 0, 2);
  p.convert(x, xq, 1);
  p.node("Add", 2, {{"input1_id", xq}, {"input2_id", xq}, {"output_id", sum}});
  EXPECT_NE(load_error(p.finish()).find("read by a Add node"), std::string::npos) << load_error(p.finish());
  // Per-tensor quantization with a zero point outside qint8.
  PayloadBuilder q;
  const int in = q.value("fp32", {2}, 0, 1);
  const int bad = q.per_tensor("qint8", {2}, 0.1f, 300);
  const int out = q.value("fp32", {2}, 0, 2);
  q.convert(in, bad, 1);
  q.convert(bad, out, 2);
  EXPECT_NE(load_error(q.finish()).find("zero point is out of the datatype's range"), std::string::npos)
      << load_error(q.finish());
}

// A blockwise 4-bit linear whose block size does not divide the row (24 of
// 64 columns) would index past its sums and scales: refused at load (the
// payload reader's check; the kernel's preparation checks it again).
TEST(XnnpackQuantized, ABlockSizeThatDoesNotDivideTheRowIsRefused) {
  const int k = 64, n = 2, group = 24;
  PayloadBuilder p;
  const int x = p.value("fp32", {1, k}, 0, 1);
  const int xq = p.value("qdint8", {1, k}, 0, 0, {{"num_nonbatch_dims", 1}}, "PerTokenDynamicQuant");
  std::vector<uint8_t> packed(size_t(n * k / 2), 0x88);
  const int data = p.constant(packed.data(), packed.size());
  std::vector<uint16_t> scales(size_t(n * 3), 0x3c00);  // bf16 scales, ceil(64 / 24) per channel
  const int scale_data = p.constant(scales.data(), scales.size() * 2);
  const int wq = p.value("qbint4", {n, k}, data, 0,
                         {{"channel_dim", 0}, {"group_size", group}, {"scale_buffer_idx", scale_data},
                          {"num_scales", scales.size()}},
                         "PerChannelGroupQuant");
  const int y = p.value("fp32", {1, n}, 0, 2);
  p.convert(x, xq, 1);
  p.fully_connected(xq, wq, -1, y, 2);
  const std::string error = load_error(p.finish());
  EXPECT_NE(error.find("group_size must be even and divide the input channels"), std::string::npos) << error;
}

TEST(XnnpackQuantized, ValueKindsAndRunnersAreReported) {
  PayloadBuilder p;
  const int x = p.value("fp32", {1, 64}, 0, 1);
  const int xq = p.value("qdint8", {1, 64}, 0, 0, {{"num_nonbatch_dims", 1}}, "PerTokenDynamicQuant");
  std::vector<uint8_t> packed(8 * 32, 0x88);
  std::vector<uint16_t> scales(16, 0x3C00);  // bf16 0.0078125
  const int w = p.value("qbint4", {8, 64}, p.constant(packed.data(), packed.size()), 0,
                        {{"channel_dim", 0}, {"group_size", 32},
                         {"scale_buffer_idx", p.constant(scales.data(), scales.size() * 2)}, {"num_scales", 16}},
                        "PerChannelGroupQuant");
  const int y = p.value("fp32", {1, 8}, 0, 2);
  p.convert(x, xq, 1);
  p.fully_connected(xq, w, -1, y, 2);
  const std::vector<uint8_t> payload = p.finish();
  const XnnGraph graph = checked(read_xnn_graph(ByteSpan{payload.data(), payload.size()}, nullptr), "graph");
  EXPECT_EQ(value_kind(graph.values[size_t(xq)]), "qd8");
  EXPECT_EQ(value_kind(graph.values[size_t(w)]), "qb4w");
  EXPECT_FLOAT_EQ(graph.values[size_t(w)].quant.scales[0], 0.0078125f);
  EXPECT_EQ(node_runner(graph, graph.nodes[1]), NodeRunner::kDynamicQuant);
  EXPECT_EQ(operator_name(graph, graph.nodes[1]), "Fully Connected (NC, QD8, FP32, QB4W) etkit");
  EXPECT_TRUE(unsupported_reason(graph).empty()) << unsupported_reason(graph);
  // All weights 0 (0x88 is 8, 8): the output is 0 whatever the input.
  const at::Tensor out = run_payload(payload, at::randn({1, 64}), {1, 8}, false);
  EXPECT_EQ(out.abs().max().item<float>(), 0.0f);
}

}  // namespace
}  // namespace etkit::xnnpack

namespace etkit::xnnpack {
namespace {

// Upstream's runtime binds delegate argument k to the external value whose
// external id is k, whatever order input_ids lists the inputs in (its
// lowering of a YOLO-style detector lists them out of order; etkit used to
// bind by input_ids position and refused the call on a size mismatch).
TEST(XnnpackBackend, ArgumentsBindByExternalIdNotByInputIdsOrder) {
  PayloadBuilder p;
  const int a = p.value("fp32", {2, 3}, 0, 1);  // external id 0: argument 0
  const int b = p.value("fp32", {2, 3}, 0, 1);  // external id 1: argument 1
  const int out = p.value("fp32", {2, 3}, 0, 2);
  p.node("Subtract", 1, {{"input1_id", a}, {"input2_id", b}, {"output_id", out}});
  std::swap(p.inputs[0], p.inputs[1]);  // input_ids = [b, a]
  const std::vector<uint8_t> payload = p.finish();
  const XnnGraph graph = checked(read_xnn_graph(ByteSpan{payload.data(), payload.size()}, nullptr), "graph");
  ASSERT_EQ(graph.inputs.size(), 2u);
  EXPECT_EQ(graph.inputs[0], uint32_t(a));
  EXPECT_EQ(graph.inputs[1], uint32_t(b));

  XnnpackBackend backend;
  BackendInitContext context;
  context.kernels = &all_kernels();
  void* handle = checked(backend.init(context, ByteSpan{payload.data(), payload.size()}, {}), "init");
  at::Tensor x = at::arange(6, at::kFloat).reshape({2, 3}), y = at::full({2, 3}, 10.f), z = at::zeros({2, 3});
  Tensor tx = view_of(x), ty = view_of(y), tz = view_of(z);
  Value vx = Value::from_tensor(&tx), vy = Value::from_tensor(&ty), vz = Value::from_tensor(&tz);
  Value* args[] = {&vx, &vy, &vz};
  BackendExecutionContext execution;
  const Status status = backend.execute(execution, handle, Span<Value*>(args, 3));
  ASSERT_TRUE(status.ok()) << status.error().message();
  EXPECT_TRUE(at::equal(z, x - y)) << z;  // argument 0 minus argument 1, by hand
  backend.destroy(handle);
}

TEST(XnnpackBackend, ExternalIdsThatDoNotNumberTheArgumentsAreRefusedAtLoad) {
  PayloadBuilder p;
  const int a = p.value("fp32", {2}, 0, 1);
  const int b = p.value("fp32", {2}, 0, 1);
  const int out = p.value("fp32", {2}, 0, 2);
  p.values[b]["value"]["external_id"] = 0;  // two inputs claim argument 0
  p.node("Add", 1, {{"input1_id", a}, {"input2_id", b}, {"output_id", out}});
  const std::vector<uint8_t> payload = p.finish();
  auto graph = read_xnn_graph(ByteSpan{payload.data(), payload.size()}, nullptr);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(std::string(graph.error().message()).find("external ids 0 to 2, one each"), std::string::npos)
      << graph.error().message();
}

}  // namespace
}  // namespace etkit::xnnpack
