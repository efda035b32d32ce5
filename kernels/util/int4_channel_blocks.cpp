#include "etkit/kernels/int4_channel_blocks.h"
#include "etkit/kernels/cpu_features.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ETKIT_INT4_BLOCKS_AVX2 1
#endif

namespace etkit::kernels {
namespace {

// Channel j's stored nibble of column c in the source rows.
uint8_t stored_nibble(const uint8_t* rows, size_t row_bytes, size_t j, size_t c) {
  const uint8_t byte = rows[j * row_bytes + c / 2];
  return c % 2 == 0 ? byte & 0x0F : byte >> 4;
}

}  // namespace

void channel_block_dots_s8_u4_generic(const int8_t* x, size_t rows, size_t k, const uint8_t* block, size_t group,
                                      int32_t* dots) {
  const size_t groups = k / group;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t g = 0; g < groups; ++g) {
      int32_t sums[kInt4ChannelBlock] = {};
      for (size_t col = g * group; col < (g + 1) * group; col += 8) {
        const uint8_t* w = block + (col / 8) * 32;
        const int8_t* a = x + r * k + col;
        for (size_t c = 0; c < kInt4ChannelBlock; ++c) {
          for (size_t i = 0; i < 4; ++i) {
            sums[c] += int32_t(a[i]) * (w[4 * c + i] & 0x0F) + int32_t(a[4 + i]) * (w[4 * c + i] >> 4);
          }
        }
      }
      std::memcpy(dots + (r * groups + g) * kInt4ChannelBlock, sums, sizeof(sums));
    }
  }
}

namespace {

#ifdef ETKIT_INT4_BLOCKS_AVX2
// Four activation bytes at `a`, in every 32-bit lane.
__attribute__((target("avx2"))) inline __m256i broadcast4(const int8_t* a) {
  int32_t bytes;
  std::memcpy(&bytes, a, 4);
  return _mm256_set1_epi32(bytes);
}

// Eight columns of ROWS rows into their accumulators: the block's 32 bytes
// split into nibbles once, then per row two byte multiply-adds (nibbles
// unsigned, activations signed: a pair is at most 2 * 15 * 128, and the two
// results' sum fits int16) widened to one int32 per channel.
template <size_t ROWS>
__attribute__((target("avx2"))) inline void accumulate_columns(const uint8_t* w, const int8_t* a, size_t k,
                                                               __m256i* acc) {
  const __m256i low_nibbles = _mm256_set1_epi8(0x0F);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
  const __m256i lo = _mm256_and_si256(bytes, low_nibbles);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low_nibbles);
  for (size_t i = 0; i < ROWS; ++i) {
    const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, broadcast4(a + i * k)),
                                           _mm256_maddubs_epi16(hi, broadcast4(a + i * k + 4)));
    acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(pairs, ones));
  }
}

// ROWS rows from row r, every group.
template <size_t ROWS>
__attribute__((target("avx2"))) void rows_avx2(const int8_t* x, size_t r, size_t k, const uint8_t* block,
                                               size_t group, int32_t* dots) {
  const size_t groups = k / group;
  for (size_t g = 0; g < groups; ++g) {
    __m256i acc[ROWS];
    for (size_t i = 0; i < ROWS; ++i) acc[i] = _mm256_setzero_si256();
    for (size_t col = g * group; col < (g + 1) * group; col += 8) {
      accumulate_columns<ROWS>(block + (col / 8) * 32, x + r * k + col, k, acc);
    }
    for (size_t i = 0; i < ROWS; ++i) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dots + ((r + i) * groups + g) * kInt4ChannelBlock), acc[i]);
    }
  }
}

__attribute__((target("avx2"))) void channel_block_dots_avx2(const int8_t* x, size_t rows, size_t k,
                                                              const uint8_t* block, size_t group, int32_t* dots) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) rows_avx2<4>(x, r, k, block, group, dots);
  for (; r < rows; ++r) rows_avx2<1>(x, r, k, block, group, dots);
}

// rows_avx2 where the core has VNNI: one instruction takes each four-byte
// dot product straight into int32 (for the two multiply-adds, the int16
// sum and the widening): the same integers, as nothing saturates on either
// path. Its own function: the target must not reach CPUs without VNNI.
template <size_t ROWS>
__attribute__((target("avx2,avx512vnni,avx512vl"))) void rows_vnni(const int8_t* x, size_t r, size_t k,
                                                                   const uint8_t* block, size_t group, int32_t* dots) {
  const size_t groups = k / group;
  const __m256i low_nibbles = _mm256_set1_epi8(0x0F);
  for (size_t g = 0; g < groups; ++g) {
    __m256i acc[ROWS];
    for (size_t i = 0; i < ROWS; ++i) acc[i] = _mm256_setzero_si256();
    for (size_t col = g * group; col < (g + 1) * group; col += 8) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + (col / 8) * 32));
      const __m256i lo = _mm256_and_si256(bytes, low_nibbles);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low_nibbles);
      const int8_t* a = x + r * k + col;
      for (size_t i = 0; i < ROWS; ++i) {
        acc[i] = _mm256_dpbusd_epi32(_mm256_dpbusd_epi32(acc[i], lo, broadcast4(a + i * k)), hi,
                                     broadcast4(a + i * k + 4));
      }
    }
    for (size_t i = 0; i < ROWS; ++i) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dots + ((r + i) * groups + g) * kInt4ChannelBlock), acc[i]);
    }
  }
}

void channel_block_dots_vnni(const int8_t* x, size_t rows, size_t k, const uint8_t* block, size_t group,
                             int32_t* dots) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) rows_vnni<4>(x, r, k, block, group, dots);
  for (; r < rows; ++r) rows_vnni<1>(x, r, k, block, group, dots);
}

bool vnni_allowed = true;
bool cpu_has_vnni() {
  static const bool supported = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
  return supported;
}

#endif

}  // namespace

bool channel_blocks_suit(size_t k, size_t group) {
#ifdef ETKIT_INT4_BLOCKS_AVX2
  return cpu_has_avx2() && k > 0 && group > 0 && k % 8 == 0 && group % 8 == 0 && k % group == 0;
#else
  (void)k;
  (void)group;
  return false;
#endif
}

std::vector<uint8_t> pack_int4_channel_blocks(const uint8_t* rows, size_t n, size_t k) {
  const size_t row_bytes = (k + 1) / 2, blocks = (n + kInt4ChannelBlock - 1) / kInt4ChannelBlock;
  std::vector<uint8_t> packed(blocks * 4 * k, 0);
  for (size_t j = 0; j < n; ++j) {
    uint8_t* block = packed.data() + (j / kInt4ChannelBlock) * 4 * k;
    const size_t c = j % kInt4ChannelBlock;
    for (size_t col = 0; col < k; col += 8) {
      for (size_t i = 0; i < 4; ++i) {
        block[(col / 8) * 32 + 4 * c + i] = uint8_t(stored_nibble(rows, row_bytes, j, col + i) |
                                                    stored_nibble(rows, row_bytes, j, col + 4 + i) << 4);
      }
    }
  }
  return packed;
}

void channel_blocks_allow_vnni(bool allow) {
#ifdef ETKIT_INT4_BLOCKS_AVX2
  vnni_allowed = allow;
#else
  (void)allow;
#endif
}

bool channel_blocks_use_vnni() {
#ifdef ETKIT_INT4_BLOCKS_AVX2
  return vnni_allowed && cpu_has_avx2() && cpu_has_vnni();
#else
  return false;
#endif
}

void channel_block_dots_s8_u4(const int8_t* x, size_t rows, size_t k, const uint8_t* block, size_t group,
                              int32_t* dots) {
#ifdef ETKIT_INT4_BLOCKS_AVX2
  if (channel_blocks_use_vnni()) {
    channel_block_dots_vnni(x, rows, k, block, group, dots);
    return;
  }
  if (cpu_has_avx2()) {
    channel_block_dots_avx2(x, rows, k, block, group, dots);
    return;
  }
#endif
  channel_block_dots_s8_u4_generic(x, rows, k, block, group, dots);
}

}  // namespace etkit::kernels
