#include "etkit/core/flat_tensor.h"

#include "etkit/core/file_data.h"
#include "flat_tensor_generated.h"
#include "etkit/core/detail/flatbuffer_limits.h"

namespace etkit {
namespace fb = flat_tensor_flatbuffer;
namespace {

using u64 = unsigned long long;

constexpr size_t kHeaderOffset = 8;
constexpr uint32_t kMinHeaderLength = 40;

Result<FlatTensorHeader> parse_header(ByteSpan bytes) {
  if (!bytes.starts_with_at(kHeaderOffset, "FH01", 4)) {
    return Error::make(ErrorCode::kUnsupported,
                       "byte 8: expected flat tensor header 'FH01'");
  }
  if (!bytes.contains(kHeaderOffset, 8)) {
    return Error::make(ErrorCode::kTruncated, "flat tensor header is cut off");
  }
  FlatTensorHeader header;
  header.length = load_u32_le(bytes.data + kHeaderOffset + 4);
  if (header.length < kMinHeaderLength) {
    return Error::make(ErrorCode::kMalformed,
                       "byte 12: flat tensor header length %u is below %u",
                       header.length, kMinHeaderLength);
  }
  if (!bytes.contains(kHeaderOffset, header.length)) {
    return Error::make(ErrorCode::kTruncated,
                       "flat tensor header of %u bytes runs past the end of "
                       "the file (%zu bytes)",
                       header.length, bytes.size);
  }
  const uint8_t* p = bytes.data + kHeaderOffset;
  header.flatbuffer_offset = load_u64_le(p + 8);
  header.flatbuffer_size = load_u64_le(p + 16);
  header.segment_base_offset = load_u64_le(p + 24);
  header.segment_data_size = load_u64_le(p + 32);
  // The flatbuffer starts at byte 0 (the header sits in its padding);
  // flatbuffer_offset + flatbuffer_size is where the flatbuffer data ends.
  if (!bytes.contains(header.flatbuffer_offset, header.flatbuffer_size)) {
    return Error::make(ErrorCode::kTruncated,
                       "byte 16: flatbuffer at %llu + %llu bytes runs past "
                       "the end of the file (%zu bytes)",
                       static_cast<u64>(header.flatbuffer_offset),
                       static_cast<u64>(header.flatbuffer_size), bytes.size);
  }
  if (!bytes.contains(header.segment_base_offset, header.segment_data_size)) {
    return Error::make(ErrorCode::kTruncated,
                       "byte 32: segment data at %llu + %llu bytes runs past "
                       "the end of the file (%zu bytes)",
                       static_cast<u64>(header.segment_base_offset),
                       static_cast<u64>(header.segment_data_size), bytes.size);
  }
  return header;
}

// named_data[index]: its key, its segment's bytes within the segment
// data, its layout when it has one.
Result<NamedTensorData> read_named_data(const fb::FlatTensor& root, size_t index, ByteSpan data, const char* label) {
  const auto* entry = root.named_data()->Get(static_cast<uint32_t>(index));
  const size_t segment_count = root.segments() ? root.segments()->size() : 0;
  if (entry->key() == nullptr) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: named_data[%zu] has no key", label, index);
  }
  if (entry->segment_index() >= segment_count) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: named_data[%zu] '%s' refers to segment %u, "
                       "but the file has %zu",
                       label, index, entry->key()->c_str(),
                       entry->segment_index(), segment_count);
  }
  const auto* segment = root.segments()->Get(entry->segment_index());
  if (!data.contains(segment->offset(), segment->size())) {
    return Error::make(ErrorCode::kTruncated,
                       "%s: segment %u of '%s' (offset %llu + %llu bytes) "
                       "runs past the segment data (%zu bytes)",
                       label, entry->segment_index(), entry->key()->c_str(),
                       static_cast<u64>(segment->offset()),
                       static_cast<u64>(segment->size()), data.size);
  }
  NamedTensorData named;
  named.key = entry->key()->str();
  named.segment_index = entry->segment_index();
  named.data = data.sub(segment->offset(), segment->size());
  if (const auto* layout = entry->tensor_layout()) {
    named.has_layout = true;
    named.scalar_type = static_cast<ScalarType>(layout->scalar_type());
    if (!is_valid(named.scalar_type)) {
      return Error::make(ErrorCode::kMalformed,
                         "%s: '%s' has unknown scalar type %d", label,
                         named.key.c_str(),
                         static_cast<int>(layout->scalar_type()));
    }
    if (layout->sizes()) {
      named.sizes.assign(layout->sizes()->begin(), layout->sizes()->end());
    }
    if (layout->dim_order()) {
      named.dim_order.assign(layout->dim_order()->begin(),
                             layout->dim_order()->end());
    }
  }
  return named;
}

}  // namespace

Result<FlatTensor> FlatTensor::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  return load(std::move(file), path);
}

Result<FlatTensor> FlatTensor::load(std::shared_ptr<const FileData> owner,
                                    std::string name) {
  const ByteSpan bytes = owner->bytes();
  const char* label = name.c_str();
  if (!bytes.starts_with_at(4, "FT01", 4)) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: not a flat tensor file: expected 'FT01' at byte 4",
                       label);
  }
  auto header = parse_header(bytes);
  if (!header.ok()) {
    return header.error().with_context("%s", label);
  }
  const uint64_t flatbuffer_end =
      header->flatbuffer_offset + header->flatbuffer_size;
  if (flatbuffer_end > detail::kMaxFlatbufferSize) {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: flatbuffer exceeds the format's 2 GiB limit", label);
  }
  flatbuffers::Verifier verifier(bytes.data, flatbuffer_end,
                                 detail::kVerifierMaxDepth,
                                 detail::kVerifierMaxTables);
  if (!fb::VerifyFlatTensorBuffer(verifier)) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: the FlatTensor flatbuffer (bytes 0..%llu) is "
                       "corrupt",
                       label, static_cast<u64>(flatbuffer_end));
  }
  const fb::FlatTensor* root = fb::GetFlatTensor(bytes.data);
  const ByteSpan data =
      bytes.sub(header->segment_base_offset, header->segment_data_size);
  FlatTensor result;
  result.version_ = root->version();
  result.segment_count_ = root->segments() ? root->segments()->size() : 0;
  if (root->named_data() != nullptr) {
    for (size_t i = 0; i < root->named_data()->size(); ++i) {
      ETKIT_ASSIGN_OR_RETURN(NamedTensorData named, read_named_data(*root, i, data, label));
      result.entries_.push_back(std::move(named));
    }
  }
  result.owner_ = std::move(owner);
  result.name_ = std::move(name);
  result.header_ = *header;
  return result;
}

const NamedTensorData* FlatTensor::find(const std::string& key) const {
  for (const auto& entry : entries_) {
    if (entry.key == key) {
      return &entry;
    }
  }
  return nullptr;
}

}  // namespace etkit
