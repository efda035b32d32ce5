#include "etkit/etrecord/etrecord_archive.h"

#include <zip.h>

#include <algorithm>

#include "etkit/core/file_data.h"

namespace etkit::etrecord {
namespace {

constexpr const char* kMarker = "ETRECORD_V0";
constexpr const char* kEdgeProgram = "edge_dialect_exported_program";
constexpr uint64_t kMaxEntrySize = uint64_t{1} << 30;

zip_t* as_zip(void* handle) { return static_cast<zip_t*>(handle); }

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Upstream (1.x) stores beside each serialized graph its weights, constants
// and example inputs as <graph>_state_dict, _constants, _example_inputs
// (binary); its reader takes every other entry under the prefix as a method.
bool is_graph_companion(const std::string& name) {
  return ends_with(name, "_state_dict") || ends_with(name, "_constants") || ends_with(name, "_example_inputs");
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// Reads up to `n` leading bytes of an entry to tell JSON from pickles.
std::string peek(zip_t* zip, zip_uint64_t index, size_t n) {
  std::string head(n, '\0');
  zip_file_t* file = zip_fopen_index(zip, index, 0);
  if (file == nullptr) {
    return std::string();
  }
  zip_int64_t got = zip_fread(file, head.data(), n);
  zip_fclose(file);
  head.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return head;
}

EntryKind classify(const std::string& name, const std::string& head) {
  if (name == kMarker) {
    return EntryKind::kMarker;
  }
  const size_t first = head.find_first_not_of(" \t\r\n");
  const bool json = first != std::string::npos &&
                    (head[first] == '{' || head[first] == '[');
  if (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80) {
    return EntryKind::kPickle;  // pickle protocol 2+ opcode PROTO
  }
  if (starts_with(head, "PK")) {
    return EntryKind::kPickle;  // torch.save zip container
  }
  // Serialized ExportedPrograms are JSON objects led by "graph_module".
  if (json && head.find("\"graph_module\"") != std::string::npos) {
    return EntryKind::kExportedProgram;
  }
  return json ? EntryKind::kJsonMap : EntryKind::kBinary;
}

}  // namespace

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::kLegacy: return "legacy";
    case Layout::kPerMethod: return "per_method";
    case Layout::kNoEdgeProgram: return "no_edge_program";
  }
  return "unknown";
}

const char* to_string(EntryKind kind) {
  switch (kind) {
    case EntryKind::kMarker: return "marker";
    case EntryKind::kExportedProgram: return "exported_program";
    case EntryKind::kJsonMap: return "json";
    case EntryKind::kPickle: return "pickle";
    case EntryKind::kBinary: return "binary";
  }
  return "unknown";
}

EtrecordArchive::~EtrecordArchive() {
  if (zip_ != nullptr) {
    zip_discard(as_zip(zip_));
  }
}

EtrecordArchive::EtrecordArchive(EtrecordArchive&& other) noexcept
    : owner_(std::move(other.owner_)),
      name_(std::move(other.name_)),
      zip_(other.zip_),
      layout_(other.layout_),
      entries_(std::move(other.entries_)),
      methods_(std::move(other.methods_)) {
  other.zip_ = nullptr;
}

Result<EtrecordArchive> EtrecordArchive::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  return load(std::move(file), path);
}

namespace {

// The bytes as a read-only zip archive (checked for consistency).
Result<zip_t*> open_zip(ByteSpan bytes, const char* label) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data, bytes.size, 0, &error);
  if (source == nullptr) {
    Error result = Error::make(ErrorCode::kInternal, "%s: %s", label,
                               zip_error_strerror(&error));
    zip_error_fini(&error);
    return result;
  }
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (zip == nullptr) {
    zip_source_free(source);
    Error result = Error::make(ErrorCode::kMalformed,
                               "%s: not a readable zip archive: %s", label,
                               zip_error_strerror(&error));
    zip_error_fini(&error);
    return result;
  }
  zip_error_fini(&error);
  return zip;
}

}  // namespace

Result<EtrecordArchive> EtrecordArchive::load(std::shared_ptr<const FileData> owner,
                                              std::string name) {
  ETKIT_ASSIGN_OR_RETURN(zip_t* zip, open_zip(owner->bytes(), name.c_str()));
  EtrecordArchive archive;
  archive.zip_ = zip;
  archive.owner_ = std::move(owner);
  archive.name_ = std::move(name);
  bool has_marker = false;
  bool has_legacy = false;
  const zip_int64_t count = zip_get_num_entries(zip, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(zip, static_cast<zip_uint64_t>(i), 0, &stat) != 0 ||
        stat.name == nullptr) {
      return Error::make(ErrorCode::kMalformed, "%s: zip entry %lld is unreadable",
                         archive.name_.c_str(), static_cast<long long>(i));
    }
    ArchiveEntry entry;
    entry.name = stat.name;
    entry.size = stat.size;
    entry.compressed_size = stat.comp_size;
    entry.kind = classify(entry.name, peek(zip, static_cast<zip_uint64_t>(i), 256));
    has_marker |= entry.name == kMarker;
    has_legacy |= entry.name == kEdgeProgram;
    const std::string prefix = std::string(kEdgeProgram) + "/";
    if (starts_with(entry.name, prefix) && entry.name.size() > prefix.size() && !is_graph_companion(entry.name)) {
      archive.methods_.push_back(entry.name.substr(prefix.size()));
    }
    archive.entries_.push_back(std::move(entry));
  }
  if (!has_marker) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: zip archive has no %s entry: not an ETRecord",
                       archive.name_.c_str(), kMarker);
  }
  if (!archive.methods_.empty()) {
    archive.layout_ = Layout::kPerMethod;
    std::sort(archive.methods_.begin(), archive.methods_.end());
  } else if (has_legacy) {
    archive.layout_ = Layout::kLegacy;
    archive.methods_.push_back("forward");
  }
  return archive;
}

Result<std::string> EtrecordArchive::read(const std::string& entry) const {
  zip_t* zip = as_zip(zip_);
  zip_stat_t stat;
  if (zip_stat(zip, entry.c_str(), 0, &stat) != 0) {
    return Error::make(ErrorCode::kNotFound, "%s: no entry '%s'", name_.c_str(),
                       entry.c_str());
  }
  if (stat.size > kMaxEntrySize) {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: entry '%s' is %llu bytes (limit 1 GiB)",
                       name_.c_str(), entry.c_str(),
                       static_cast<unsigned long long>(stat.size));
  }
  zip_file_t* file = zip_fopen(zip, entry.c_str(), 0);
  if (file == nullptr) {
    return Error::make(ErrorCode::kMalformed, "%s: cannot open entry '%s': %s",
                       name_.c_str(), entry.c_str(), zip_strerror(zip));
  }
  std::string bytes(static_cast<size_t>(stat.size), '\0');
  const zip_int64_t got = zip_fread(file, bytes.data(), stat.size);
  zip_fclose(file);
  if (got < 0 || static_cast<uint64_t>(got) != stat.size) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: entry '%s' is corrupt (read %lld of %llu bytes)",
                       name_.c_str(), entry.c_str(), static_cast<long long>(got),
                       static_cast<unsigned long long>(stat.size));
  }
  return bytes;
}

}  // namespace etkit::etrecord
