#pragma once
// 4-bit linear weights repacked in blocks of eight output channels, so a
// dynamically quantized linear's integer products accumulate in vector
// lanes, one lane per channel, with no horizontal reduction per group: the
// layout XNNPACK's x86 kernels pack their weights in, here for etkit's own
// qc4w/qb4w kernels (Debian's XNNPACK has none).
//
// A block holds, for each eight columns 8p .. 8p+7, 32 bytes: byte 4c + i
// is channel c's column 8p + i in the low nibble and column 8p + 4 + i in
// the high one, stored + 8 as the source rows (n rows of ceil(k / 2)
// bytes, even column in the low nibble). A byte product then meets four
// consecutive activations of one channel, as x86's unsigned x signed
// multiply-add sums them.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace etkit::kernels {

inline constexpr size_t kInt4ChannelBlock = 8;

/// Whether channel_block_dots_s8_u4 has a vector path here (x86 with AVX2)
/// and the shape suits it (`k` and the group size multiples of 8): where it
/// has none, group_dots_s8_u4_rows is the faster kernel.
bool channel_blocks_suit(size_t k, size_t group);

/// The repacked weights of `n` channels: ceil(n / 8) blocks of 4 * k bytes,
/// channels past n zero. `k` must be a multiple of 8.
std::vector<uint8_t> pack_int4_channel_blocks(const uint8_t* rows, size_t n, size_t k);

/// The group products of one block's eight channels against `rows` int8
/// activation rows of `k` columns (row r at x + r * k): dots[(r * groups +
/// g) * 8 + c] = sum over group g's columns of x * stored (stored = value +
/// 8; the caller takes back 8 * the group's activation sum). `group` and
/// `k` multiples of 8; exact in int32 for any k up to 2^20.
void channel_block_dots_s8_u4(const int8_t* x, size_t rows, size_t k, const uint8_t* block, size_t group,
                              int32_t* dots);
/// Whether channel_block_dots_s8_u4 may take its VNNI path on cores with
/// AVX-512 VNNI (the default; the same integers as the AVX2 path), for
/// tests and benches that compare both. Not thread-safe: set it before
/// running. channel_blocks_use_vnni: whether it does here.
void channel_blocks_allow_vnni(bool allow);
bool channel_blocks_use_vnni();
/// What channel_block_dots_s8_u4 runs without AVX2: one channel and byte
/// at a time; exposed so tests check both paths.
void channel_block_dots_s8_u4_generic(const int8_t* x, size_t rows, size_t k, const uint8_t* block, size_t group,
                                      int32_t* dots);

}  // namespace etkit::kernels
