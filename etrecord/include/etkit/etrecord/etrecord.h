#pragma once
/// @file
/// An ETRecord decoded: the edge graph of each method and the maps from
/// runtime instructions (and delegate debug ids) to debug handles.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/result.h"
#include "etkit/etrecord/edge_graph.h"
#include "etkit/etrecord/etrecord_archive.h"

namespace etkit::etrecord {

/// A delegate instruction: backend name and delegate debug id -> handles.
struct DelegateMapping {
  std::string backend;
  std::map<std::string, std::vector<int64_t>> handles_by_delegate_id;
};

struct MethodRecord {
  EdgeGraph graph;
  bool has_graph = false;
  std::map<int64_t, std::vector<int64_t>> handles_by_instruction;
  std::map<int64_t, DelegateMapping> delegates_by_instruction;
  /// instruction_id_to_num_outs_map: outputs of a delegate call's lowered
  /// graph, by instruction (upstream's emitter lists only delegate calls;
  /// an instruction it does not list has one output).
  std::map<int64_t, int64_t> outputs_by_instruction;
  /// True when the record had no map for this method and instructions were
  /// matched to graph nodes in order.
  bool handles_inferred = false;
};

class Etrecord {
 public:
  /// Fails only when the file is not a readable ETRecord archive; damaged
  /// entries (bad JSON, missing maps, handles pointing nowhere) become
  /// warnings, and what could be read stays usable.
  static Result<Etrecord> load_file(const std::string& path);
  /// The same for a record already in memory (named `name` in messages).
  static Result<Etrecord> load(std::shared_ptr<const FileData> owner, std::string name);

  const EtrecordArchive& archive() const { return *archive_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const MethodRecord* method(const std::string& name) const;
  const std::map<std::string, MethodRecord>& methods() const { return methods_; }

  /// Debug handles of an instruction of `method` (empty when unknown).
  std::vector<int64_t> instruction_handles(const std::string& method,
                                           int64_t instruction_id) const;
  /// Debug handles of a delegate-internal event (by its int or string id).
  /// An integer id the delegate map does not list is the graph node's debug
  /// handle itself: upstream's XNNPACK payloads carry one per node and its
  /// records leave the map empty.
  std::vector<int64_t> delegate_handles(const std::string& method, int64_t instruction_id,
                                        const std::string& delegate_debug_id) const;

 private:
  std::unique_ptr<EtrecordArchive> archive_;
  std::map<std::string, MethodRecord> methods_;
  std::vector<std::string> warnings_;
};

}  // namespace etkit::etrecord
