#include "etkit/core/program.h"

#include "etkit/core/file_data.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "program_generated.h"
#include "program_verify.h"

namespace etkit {
namespace fb = executorch_flatbuffer;

Result<Program> Program::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  const ByteSpan bytes = file->bytes();
  return load(std::move(file), bytes, path);
}

Result<Program> Program::load(std::shared_ptr<const FileData> owner,
                              ByteSpan bytes, std::string name) {
  const char* label = name.c_str();
  if (bytes.size < 8) {
    return Error::make(ErrorCode::kTruncated,
                       "%s: %zu bytes is too short for a program (needs at "
                       "least the 8-byte flatbuffer header)",
                       label, bytes.size);
  }
  if (!bytes.starts_with_at(4, "ET12", 4)) {
    if (bytes.data[4] == 'E' && bytes.data[5] == 'T') {
      return Error::make(ErrorCode::kUnsupported,
                         "%s: program format '%.4s' (etkit reads ET12)", label,
                         reinterpret_cast<const char*>(bytes.data + 4));
    }
    return Error::make(ErrorCode::kMalformed,
                       "%s: not a program: expected identifier 'ET12' at byte "
                       "4",
                       label);
  }
  auto header = ExtendedHeader::parse(bytes);
  if (!header.ok()) {
    return header.error().with_context("%s", label);
  }
  const uint64_t flatbuffer_size =
      header->present ? header->program_size : bytes.size;
  if (flatbuffer_size > detail::kMaxFlatbufferSize) {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: program flatbuffer of %llu bytes exceeds the "
                       "format's 2 GiB limit",
                       label, static_cast<unsigned long long>(flatbuffer_size));
  }
  flatbuffers::Verifier verifier(bytes.data, flatbuffer_size,
                                 detail::kVerifierMaxDepth,
                                 detail::kVerifierMaxTables);
  if (!fb::VerifyProgramBuffer(verifier)) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: the program flatbuffer (bytes 0..%llu) is "
                       "corrupt: a table, vector or string lies outside the "
                       "buffer or is misaligned",
                       label, static_cast<unsigned long long>(flatbuffer_size));
  }
  const fb::Program* root = fb::GetProgram(bytes.data);
  Status references = detail::verify_program_references(*root, bytes, *header);
  if (!references.ok()) {
    return references.error().with_context("%s", label);
  }
  Program program;
  program.owner_ = std::move(owner);
  program.name_ = std::move(name);
  program.bytes_ = bytes;
  program.header_ = *header;
  program.root_ = root;
  return program;
}

size_t Program::segment_count() const {
  return root_->segments() == nullptr ? 0 : root_->segments()->size();
}

ByteSpan Program::segment(size_t index) const {
  const auto* segment = root_->segments()->Get(static_cast<uint32_t>(index));
  return bytes_.sub(header_.segment_base_offset + segment->offset(),
                    segment->size());
}

ByteSpan Program::inline_delegate_data(size_t index) const {
  const auto* table = root_->backend_delegate_data();
  if (table == nullptr || index >= table->size()) return {};
  const auto* data = table->Get(static_cast<uint32_t>(index))->data();
  return data == nullptr ? ByteSpan{} : ByteSpan{data->data(), data->size()};
}

Result<ByteSpan> Program::named_data(const std::string& key) const {
  if (const auto* named = root_->named_data()) {
    for (uint32_t i = 0; i < named->size(); ++i) {
      const auto* entry = named->Get(i);
      if (entry->key()->string_view() == key) return segment(entry->segment_index());
    }
  }
  return Error::make(ErrorCode::kNotFound, "%s: no named data '%s'", name_.c_str(), key.c_str());
}

}  // namespace etkit
