// The LLM op set (llama::) against attention, cache updates and the
// Hadamard transform written with libtorch ops: causal and not, grouped-query
// heads, start positions 0 and > 0, one query row and several, a float mask,
// int8 inputs with per-token scales, both layouts of the quantized op.
// Cache positions the op must not read hold NaN, so reading them shows.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "op_runner.h"

namespace etkit {
namespace {

using test::OpRunner;
using test::tensors_close;

struct Case {
  int64_t start, seq, q_heads, kv_heads;
  bool causal;
};

constexpr int64_t kBatch = 2, kCache = 24, kDim = 16;

// Attention in double with libtorch ops: q [B, S, Hq, D] at positions
// start.., keys and values [B, Skv, Hkv, D], the first `keys` of them.
at::Tensor reference_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t start,
                               int64_t keys, bool causal, const at::Tensor* mask, double scale) {
  const int64_t reps = q.size(2) / k.size(2);
  at::Tensor qt = q.to(at::kDouble).transpose(1, 2);
  at::Tensor kt = k.narrow(1, 0, keys).to(at::kDouble).repeat_interleave(reps, 2).transpose(1, 2);
  at::Tensor vt = v.narrow(1, 0, keys).to(at::kDouble).repeat_interleave(reps, 2).transpose(1, 2);
  at::Tensor scores = at::matmul(qt, kt.transpose(-1, -2)) * scale;
  if (mask != nullptr) scores = scores + mask->to(at::kDouble);
  if (causal) {
    const at::Tensor rows = at::arange(q.size(1), at::kLong).unsqueeze(1) + start;
    const at::Tensor cols = at::arange(keys, at::kLong).unsqueeze(0);
    scores = scores.masked_fill(cols > rows, -std::numeric_limits<double>::infinity());
  }
  return at::matmul(at::softmax(scores, -1), vt).transpose(1, 2).to(at::kFloat).contiguous();
}

// A cache whose first `valid` positions hold values and the rest NaN.
at::Tensor cache_with(int64_t heads, int64_t valid) {
  at::Tensor cache = at::randn({kBatch, kCache, heads, kDim});
  cache.narrow(1, valid, kCache - valid).fill_(std::numeric_limits<float>::quiet_NaN());
  return cache;
}

TEST(LlmOps, CustomSdpaEqualsAttentionInLibtorch) {
  at::manual_seed(29);
  for (const Case& c : {Case{0, 7, 4, 2, true}, Case{5, 1, 4, 4, true}, Case{3, 4, 8, 2, true},
                        Case{0, 16, 4, 4, false}, Case{9, 1, 6, 3, false}, Case{0, 1, 2, 1, true}}) {
    SCOPED_TRACE("start " + std::to_string(c.start) + " seq " + std::to_string(c.seq) + " heads " +
                 std::to_string(c.q_heads) + "/" + std::to_string(c.kv_heads) + (c.causal ? " causal" : ""));
    const at::Tensor q = at::randn({kBatch, c.seq, c.q_heads, kDim});
    const at::Tensor k = cache_with(c.kv_heads, c.start + c.seq), v = cache_with(c.kv_heads, c.start + c.seq);
    OpRunner op("llama::custom_sdpa.out");
    op.tensor(q).tensor(k).tensor(v).integer(c.start).none().real(0.0).boolean(c.causal).none()
        .out(at::kFloat, q.sizes()).returned();
    ASSERT_EQ(op.run(), "");
    const at::Tensor expected =
        reference_attention(q, k, v, c.start, c.start + c.seq, c.causal, nullptr, 1.0 / std::sqrt(double(kDim)));
    EXPECT_TRUE(tensors_close(op.result(), expected, 1e-5, 1e-5));
  }
}

TEST(LlmOps, CustomSdpaAddsAMaskOverTheWholeCacheAndTakesAScale) {
  at::manual_seed(30);
  const int64_t seq = 5;
  const at::Tensor q = at::randn({kBatch, seq, 4, kDim});
  const at::Tensor k = at::randn({kBatch, kCache, 2, kDim}), v = at::randn({kBatch, kCache, 2, kDim});
  // A padding-style mask: random biases and some keys cut off per row.
  at::Tensor mask = at::randn({seq, kCache});
  mask.narrow(1, 20, 4).fill_(-std::numeric_limits<float>::infinity());
  OpRunner op("llama::custom_sdpa.out");
  op.tensor(q).tensor(k).tensor(v).integer(0).optional_tensor(&mask).real(0.0).boolean(false).real(0.3)
      .out(at::kFloat, q.sizes()).returned();
  ASSERT_EQ(op.run(), "");
  EXPECT_TRUE(tensors_close(op.result(), reference_attention(q, k, v, 0, kCache, false, &mask, 0.3), 1e-5, 1e-5));
}

TEST(LlmOps, CustomSdpaRefusesWhatUpstreamRefuses) {
  const at::Tensor q = at::randn({1, 4, 4, kDim}), k = at::randn({1, 8, 3, kDim}), v = at::randn({1, 8, 3, kDim});
  const at::Tensor k2 = at::randn({1, 8, 2, kDim}), v2 = at::randn({1, 8, 2, kDim});
  const at::Tensor mask = at::zeros({4, 8});
  auto run = [&](const at::Tensor& kk, const at::Tensor& vv, int64_t start, const at::Tensor* m, bool causal,
                 double dropout) {
    OpRunner op("llama::custom_sdpa.out");
    op.tensor(q).tensor(kk).tensor(vv).integer(start).optional_tensor(m).real(dropout).boolean(causal).none()
        .out(at::kFloat, q.sizes()).returned();
    return op.run();
  };
  EXPECT_NE(run(k, v, 0, nullptr, true, 0).find("multiple of key/value heads"), std::string::npos);
  EXPECT_NE(run(k2, v2, 5, nullptr, true, 0).find("exceeds the 8 cached keys"), std::string::npos);
  EXPECT_NE(run(k2, v2, 0, &mask, true, 0).find("cannot be set at the same time"), std::string::npos);
  EXPECT_NE(run(k2, v2, 0, nullptr, true, 0.1).find("dropout"), std::string::npos);
  EXPECT_EQ(run(k2, v2, 4, nullptr, true, 0), "");
}

TEST(LlmOps, SdpaWithKvCacheWritesTheCachesThenAttends) {
  at::manual_seed(31);
  for (const Case& c : {Case{0, 6, 4, 2, true}, Case{6, 1, 4, 2, true}, Case{10, 3, 4, 4, true}}) {
    SCOPED_TRACE("start " + std::to_string(c.start) + " seq " + std::to_string(c.seq));
    const at::Tensor q = at::randn({kBatch, c.seq, c.q_heads, kDim});
    const at::Tensor k = at::randn({kBatch, c.seq, c.kv_heads, kDim}), v = at::randn({kBatch, c.seq, c.kv_heads, kDim});
    const at::Tensor k_cache = cache_with(c.kv_heads, c.start), v_cache = cache_with(c.kv_heads, c.start);
    OpRunner op("llama::sdpa_with_kv_cache.out");
    op.tensor(q).tensor(k).tensor(v).inout(k_cache).inout(v_cache).integer(c.start).integer(c.seq).none().real(0.0)
        .boolean(c.causal).none().out(at::kFloat, q.sizes()).returned();
    ASSERT_EQ(op.run(), "");
    at::Tensor expected_k = k_cache.clone(), expected_v = v_cache.clone();
    expected_k.narrow(1, c.start, c.seq).copy_(k);
    expected_v.narrow(1, c.start, c.seq).copy_(v);
    const int64_t written = c.start + c.seq;
    EXPECT_TRUE(tensors_close(op.result(0).narrow(1, 0, written), expected_k.narrow(1, 0, written)));
    EXPECT_TRUE(tensors_close(op.result(1).narrow(1, 0, written), expected_v.narrow(1, 0, written)));
    EXPECT_TRUE(op.result(0).narrow(1, written, kCache - written).isnan().all().item<bool>()) << "wrote past seq";
    const at::Tensor expected = reference_attention(q, expected_k, expected_v, c.start, written, c.causal, nullptr,
                                                    1.0 / std::sqrt(double(kDim)));
    EXPECT_TRUE(tensors_close(op.result(2), expected, 1e-5, 1e-5));
  }
}

TEST(LlmOps, UpdateCacheWritesAtStartPosOrAtIndices) {
  at::manual_seed(32);
  const at::Tensor value = at::randn({kBatch, 3, 2, kDim});
  const at::Tensor cache = at::randn({kBatch, kCache, 2, kDim});
  OpRunner op("llama::update_cache.out");
  op.tensor(value).inout(cache).integer(7).out(at::kFloat, {1}).returned();
  ASSERT_EQ(op.run(), "");
  at::Tensor expected = cache.clone();
  expected.narrow(1, 7, 3).copy_(value);
  EXPECT_TRUE(tensors_close(op.result(0), expected));

  const at::Tensor indices = at::tensor({5, 0, 23, 11, 12, 2}, at::kLong).reshape({kBatch, 3});
  OpRunner scattered("llama::update_cache_with_indices.out");
  scattered.tensor(value).inout(cache).integer(0).tensor(indices).out(at::kFloat, {1}).returned();
  ASSERT_EQ(scattered.run(), "");
  at::Tensor by_index = cache.clone();
  for (int64_t b = 0; b < kBatch; ++b) by_index[b].index_copy_(0, indices[b], value[b]);
  EXPECT_TRUE(tensors_close(scattered.result(0), by_index));

  OpRunner late("llama::update_cache.out");
  late.tensor(value).inout(cache).integer(22).out(at::kFloat, {1}).returned();
  EXPECT_NE(late.run().find("does not fit the cache's 24 positions"), std::string::npos);
  OpRunner outside("llama::update_cache_with_indices.out");
  outside.tensor(value).inout(cache).integer(0).tensor(indices + 1).out(at::kFloat, {1}).returned();
  EXPECT_NE(outside.run().find("index 24 is outside"), std::string::npos);
}

// int8 [.., D] rows with one scale and zero point per row.
struct QuantizedRows {
  at::Tensor q, zero_points, scales;
  at::Tensor dequantized() const { return (q.to(at::kFloat) - zero_points.to(at::kFloat)) * scales; }
};
QuantizedRows quantized_rows(at::IntArrayRef sizes) {
  std::vector<int64_t> param_sizes(sizes.begin(), sizes.end());
  param_sizes.back() = 1;
  return {at::randint(-128, 128, sizes, at::kChar), at::randint(-20, 20, param_sizes, at::kChar),
          at::rand(param_sizes) * 0.05 + 0.01};
}

TEST(LlmOps, CustomQuantizedSdpaEqualsAttentionOnTheDequantizedRows) {
  at::manual_seed(33);
  for (bool seq_at_dim_2 : {false, true}) {
    SCOPED_TRACE(seq_at_dim_2 ? "[B, H, S, D]" : "[B, S, H, D]");
    const int64_t start = 4, seq = 3;
    auto layout = [&](int64_t s, int64_t h) {
      return seq_at_dim_2 ? std::vector<int64_t>{kBatch, h, s, kDim} : std::vector<int64_t>{kBatch, s, h, kDim};
    };
    const QuantizedRows q = quantized_rows(layout(seq, 4)), k = quantized_rows(layout(kCache, 2)),
                        v = quantized_rows(layout(kCache, 2));
    OpRunner op("llama::custom_quantized_sdpa.out");
    op.tensor(q.q).tensor(k.q).tensor(v.q).integer(start).none().real(0.0).boolean(true).none()
        .tensor(q.zero_points).tensor(q.scales).tensor(k.zero_points).tensor(k.scales).tensor(v.zero_points)
        .tensor(v.scales).boolean(seq_at_dim_2).out(at::kFloat, q.q.sizes()).returned();
    ASSERT_EQ(op.run(), "");
    auto to_bshd = [&](const at::Tensor& t) { return seq_at_dim_2 ? t.transpose(1, 2).contiguous() : t; };
    const at::Tensor expected = reference_attention(to_bshd(q.dequantized()), to_bshd(k.dequantized()),
                                                    to_bshd(v.dequantized()), start, start + seq, true, nullptr,
                                                    1.0 / std::sqrt(double(kDim)));
    EXPECT_TRUE(tensors_close(to_bshd(op.result()), expected, 1e-5, 1e-5));
  }
  // Float inputs run as custom_sdpa.
  const at::Tensor q = at::randn({1, 2, 2, kDim}), k = at::randn({1, 8, 2, kDim}), v = at::randn({1, 8, 2, kDim});
  OpRunner plain("llama::custom_quantized_sdpa.out");
  plain.tensor(q).tensor(k).tensor(v).integer(1).none().real(0.0).boolean(true).none().none().none().none().none()
      .none().none().boolean(false).out(at::kFloat, q.sizes()).returned();
  ASSERT_EQ(plain.run(), "");
  EXPECT_TRUE(tensors_close(plain.result(), reference_attention(q, k, v, 1, 3, true, nullptr, 0.25), 1e-5, 1e-5));
}

// Sylvester's Hadamard matrix of order n (a power of two).
at::Tensor sylvester(int64_t n) {
  at::Tensor h = at::ones({1, 1}, at::kDouble);
  const at::Tensor two = at::tensor({1.0, 1.0, 1.0, -1.0}, at::kDouble).reshape({2, 2});
  while (h.size(0) < n) h = at::kron(h, two);
  return h;
}

TEST(LlmOps, FastHadamardTransformIsTheNormalizedSylvesterMatrix) {
  at::manual_seed(34);
  for (int64_t n : {1, 2, 8, 32, 128}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const at::Tensor x = at::randn({3, 2, n});
    OpRunner op("llama::fast_hadamard_transform.out");
    op.tensor(x).out(at::kFloat, x.sizes()).returned();
    ASSERT_EQ(op.run(), "");
    const at::Tensor expected = (at::matmul(x.to(at::kDouble), sylvester(n)) / std::sqrt(double(n))).to(at::kFloat);
    EXPECT_TRUE(tensors_close(op.result(), expected, 1e-5, 1e-5));
  }
  for (int64_t n : {12, 28}) {
    OpRunner op("llama::fast_hadamard_transform.out");
    op.tensor(at::randn({2, n})).out(at::kFloat, {2, n}).returned();
    EXPECT_NE(op.run().find("must be a power of two"), std::string::npos) << n;
  }
}

}  // namespace
}  // namespace etkit
