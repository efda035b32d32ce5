#include "etkit/kernels/copy_util.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "etkit/kernels/cpu_features.h"
#include "etkit/kernels/elementwise.h"
#include "etkit/kernels/parallel.h"

namespace etkit::kernels {
namespace {

// complex128 elements move as one 16-byte word.
struct Pair64 {
  uint64_t low, high;
};

// A copy's loops after simplification: size-1 dims dropped and
// neighbouring dims merged where both sides walk them as one run, so a
// permutation that moves only size-1 dims becomes a single run (memcpy)
// and NCHW <-> NHWC becomes one 2-D transpose.
struct CopyLoops {
  int rank = 0;
  int64_t sizes[kMaxRank] = {};
  int64_t in_strides[kMaxRank] = {};
  int64_t out_strides[kMaxRank] = {};
};

CopyLoops simplify(const StridedView& view, const int64_t* out_strides) {
  CopyLoops loops;
  for (int d = 0; d < view.rank; ++d) {
    if (view.sizes[d] == 1) continue;
    const int r = loops.rank;
    if (r > 0 && loops.in_strides[r - 1] == view.strides[d] * view.sizes[d] &&
        loops.out_strides[r - 1] == out_strides[d] * view.sizes[d]) {
      loops.sizes[r - 1] *= view.sizes[d];  // dim d continues the previous run on both sides
      loops.in_strides[r - 1] = view.strides[d];
      loops.out_strides[r - 1] = out_strides[d];
      continue;
    }
    loops.sizes[r] = view.sizes[d];
    loops.in_strides[r] = view.strides[d];
    loops.out_strides[r] = out_strides[d];
    ++loops.rank;
  }
  return loops;
}

#if defined(__x86_64__) && defined(__GNUC__)
// One 8 x 8 block of 4-byte words transposed in registers: eight row loads,
// three rounds of shuffles that move bits only, eight row stores (a tile
// element by element was a load and a store each, five times memcpy's
// time on a classifier's weight).
__attribute__((target("avx"))) void transpose_8x8_words(const uint32_t* in, int64_t in_stride, uint32_t* out,
                                                         int64_t out_stride) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + k * in_stride));
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xEE);
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(reinterpret_cast<float*>(out + i * out_stride), _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(out + (i + 4) * out_stride),
                     _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}
#endif

// A tile of transpose_block: out[i * out_stride_b + k] = in[i + k * in_stride_a]
// for i in [b0, b1), k in [a0, a1). Full tiles of 4-byte words go through
// 8 x 8 register blocks where the core has AVX2 (the blocks need only AVX).
template <typename Word>
void transpose_tile(const Word* in, Word* out, int64_t in_stride_a, int64_t out_stride_b, int64_t a0, int64_t a1,
                    int64_t b0, int64_t b1) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (sizeof(Word) == 4) {
    if (cpu_has_avx2() && (a1 - a0) % 8 == 0 && (b1 - b0) % 8 == 0) {
      for (int64_t i = b0; i < b1; i += 8) {
        for (int64_t k = a0; k < a1; k += 8) {
          transpose_8x8_words(reinterpret_cast<const uint32_t*>(in + i + k * in_stride_a), in_stride_a,
                              reinterpret_cast<uint32_t*>(out + i * out_stride_b + k), out_stride_b);
        }
      }
      return;
    }
  }
#endif
  for (int64_t i = b0; i < b1; ++i) {
    const Word* from = in + i;
    Word* to = out + i * out_stride_b;
    for (int64_t k = a0; k < a1; ++k) to[k] = from[k * in_stride_a];
  }
}

// out[o + i * out_stride_b + k] = in[p + i + k * in_stride_a] over an
// a x b block, in square tiles that stay in L1 on both sides: the reads
// of one tile touch `kTile` lines of the input, its writes `kTile` lines
// of the output.
template <typename Word>
void transpose_block(const Word* in, Word* out, int64_t size_a, int64_t in_stride_a, int64_t size_b,
                     int64_t out_stride_b) {
  constexpr int64_t kTile = 64 / sizeof(Word) < 8 ? 8 : 64 / sizeof(Word);
  for (int64_t b0 = 0; b0 < size_b; b0 += kTile) {
    const int64_t b1 = std::min(size_b, b0 + kTile);
    for (int64_t a0 = 0; a0 < size_a; a0 += kTile) {
      const int64_t a1 = std::min(size_a, a0 + kTile);
      // The lines two tiles down: a tile reads one line of each of kTile
      // rows, a pattern the hardware prefetcher misses when the input
      // comes from memory (a linear layer's weight transposed each run
      // waited on it at a tenth of memcpy's speed).
      for (int64_t k = a0 + 2 * kTile; k < std::min(size_a, a0 + 3 * kTile); ++k) {
        __builtin_prefetch(in + b0 + k * in_stride_a);
      }
      if (a0 + 2 * kTile < size_a) {
        for (int64_t i = b0; i < b1; ++i) __builtin_prefetch(out + i * out_stride_b + a0 + 2 * kTile, 1);
      }
      transpose_tile(in, out, in_stride_a, out_stride_b, a0, a1, b0, b1);
    }
  }
}

// The same for few channels (NCHW -> NHWC of an RGB image): A planes
// interleaved into dense rows of A, with A known to the compiler so the
// loop vectorizes into shuffles.
template <typename Word, int A>
void interleave(const Word* in, Word* out, int64_t in_stride_a, int64_t size_b) {
  for (int64_t i = 0; i < size_b; ++i)
    for (int k = 0; k < A; ++k) out[i * A + k] = in[i + k * in_stride_a];
}
// And back (NHWC -> NCHW): dense rows of B split into B planes.
template <typename Word, int B>
void deinterleave(const Word* in, Word* out, int64_t size_a, int64_t out_stride_b) {
  for (int64_t k = 0; k < size_a; ++k)
    for (int i = 0; i < B; ++i) out[i * out_stride_b + k] = in[k * B + i];
}

// Three planes of 4-byte words (RGB float images) interleave and split
// four pixels at a time with vector shuffles, which compilers do not find
// for a stride of 3 on their own.
using Lanes = uint32_t __attribute__((vector_size(16)));

inline Lanes load_lanes(const uint32_t* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void store_lanes(uint32_t* p, Lanes v) { std::memcpy(p, &v, sizeof(v)); }

template <>
void interleave<uint32_t, 3>(const uint32_t* in, uint32_t* out, int64_t in_stride_a, int64_t size_b) {
  const uint32_t* a = in;
  const uint32_t* b = in + in_stride_a;
  const uint32_t* c = in + 2 * in_stride_a;
  int64_t i = 0;
  for (; i + 4 <= size_b; i += 4) {
    const Lanes va = load_lanes(a + i), vb = load_lanes(b + i), vc = load_lanes(c + i);
    const Lanes ab_low = __builtin_shufflevector(va, vb, 0, 4, 1, 5);   // a0 b0 a1 b1
    const Lanes ab_high = __builtin_shufflevector(va, vb, 2, 6, 3, 7);  // a2 b2 a3 b3
    const Lanes b1c1 = __builtin_shufflevector(ab_low, vc, 3, 5, 3, 5);
    store_lanes(out + 3 * i, __builtin_shufflevector(ab_low, vc, 0, 1, 4, 2));       // a0 b0 c0 a1
    store_lanes(out + 3 * i + 4, __builtin_shufflevector(b1c1, ab_high, 0, 1, 4, 5));  // b1 c1 a2 b2
    store_lanes(out + 3 * i + 8, __builtin_shufflevector(vc, ab_high, 2, 6, 7, 3));    // c2 a3 b3 c3
  }
  for (; i < size_b; ++i)
    for (int k = 0; k < 3; ++k) out[i * 3 + k] = in[i + k * in_stride_a];
}

template <>
void deinterleave<uint32_t, 3>(const uint32_t* in, uint32_t* out, int64_t size_a, int64_t out_stride_b) {
  uint32_t* a = out;
  uint32_t* b = out + out_stride_b;
  uint32_t* c = out + 2 * out_stride_b;
  int64_t k = 0;
  for (; k + 4 <= size_a; k += 4) {
    const Lanes v0 = load_lanes(in + 3 * k), v1 = load_lanes(in + 3 * k + 4), v2 = load_lanes(in + 3 * k + 8);
    // in: a0 b0 c0 a1 | b1 c1 a2 b2 | c2 a3 b3 c3; every shuffle takes two
    // lanes of its first operand and two of its second (one SSE shufps).
    const Lanes a23 = __builtin_shufflevector(v1, v2, 2, 2, 5, 5);
    store_lanes(a + k, __builtin_shufflevector(v0, a23, 0, 3, 4, 6));
    const Lanes b01 = __builtin_shufflevector(v0, v1, 1, 1, 4, 4), b23 = __builtin_shufflevector(v1, v2, 3, 3, 6, 6);
    store_lanes(b + k, __builtin_shufflevector(b01, b23, 0, 2, 4, 6));
    const Lanes c01 = __builtin_shufflevector(v0, v1, 2, 2, 5, 5);
    store_lanes(c + k, __builtin_shufflevector(c01, v2, 0, 2, 4, 7));
  }
  for (; k < size_a; ++k)
    for (int i = 0; i < 3; ++i) out[i * out_stride_b + k] = in[k * 3 + i];
}

// One 2-D transpose block, through the fastest of the loops above.
template <typename Word>
void transpose_any(const Word* in, Word* out, int64_t size_a, int64_t in_stride_a, int64_t size_b,
                   int64_t out_stride_b) {
  if (out_stride_b == size_a && size_a <= 4) {
    switch (size_a) {
      case 2: return interleave<Word, 2>(in, out, in_stride_a, size_b);
      case 3: return interleave<Word, 3>(in, out, in_stride_a, size_b);
      case 4: return interleave<Word, 4>(in, out, in_stride_a, size_b);
      default: break;
    }
  }
  if (in_stride_a == size_b && size_b <= 4) {
    switch (size_b) {
      case 2: return deinterleave<Word, 2>(in, out, size_a, out_stride_b);
      case 3: return deinterleave<Word, 3>(in, out, size_a, out_stride_b);
      case 4: return deinterleave<Word, 4>(in, out, size_a, out_stride_b);
      default: break;
    }
  }
  transpose_block(in, out, size_a, in_stride_a, size_b, out_stride_b);
}

// The 2-D transposes at every position of `loops` (the two tiled dims
// held at size 1), over the workers when given and large: the positions
// split among them, or, for one position, the b range in whole tiles. A
// copy moves bits, so any split gives the same bytes.
template <typename Word>
void transpose_blocks(const CopyLoops& loops, const Word* in, Word* out, int64_t size_a, int64_t in_stride_a,
                      int64_t size_b, int64_t out_stride_b, const KernelContext* context) {
  const int64_t* strides[2] = {loops.in_strides, loops.out_strides};
  const int64_t positions = index_count(loops.rank, loops.sizes);
  const int64_t values = positions * size_a * size_b;
  if (context == nullptr) {
    for_each_index<2>(loops.rank, loops.sizes, strides, [&](const int64_t* o) {
      transpose_any(in + o[0], out + o[1], size_a, in_stride_a, size_b, out_stride_b);
    });
  } else if (positions > 1) {
    parallel_ranges(*context, positions, 1, min_items_for(positions, values),
                    [&](Span<uint8_t>, int64_t begin, int64_t end) {
      for_index_range<2>(loops.rank, loops.sizes, strides, begin, end, [&](const int64_t* o) {
        transpose_any(in + o[0], out + o[1], size_a, in_stride_a, size_b, out_stride_b);
      });
    });
  } else {
    parallel_ranges(*context, size_b, 64, min_items_for(size_b, values), [&](Span<uint8_t>, int64_t b0, int64_t b1) {
      transpose_any(in + b0, out + b0 * out_stride_b, size_a, in_stride_a, b1 - b0, out_stride_b);
    });
  }
}

template <typename Word>
void copy_words(const StridedView& view, Word* out, int64_t out_offset, const int64_t* out_strides,
                const KernelContext* context) {
  const Word* in = view.source->data_as<const Word>() + view.offset;
  out += out_offset;
  CopyLoops loops = simplify(view, out_strides);
  if (loops.rank == 0) {  // every dim has size 1: one element
    *out = *in;
    return;
  }
  const int last = loops.rank - 1;
  if (loops.rank == 1 && loops.in_strides[0] == 1 && loops.out_strides[0] == 1) {
    std::memcpy(out, in, size_t(loops.sizes[0]) * sizeof(Word));
    return;
  }
  // A transpose: the output's innermost dim is strided in the input, and
  // another dim is the input's innermost. Tile those two; loop the rest.
  int inner_in = -1;
  for (int d = 0; d < last; ++d) {
    if (loops.in_strides[d] == 1) inner_in = d;
  }
  if (loops.out_strides[last] == 1 && loops.in_strides[last] != 1 && inner_in >= 0) {
    const int64_t size_a = loops.sizes[last], in_stride_a = loops.in_strides[last];
    const int64_t size_b = loops.sizes[inner_in], out_stride_b = loops.out_strides[inner_in];
    loops.sizes[last] = 1;
    loops.sizes[inner_in] = 1;
    transpose_blocks(loops, in, out, size_a, in_stride_a, size_b, out_stride_b, context);
    return;
  }
  const int64_t* strides[2] = {loops.in_strides, loops.out_strides};
  for_each_index<2>(loops.rank, loops.sizes, strides,
                    [&](const int64_t* o) { out[o[1]] = in[o[0]]; });
}

}  // namespace

StridedView whole(const Tensor& t) {
  StridedView view;
  view.source = &t;
  view.rank = t.dim();
  for (int d = 0; d < t.dim(); ++d) {
    view.sizes[d] = t.size(d);
    view.strides[d] = t.stride(d);
  }
  return view;
}

void copy_view(const StridedView& view, void* out_data, int64_t out_offset, const int64_t* out_strides,
               const KernelContext* context) {
  for (int d = 0; d < view.rank; ++d) {
    if (view.sizes[d] == 0) return;  // nothing to copy; an empty tensor may have no storage at all
  }
  switch (view.source->element_size()) {
    case 1: copy_words(view, static_cast<uint8_t*>(out_data), out_offset, out_strides, context); break;
    case 2: copy_words(view, static_cast<uint16_t*>(out_data), out_offset, out_strides, context); break;
    case 4: copy_words(view, static_cast<uint32_t*>(out_data), out_offset, out_strides, context); break;
    case 8: copy_words(view, static_cast<uint64_t*>(out_data), out_offset, out_strides, context); break;
    case 16: copy_words(view, static_cast<Pair64*>(out_data), out_offset, out_strides, context); break;
    default: break;  // no dtype has another element size
  }
}

Status copy_convert(KernelContext& context, const Tensor& in, Tensor& out) {
  ETKIT_TRY(resize_output(context, out, in.sizes()));
  if (in.scalar_type() == out.scalar_type()) {
    copy_view(whole(in), out.data(), 0, out.strides().data());
    return Ok{};
  }
  return dispatch_all(context, in.scalar_type(), [&](auto in_tag) {
    using I = decltype(in_tag);
    return dispatch_all(context, out.scalar_type(), [&](auto out_tag) {
      using O = decltype(out_tag);
      const int64_t* strides[2] = {in.strides().data(), out.strides().data()};
      const I* src = in.data_as<const I>();
      O* dst = out.data_as<O>();
      for_each_index<2>(in.dim(), in.sizes().data(), strides,
                        [&](const int64_t* o) { dst[o[1]] = convert<O>(src[o[0]]); });
    });
  });
}

}  // namespace etkit::kernels
