#pragma once
/// @file
/// The ETRecord zip archive: its entries, what each holds, and which of
/// upstream's layouts it uses. Decoding the graphs inside is a later layer.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/result.h"

namespace etkit {
class FileData;
}

namespace etkit::etrecord {

/// Which upstream layout the archive follows.
enum class Layout {
  kLegacy,     ///< One "edge_dialect_exported_program" entry.
  kPerMethod,  ///< "edge_dialect_exported_program/<method>" entries.
  kNoEdgeProgram,  ///< Marker present but no edge program entry.
};

const char* to_string(Layout layout);

/// What an entry's bytes are, judged from its name and first bytes.
enum class EntryKind {
  kMarker,          ///< The empty ETRECORD_V0 marker.
  kExportedProgram, ///< JSON of a serialized ExportedProgram.
  kJsonMap,         ///< debug_handle_map / delegate_map / other JSON.
  kPickle,          ///< Python pickle (state dicts, constants): not decoded.
  kBinary,          ///< Anything else: listed, not decoded.
};

const char* to_string(EntryKind kind);

struct ArchiveEntry {
  std::string name;
  uint64_t size = 0;             ///< Uncompressed bytes.
  uint64_t compressed_size = 0;
  EntryKind kind = EntryKind::kBinary;
};

class EtrecordArchive {
 public:
  static Result<EtrecordArchive> load_file(const std::string& path);
  /// Opens the archive in `owner`'s bytes. Fails unless it is a readable zip
  /// with an ETRECORD_V0 entry.
  static Result<EtrecordArchive> load(std::shared_ptr<const FileData> owner,
                                      std::string name);

  ~EtrecordArchive();
  EtrecordArchive(EtrecordArchive&& other) noexcept;
  EtrecordArchive& operator=(EtrecordArchive&&) = delete;
  EtrecordArchive(const EtrecordArchive&) = delete;

  const std::string& name() const { return name_; }
  Layout layout() const { return layout_; }
  const std::vector<ArchiveEntry>& entries() const { return entries_; }
  /// Method names of the per-method layout ("forward" for the legacy one).
  const std::vector<std::string>& methods() const { return methods_; }

  /// Reads a whole entry. Entries are capped at 1 GiB.
  Result<std::string> read(const std::string& entry) const;

 private:
  EtrecordArchive() = default;
  std::shared_ptr<const FileData> owner_;
  std::string name_;
  void* zip_ = nullptr;  // zip_t*, kept out of the public header
  Layout layout_ = Layout::kNoEdgeProgram;
  std::vector<ArchiveEntry> entries_;
  std::vector<std::string> methods_;
};

}  // namespace etkit::etrecord
