#include "trace_verification.h"

#include <algorithm>
#include <vector>

#include "block_ranges.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/scalar_type.h"

namespace etkit::etdump::internal {
namespace fb = ::etdump;
namespace {

using ::etkit::detail::length;

// A trace of millions of events has millions of tables; allow 2^27 (per
// verifier: each range of blocks has its own).
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 27;
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
// Blocks verified per range: bundled traces have thousands of small ones.
constexpr size_t kBlocksPerRange = 16;
// The smallest flatbuffer the Verifier accepts: a root offset and a table
// with its vtable (flatbuffers' FLATBUFFERS_MIN_BUFFER_SIZE).
constexpr size_t kMinBufferSize =
    sizeof(flatbuffers::uoffset_t) + sizeof(flatbuffers::soffset_t) + 2 * sizeof(flatbuffers::voffset_t);

// The root table without its run_data elements: what ETDump::Verify checks
// before it walks the vector of tables. The generated type is a
// flatbuffers::Table underneath (privately), which is how its fields are
// verified one by one here.
const fb::ETDump* verify_root(flatbuffers::Verifier& verifier, const uint8_t* buffer, size_t size, size_t root_at) {
  if (size < std::max(root_at + 2 * sizeof(flatbuffers::uoffset_t), kMinBufferSize) ||
      !flatbuffers::BufferHasIdentifier(buffer + root_at, fb::ETDumpIdentifier())) {
    return nullptr;
  }
  const flatbuffers::uoffset_t offset = verifier.VerifyOffset(root_at);
  if (offset == 0) return nullptr;
  const auto* root = reinterpret_cast<const fb::ETDump*>(buffer + root_at + offset);
  const auto* table = reinterpret_cast<const flatbuffers::Table*>(root);
  const bool sound = table->VerifyTableStart(verifier) &&
                     table->VerifyField<uint32_t>(verifier, fb::ETDump::VT_VERSION, 4) &&
                     table->VerifyOffset(verifier, fb::ETDump::VT_RUN_DATA) &&
                     verifier.VerifyVector(root->run_data()) && verifier.EndTable();
  return sound ? root : nullptr;
}

// A debug tensor's sizes and strides aligned and its scalar type known.
Status check_tensor(const fb::Tensor* tensor, size_t b, size_t e) {
  // The Verifier does not check element alignment of int64 vectors. An
  // empty one (a 0-dim tensor's sizes) has nothing to misread, and
  // flatbuffers does not align it: a trace etkit's writer made of a
  // program with scalar tensors was refused.
  const auto aligned = [](const flatbuffers::Vector<int64_t>* v) {
    return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
  };
  if (tensor && (!aligned(tensor->sizes()) || !aligned(tensor->strides()))) {
    return Error::make(ErrorCode::kMalformed,
                       "run_data[%zu].events[%zu]: debug tensor sizes or strides are not 8-byte aligned", b, e);
  }
  if (tensor && !is_valid(static_cast<ScalarType>(tensor->scalar_type()))) {
    return Error::make(ErrorCode::kMalformed, "run_data[%zu].events[%zu]: debug tensor has unknown scalar type %d",
                       b, e, static_cast<int>(tensor->scalar_type()));
  }
  return Ok{};
}

// What the Verifier cannot check in block `b`: each event is exactly one
// kind and each debug tensor can be read.
Status check_events(const fb::RunData& block, size_t b) {
  for (size_t e = 0; e < length(block.events()); ++e) {
    const auto* event = block.events()->Get(static_cast<flatbuffers::uoffset_t>(e));
    const int kinds =
        (event->profile_event() != nullptr) + (event->allocation_event() != nullptr) + (event->debug_event() != nullptr);
    if (kinds != 1) {
      return Error::make(ErrorCode::kMalformed,
                         "run_data[%zu].events[%zu] has %d event kinds set (expected exactly one)", b, e, kinds);
    }
    const auto* debug = event->debug_event();
    if (debug == nullptr || debug->debug_entry() == nullptr) continue;
    const auto* value = debug->debug_entry();
    ETKIT_TRY(check_tensor(value->tensor(), b, e));
    if (value->tensor_list() && value->tensor_list()->tensors()) {
      for (const auto* tensor : *value->tensor_list()->tensors()) ETKIT_TRY(check_tensor(tensor, b, e));
    }
  }
  return Ok{};
}

}  // namespace

VerifiedTrace verify_trace(const uint8_t* buffer, size_t size, size_t root_at) {
  VerifiedTrace result;
  flatbuffers::Verifier verifier(buffer, size, kMaxDepth, kMaxTables);
  const fb::ETDump* root = verify_root(verifier, buffer, size, root_at);
  if (root == nullptr) return result;
  const auto* blocks = root->run_data();
  const size_t count = length(blocks);
  // Each range's outcome in a place of its own (no lock: the device build
  // has none): whether a block is corrupt, and its first block with an
  // event error. Any corrupt block makes the buffer corrupt, as verifying it
  // whole would; otherwise the lowest block's event error is reported.
  constexpr size_t kNone = size_t(-1);
  const size_t ranges = (count + kBlocksPerRange - 1) / kBlocksPerRange;
  std::vector<uint8_t> corrupt(ranges, 0);
  std::vector<size_t> event_error(ranges, kNone);
  // A corrupt block stops the ranges after it: the buffer is corrupt
  // whatever they hold. An event error does not, so a corrupt block later
  // in the trace still counts.
  for_each_block_range(count, kBlocksPerRange, [&](size_t begin, size_t end) {
    flatbuffers::Verifier range_verifier(buffer, size, kMaxDepth, kMaxTables);
    const size_t range = begin / kBlocksPerRange;
    for (size_t b = begin; b < end; ++b) {
      const fb::RunData* block = blocks->Get(static_cast<flatbuffers::uoffset_t>(b));
      if (!range_verifier.VerifyTable(block)) {
        corrupt[range] = 1;
        return false;
      }
      if (event_error[range] == kNone && !check_events(*block, b).ok()) event_error[range] = b;
    }
    return true;
  });
  if (std::find(corrupt.begin(), corrupt.end(), 1) != corrupt.end()) return result;
  result.root = root;
  for (size_t first : event_error) {
    if (first != kNone) {  // checked again for its message: the lowest failing block is in the lowest range
      result.events = check_events(*blocks->Get(static_cast<flatbuffers::uoffset_t>(first)), first);
      break;
    }
  }
  return result;
}

}  // namespace etkit::etdump::internal
