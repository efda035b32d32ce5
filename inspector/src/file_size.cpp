#include "etkit/inspector/file_size.h"

#include <flatbuffers/reflection.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "bfbs/bundled_program_bfbs_generated.h"
#include "bfbs/flat_tensor_bfbs_generated.h"
#include "bfbs/program_bfbs_generated.h"
#include "bfbs/xnnpack_graph_bfbs_generated.h"
#include "etkit/core/extended_header.h"
#include "etkit/core/scalar_type.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"

namespace etkit::inspector {
namespace {

using reflection::BaseType;

// ---- the tree being built: nodes by index, bytes owned per node ----------

struct Tree {
  struct Node {
    std::string name;
    std::vector<int> children;
    uint64_t own = 0;
  };
  std::vector<Node> nodes{Node{"file", {}, 0}};

  int child(int parent, const std::string& name) {
    for (int c : nodes[size_t(parent)].children) {
      if (nodes[size_t(c)].name == name) return c;
    }
    nodes.push_back(Node{name, {}, 0});
    const int id = int(nodes.size() - 1);
    nodes[size_t(parent)].children.push_back(id);
    return id;
  }

  SizePart build(int id) const {
    const Node& node = nodes[size_t(id)];
    SizePart part{node.name, node.own, {}};
    for (int c : node.children) {
      SizePart sub = build(c);
      if (sub.bytes == 0) continue;
      part.bytes += sub.bytes;
      part.parts.push_back(std::move(sub));
    }
    // A node owning bytes besides its parts: those bytes as a part of their own.
    if (!part.parts.empty() && node.own > 0) part.parts.insert(part.parts.begin(), SizePart{"(itself)", node.own, {}});
    return part;
  }
};

// Byte ranges of one region claimed by nodes, first claim wins (vtables and
// strings a flatbuffer shares between tables are counted once).
class Claims {
 public:
  Claims(uint64_t begin, uint64_t end) : begin_(begin), end_(end) {}

  /// Claims what of [begin, end) is unclaimed for `node` (-1: bytes a
  /// sub-breakdown attributes itself); returns the bytes newly claimed.
  uint64_t claim(uint64_t begin, uint64_t end, int node) {
    begin = std::max(begin, begin_);
    end = std::min(end, end_);
    uint64_t at = begin, newly = 0;
    auto it = ranges_.upper_bound(at);
    if (it != ranges_.begin() && std::prev(it)->second.first > at) at = std::prev(it)->second.first;
    while (at < end) {
      it = ranges_.lower_bound(at);
      const uint64_t stop = it == ranges_.end() ? end : std::min(end, it->first);
      if (stop > at) {
        ranges_[at] = {stop, node};
        newly += stop - at;
      }
      if (it == ranges_.end() || it->first >= end) break;
      at = it->second.first;
    }
    return newly;
  }

  /// Bytes of [begin, end) no one has claimed yet.
  uint64_t free(uint64_t begin, uint64_t end) const {
    begin = std::max(begin, begin_);
    end = std::min(end, end_);
    if (end <= begin) return 0;
    uint64_t taken = 0;
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < end; ++it) {
      const uint64_t lo = std::max(begin, it->first), hi = std::min(end, it->second.first);
      if (hi > lo) taken += hi - lo;
    }
    return (end - begin) - taken;
  }

  /// Adds the claimed bytes to their nodes and the rest to `unclaimed`
  /// (below `split`) or `unclaimed_after` (from `split` on).
  void settle_split(Tree& tree, uint64_t split, int unclaimed, int unclaimed_after) const {
    uint64_t at = begin_;
    const auto gap = [&](uint64_t lo, uint64_t hi) {
      if (hi <= lo) return;
      const uint64_t cut = std::clamp(split, lo, hi);
      tree.nodes[size_t(unclaimed)].own += cut - lo;
      tree.nodes[size_t(unclaimed_after)].own += hi - cut;
    };
    for (const auto& [begin, range] : ranges_) {
      gap(at, begin);
      if (range.second >= 0) tree.nodes[size_t(range.second)].own += range.first - begin;
      at = range.first;
    }
    gap(at, end_);
  }

  /// Adds the claimed bytes to their nodes and the rest to `unclaimed`.
  void settle(Tree& tree, int unclaimed) const {
    uint64_t claimed = 0;
    for (const auto& [begin, range] : ranges_) {
      if (range.second >= 0) tree.nodes[size_t(range.second)].own += range.first - begin;
      claimed += range.first - begin;
    }
    tree.nodes[size_t(unclaimed)].own += (end_ - begin_) - claimed;
  }

 private:
  uint64_t begin_, end_;
  std::map<uint64_t, std::pair<uint64_t, int>> ranges_;  // begin -> (end, node)
};

// ---- a generic walk of a flatbuffer with its binary schema ---------------

/// Which node a field's data (or a vector element's table) belongs to; the
/// walk asks at every table it enters, so a format can name what matters
/// and let the rest inherit.
struct Naming {
  virtual ~Naming() = default;
  virtual int field_node(Tree&, const reflection::Object&, const reflection::Field&, int node) { return node; }
  virtual int element_node(Tree&, const reflection::Object&, const reflection::Field&, const flatbuffers::Table&,
                           size_t, int node) {
    return node;
  }
  /// Handles a [ubyte] field itself (a nested file); true when it did.
  virtual bool nested_bytes(const reflection::Object&, const reflection::Field&, const uint8_t*, size_t, int) {
    return false;
  }
};

class Walker {
 public:
  Walker(const reflection::Schema& schema, const uint8_t* base, Claims& claims, Tree& tree, Naming& naming)
      : schema_(schema), base_(base), claims_(claims), tree_(tree), naming_(naming) {}

  void table(const reflection::Object& object, const flatbuffers::Table& table, int node) {
    const uint8_t* start = reinterpret_cast<const uint8_t*>(&table);
    const uint8_t* vtable = start - flatbuffers::ReadScalar<flatbuffers::soffset_t>(start);
    const uint16_t vtable_size = flatbuffers::ReadScalar<uint16_t>(vtable);
    const uint16_t object_size = flatbuffers::ReadScalar<uint16_t>(vtable + 2);
    claim(start, object_size, node);
    claim(vtable, vtable_size, node);
    for (const reflection::Field* field : *object.fields()) {
      if (!table.CheckField(field->offset())) continue;
      const int field_node = naming_.field_node(tree_, object, *field, node);
      const BaseType type = field->type()->base_type();
      if (type == BaseType::String) {
        string(flatbuffers::GetFieldS(table, *field), field_node);
      } else if (type == BaseType::Obj) {
        const reflection::Object& sub = *schema_.objects()->Get(field->type()->index());
        if (!sub.is_struct()) this->table(sub, *flatbuffers::GetFieldT(table, *field), field_node);
      } else if (type == BaseType::Union) {
        union_value(object, table, *field, field_node);
      } else if (type == BaseType::Vector) {
        vector(object, table, *field, field_node);
      }
    }
  }

 private:
  void claim(const uint8_t* at, size_t bytes, int node) {
    const uint64_t begin = uint64_t(at - base_);
    claims_.claim(begin, begin + bytes, node);
  }

  void string(const flatbuffers::String* s, int node) {
    if (s == nullptr) return;
    claim(reinterpret_cast<const uint8_t*>(s), sizeof(flatbuffers::uoffset_t) + s->size() + 1, node);
  }

  void union_value(const reflection::Object& object, const flatbuffers::Table& table, const reflection::Field& field,
                   int node) {
    // The union's type sits in the field before it, named <field>_type.
    const std::string type_name = field.name()->str() + "_type";
    const reflection::Field* type_field = object.fields()->LookupByKey(type_name.c_str());
    if (type_field == nullptr) return;
    const int64_t kind = flatbuffers::GetFieldI<uint8_t>(table, *type_field);
    const reflection::Enum& e = *schema_.enums()->Get(field.type()->index());
    const reflection::EnumVal* value = e.values()->LookupByKey(kind);
    if (value == nullptr || value->union_type() == nullptr) return;
    const reflection::Object& sub = *schema_.objects()->Get(value->union_type()->index());
    if (const flatbuffers::Table* t = flatbuffers::GetFieldT(table, field); t != nullptr && !sub.is_struct()) {
      this->table(sub, *t, node);
    }
  }

  void vector(const reflection::Object& object, const flatbuffers::Table& table, const reflection::Field& field,
              int node) {
    const flatbuffers::VectorOfAny* v = flatbuffers::GetFieldAnyV(table, field);
    if (v == nullptr) return;
    const BaseType element = field.type()->element();
    size_t element_size = flatbuffers::GetTypeSize(element);
    const reflection::Object* sub = nullptr;
    if (element == BaseType::Obj) {
      sub = schema_.objects()->Get(field.type()->index());
      if (sub->is_struct()) element_size = size_t(sub->bytesize());
    }
    const uint8_t* data = v->Data();
    const size_t count = v->size();
    if (element == BaseType::UByte && naming_.nested_bytes(object, field, data, count, node)) {
      claim(reinterpret_cast<const uint8_t*>(v), sizeof(flatbuffers::uoffset_t), node);  // its length
      return;
    }
    claim(reinterpret_cast<const uint8_t*>(v), sizeof(flatbuffers::uoffset_t) + count * element_size, node);
    if (element == BaseType::String) {
      for (size_t i = 0; i < count; ++i) string(flatbuffers::GetAnyVectorElemPointer<const flatbuffers::String>(v, i), node);
    } else if (element == BaseType::Obj && !sub->is_struct()) {
      for (size_t i = 0; i < count; ++i) {
        const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(v, i);
        this->table(*sub, *t, naming_.element_node(tree_, object, field, *t, i, node));
      }
    }
  }

  const reflection::Schema& schema_;
  const uint8_t* base_;
  Claims& claims_;
  Tree& tree_;
  Naming& naming_;
};

const reflection::Schema& schema_of(const uint8_t* data) { return *reflection::GetSchema(data); }

bool verified(const reflection::Schema& schema, ByteSpan bytes) {
  return flatbuffers::Verify(schema, *schema.root_table(), bytes.data, bytes.size);
}

std::string field_name(const reflection::Field& field) { return field.name()->str(); }

std::string string_field(const reflection::Object& object, const flatbuffers::Table& table, const char* name) {
  const reflection::Field* f = object.fields()->LookupByKey(name);
  const flatbuffers::String* s = f != nullptr ? flatbuffers::GetFieldS(table, *f) : nullptr;
  return s != nullptr ? s->str() : std::string();
}

// ---- .pte ------------------------------------------------------------------

const reflection::Object& object_named(const reflection::Schema& schema, const char* name) {
  return *schema.objects()->LookupByKey(name);
}
const reflection::Field& field_of(const reflection::Object& object, const char* name) {
  return *object.fields()->LookupByKey(name);
}

class ProgramNaming : public Naming {
 public:
  explicit ProgramNaming(const reflection::Schema& schema) : schema_(schema) {}
  int field_node(Tree& tree, const reflection::Object& object, const reflection::Field& field, int node) override {
    const std::string name = object.name()->str(), f = field_name(field);
    if (name == "executorch_flatbuffer.Program") {
      if (f == "execution_plan") return tree.child(node, "methods");
      if (f == "constant_buffer") return tree.child(node, "inline constants (constant_buffer)");
      if (f == "backend_delegate_data") return tree.child(node, "inline delegate data");
      if (f == "segments" || f == "constant_segment" || f == "mutable_data_segments" || f == "named_data") {
        return tree.child(node, "segment and named-data tables");
      }
      return tree.child(node, "program table");
    }
    if (name == "executorch_flatbuffer.ExecutionPlan") {
      if (f == "values") return tree.child(node, "values");
      if (f == "chains") return tree.child(node, "instructions");
      if (f == "operators") return tree.child(node, "operator names");
      if (f == "delegates") return tree.child(node, "delegate references");
      return tree.child(node, "method tables (name, inputs, outputs, buffer sizes)");
    }
    return node;
  }
  int element_node(Tree& tree, const reflection::Object& object, const reflection::Field& field,
                   const flatbuffers::Table& table, size_t index, int node) override {
    if (object.name()->str() == "executorch_flatbuffer.Program" && field_name(field) == "execution_plan") {
      const std::string name =
          string_field(object_named(schema_, "executorch_flatbuffer.ExecutionPlan"), table, "name");
      return tree.child(node, "method " + (name.empty() ? "#" + std::to_string(index) : name));
    }
    return node;
  }

 private:
  const reflection::Schema& schema_;
};

ScalarType tensor_type(const reflection::Object& tensor, const flatbuffers::Table& t) {
  return static_cast<ScalarType>(flatbuffers::GetFieldI<int8_t>(t, field_of(tensor, "scalar_type")));
}

// "float32[64, 3, 3, 3]" and its bytes, from a Tensor table.
std::pair<std::string, uint64_t> tensor_facts(const reflection::Object& tensor, const flatbuffers::Table& t) {
  const ScalarType type = tensor_type(tensor, t);
  std::string text = to_string(type) + std::string("[");
  uint64_t count = 1;
  const auto* sizes = flatbuffers::GetFieldAnyV(t, field_of(tensor, "sizes"));
  for (size_t i = 0; sizes != nullptr && i < sizes->size(); ++i) {
    const int64_t size = flatbuffers::GetAnyVectorElemI(sizes, BaseType::Int, i);
    text += (i ? ", " : "") + std::to_string(size);
    count *= uint64_t(std::max<int64_t>(0, size));
  }
  return {text + "]", count * element_size(type)};
}

std::vector<uint64_t> u64_vector(const flatbuffers::VectorOfAny* v) {
  std::vector<uint64_t> out;
  for (size_t i = 0; v != nullptr && i < v->size(); ++i) out.push_back(uint64_t(flatbuffers::GetAnyVectorElemI(v, BaseType::ULong, i)));
  return out;
}

using Items = std::map<uint32_t, std::pair<std::string, uint64_t>>;  // index -> (name, bytes)

// What the program's segments hold, from the tables that refer to them.
struct SegmentUses {
  int64_t constant_segment = -1;
  std::vector<uint64_t> constant_offsets;
  Items constants;                                 // data_buffer_idx -> constant
  std::map<uint32_t, std::vector<uint64_t>> mutable_offsets;  // segment -> offsets
  std::map<uint32_t, Items> mutable_states;        // segment -> data_buffer_idx -> tensor
  std::map<uint32_t, std::string> delegates;       // segment -> "delegate X (method m, delegate d)"
  std::map<uint32_t, std::string> backends;        // segment -> backend id
  std::map<uint32_t, std::string> named;           // segment -> key
};

SegmentUses segment_uses(const reflection::Schema& schema, const flatbuffers::Table& root) {
  SegmentUses uses;
  const reflection::Object& program = object_named(schema, "executorch_flatbuffer.Program");
  const reflection::Object& subsegment = object_named(schema, "executorch_flatbuffer.SubsegmentOffsets");
  if (const flatbuffers::Table* cs = flatbuffers::GetFieldT(root, field_of(program, "constant_segment"))) {
    uses.constant_segment = flatbuffers::GetFieldI<uint32_t>(*cs, field_of(subsegment, "segment_index"));
    uses.constant_offsets = u64_vector(flatbuffers::GetFieldAnyV(*cs, field_of(subsegment, "offsets")));
  }
  std::vector<uint32_t> mutable_segment_of;  // mutable_data_segments index -> segment
  if (const auto* ms = flatbuffers::GetFieldAnyV(root, field_of(program, "mutable_data_segments"))) {
    for (size_t i = 0; i < ms->size(); ++i) {
      const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(ms, i);
      const uint32_t segment = flatbuffers::GetFieldI<uint32_t>(*t, field_of(subsegment, "segment_index"));
      mutable_segment_of.push_back(segment);
      uses.mutable_offsets[segment] = u64_vector(flatbuffers::GetFieldAnyV(*t, field_of(subsegment, "offsets")));
    }
  }
  const reflection::Object& plan = object_named(schema, "executorch_flatbuffer.ExecutionPlan");
  const reflection::Object& evalue = object_named(schema, "executorch_flatbuffer.EValue");
  const reflection::Object& tensor = object_named(schema, "executorch_flatbuffer.Tensor");
  const reflection::Object& extra = object_named(schema, "executorch_flatbuffer.ExtraTensorInfo");
  const reflection::Object& delegate = object_named(schema, "executorch_flatbuffer.BackendDelegate");
  const reflection::Object& reference = object_named(schema, "executorch_flatbuffer.BackendDelegateDataReference");
  const reflection::Field& val = field_of(evalue, "val");
  const reflection::Enum& kinds = *schema.enums()->Get(val.type()->index());
  const auto* plans = flatbuffers::GetFieldAnyV(root, field_of(program, "execution_plan"));
  for (size_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const auto* pt = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(plans, p);
    const std::string method = string_field(plan, *pt, "name");
    const auto* values = flatbuffers::GetFieldAnyV(*pt, field_of(plan, "values"));
    for (size_t v = 0; values != nullptr && v < values->size(); ++v) {
      const auto* ev = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(values, v);
      const reflection::EnumVal* kind = kinds.values()->LookupByKey(flatbuffers::GetFieldI<uint8_t>(*ev, field_of(evalue, "val_type")));
      if (kind == nullptr || kind->name()->str() != "Tensor") continue;
      const flatbuffers::Table* t = flatbuffers::GetFieldT(*ev, val);
      if (t == nullptr) continue;
      const uint32_t buffer = flatbuffers::GetFieldI<uint32_t>(*t, field_of(tensor, "data_buffer_idx"));
      if (buffer == 0) continue;
      std::string fqn;
      uint64_t table = 0;
      if (const flatbuffers::Table* info = flatbuffers::GetFieldT(*t, field_of(tensor, "extra_tensor_info"))) {
        fqn = string_field(extra, *info, "fully_qualified_name");
        table = flatbuffers::GetFieldI<uint64_t>(*info, field_of(extra, "mutable_data_segments_idx"));
      }
      auto [shape, bytes] = tensor_facts(tensor, *t);
      const std::string name = (fqn.empty() ? "" : fqn + " ") + shape + " (method " + method + ", value " +
                               std::to_string(v) + ")";
      if (flatbuffers::GetFieldT(*t, field_of(tensor, "allocation_info")) != nullptr) {  // planned: mutable state
        if (table < mutable_segment_of.size()) uses.mutable_states[mutable_segment_of[table]].emplace(buffer, std::make_pair(name, bytes));
      } else {
        uses.constants.emplace(buffer, std::make_pair(name, bytes));  // first user names it
      }
    }
    const auto* delegates = flatbuffers::GetFieldAnyV(*pt, field_of(plan, "delegates"));
    for (size_t d = 0; delegates != nullptr && d < delegates->size(); ++d) {
      const auto* dt = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(delegates, d);
      const flatbuffers::Table* ref = flatbuffers::GetFieldT(*dt, field_of(delegate, "processed"));
      if (ref == nullptr || flatbuffers::GetFieldI<int8_t>(*ref, field_of(reference, "location")) != 1) continue;  // SEGMENT
      const uint32_t index = flatbuffers::GetFieldI<uint32_t>(*ref, field_of(reference, "index"));
      const std::string id = string_field(delegate, *dt, "id");
      uses.delegates.emplace(index, "delegate " + id + " (method " + method + ", delegate " + std::to_string(d) + ")");
      uses.backends.emplace(index, id);
    }
  }
  const reflection::Object& named = object_named(schema, "executorch_flatbuffer.NamedData");
  if (const auto* entries = flatbuffers::GetFieldAnyV(root, field_of(program, "named_data"))) {
    for (size_t i = 0; i < entries->size(); ++i) {
      const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(entries, i);
      uses.named.emplace(flatbuffers::GetFieldI<uint32_t>(*t, field_of(named, "segment_index")), string_field(named, *t, "key"));
    }
  }
  return uses;
}

// Items at offsets inside a segment (index 0 reserved), each up to its
// bytes; what no item covers is alignment padding (or, past every item's
// end with no tensor naming it, an unreferenced entry).
void offsets_in_segment(Tree& tree, int node, uint64_t size, const std::vector<uint64_t>& offsets, const Items& items,
                        const char* what) {
  Claims claims(0, size);
  for (size_t i = 1; i < offsets.size(); ++i) {
    const auto item = items.find(uint32_t(i));
    if (item != items.end()) {
      claims.claim(offsets[i], offsets[i] + item->second.second,
                   tree.child(node, std::string(what) + " " + std::to_string(i) + ": " + item->second.first));
    }
  }
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (items.count(uint32_t(i))) continue;
    uint64_t end = size;  // up to the next entry
    for (size_t j = 1; j < offsets.size(); ++j) {
      if (offsets[j] > offsets[i]) end = std::min(end, offsets[j]);
    }
    claims.claim(offsets[i], end, tree.child(node, std::string(what) + " " + std::to_string(i) + " (no tensor refers to it)"));
  }
  claims.settle(tree, tree.child(node, "alignment padding"));
}

// An XNNPACK payload: its header, the graph walked (nodes, values, constant
// tables), the constant data, and what lies between.
void xnnpack_payload(Tree& tree, int node, ByteSpan payload, const std::map<const uint8_t*, std::string>& constants) {
  bool present = false;
  auto header = xnnpack::parse_payload_header(payload, present);
  if (!header.ok() || !present) {
    tree.nodes[size_t(node)].own += payload.size;
    return;
  }
  Claims claims(0, payload.size);
  claims.claim(0, header->length, tree.child(node, "XNNPACK header"));
  const int graph = tree.child(node, "XNNPACK graph");
  const ByteSpan fb{payload.data + header->flatbuffer_offset, header->flatbuffer_size};
  const uint64_t graph_bytes = claims.claim(header->flatbuffer_offset, header->flatbuffer_offset + fb.size, -1);
  const reflection::Schema& schema = schema_of(etkit_xnnpack_fb::GraphBinarySchema::data());
  if (graph_bytes == fb.size && verified(schema, fb)) {
    struct GraphNaming : Naming {
      int field_node(Tree& t, const reflection::Object& o, const reflection::Field& f, int n) override {
        if (o.name()->str() != "etkit_xnnpack_fb.Graph") return n;
        const std::string name = f.name()->str();
        if (name == "nodes" || name == "values") return t.child(n, name);
        if (name == "constant_buffer" || name == "constant_data") return t.child(n, "constant tables");
        return t.child(n, "graph tables");
      }
    } naming;
    Claims graph_claims(0, fb.size);
    graph_claims.claim(0, 8, tree.child(graph, "flatbuffer root offset and identifier"));
    Walker(schema, fb.data, graph_claims, tree, naming).table(*schema.root_table(), *flatbuffers::GetAnyRoot(fb.data), graph);
    graph_claims.settle(tree, tree.child(graph, "alignment padding"));
  } else {
    tree.nodes[size_t(graph)].own += graph_bytes;  // unverifiable or overlapping: one part
  }
  // Constants inside the payload, each under the node that reads it.
  const int constant_data = tree.child(node, "XNNPACK constant data");
  const uint64_t data_begin = header->constant_data_offset, data_end = data_begin + header->constant_data_size;
  for (const auto& [at, name] : constants) {
    if (at < payload.data + data_begin || at >= payload.data + data_end) continue;
    const uint64_t offset = uint64_t(at - payload.data);
    const auto size_end = name.rfind(" bytes)");
    const auto size_begin = name.rfind('(', size_end);
    const uint64_t bytes = size_end == std::string::npos ? 0 : std::stoull(name.substr(size_begin + 1, size_end - size_begin - 1));
    claims.claim(offset, std::min(offset + bytes, data_end), tree.child(constant_data, name));
  }
  claims.claim(data_begin, data_end, tree.child(constant_data, "alignment padding"));
  claims.settle(tree, tree.child(node, "alignment padding"));
}

// Every XNNPACK constant (in a payload or in named data) by where its bytes
// start, named after the first node that reads it: "node 3 Convolution2d
// (debug handle 5) input 1 float32 [32, 3, 3, 3] (3456 bytes)".
std::map<const uint8_t*, std::string> xnnpack_constant_names(const SegmentUses& uses,
                                                               const std::function<ByteSpan(size_t)>& segment_span) {
  std::map<const uint8_t*, std::string> names;
  std::map<std::string, uint32_t> segment_of_key;
  for (const auto& [segment, key] : uses.named) segment_of_key.emplace(key, segment);
  const auto lookup = [&](const std::string& key) -> Result<ByteSpan> {
    const auto it = segment_of_key.find(key);
    if (it == segment_of_key.end()) return Error::make(ErrorCode::kNotFound, "no named data '%s'", key.c_str());
    return segment_span(it->second);
  };
  for (const auto& [segment, backend] : uses.backends) {
    if (backend != "XnnpackBackend") continue;
    auto graph = xnnpack::read_xnn_graph(segment_span(segment), lookup);
    if (!graph.ok()) continue;  // an unreadable payload stays one part
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
      const xnnpack::GraphNode& g = graph->nodes[n];
      for (size_t k = 0; k < g.inputs.size(); ++k) {
        if (g.inputs[k] >= graph->values.size()) continue;
        const xnnpack::GraphValue& v = graph->values[g.inputs[k]];
        if (v.constant.size == 0 || names.count(v.constant.data)) continue;
        std::string dims;
        for (size_t d = 0; d < v.dims.size(); ++d) dims += (d ? ", " : "") + std::to_string(v.dims[d]);
        names.emplace(v.constant.data, "node " + std::to_string(n) + " " + xnnpack::node_kind_name(g.kind) +
                                           " (debug handle " + std::to_string(g.debug_handle) + ") input " +
                                           std::to_string(k) + (v.quantized() ? std::string(" ") + xnnpack::quant_kind_name(v.quant.kind) : "") +
                                           " [" + dims + "] (" + std::to_string(v.constant.size) + " bytes)");
      }
    }
  }
  return names;
}

Status program_breakdown(Tree& tree, int node, ByteSpan file, const std::string& name) {
  if (file.size < 8 || std::memcmp(file.data + 4, "ET", 2) != 0) {
    return Error::make(ErrorCode::kMalformed, "%s: not an ExecuTorch program (no ETxx identifier)", name.c_str());
  }
  ETKIT_ASSIGN_OR_RETURN(const ExtendedHeader header, ExtendedHeader::parse(file));
  const uint64_t flatbuffer_end = header.present ? std::min<uint64_t>(header.program_size, file.size) : file.size;
  const reflection::Schema& schema = schema_of(executorch_flatbuffer::ProgramBinarySchema::data());
  if (!verified(schema, {file.data, size_t(flatbuffer_end)})) {
    return Error::make(ErrorCode::kMalformed, "%s: the program flatbuffer does not verify", name.c_str());
  }
  Claims claims(0, file.size);
  const int headers = tree.child(node, "headers");
  claims.claim(0, 8, tree.child(headers, "flatbuffer root offset and identifier"));
  if (header.present) claims.claim(8, 8 + header.length, tree.child(headers, "extended header (eh00)"));
  const int flatbuffer = tree.child(node, "program flatbuffer");
  ProgramNaming naming(schema);
  const flatbuffers::Table& root = *flatbuffers::GetAnyRoot(file.data);
  Walker(schema, file.data, claims, tree, naming).table(*schema.root_table(), root, flatbuffer);
  const SegmentUses uses = segment_uses(schema, root);
  const reflection::Object& program = object_named(schema, "executorch_flatbuffer.Program");
  const reflection::Object& data_segment = object_named(schema, "executorch_flatbuffer.DataSegment");
  const auto* segments = flatbuffers::GetFieldAnyV(root, field_of(program, "segments"));
  const int segments_node = tree.child(node, "segments");
  // Segment i's bytes in the file (empty when outside it).
  const auto segment_span = [&](size_t i) -> ByteSpan {
    if (segments == nullptr || !header.present || i >= segments->size()) return {};
    const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(segments, i);
    const uint64_t begin = header.segment_base_offset + flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "offset"));
    const uint64_t size = flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "size"));
    if (begin < header.segment_base_offset || begin > file.size || size > file.size - begin) return {};
    return {file.data + begin, size_t(size)};
  };
  const std::map<const uint8_t*, std::string> xnnpack_constants = xnnpack_constant_names(uses, segment_span);
  for (size_t i = 0; segments != nullptr && header.present && i < segments->size(); ++i) {
    const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(segments, i);
    const uint64_t offset = flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "offset"));
    const uint64_t size = flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "size"));
    const uint64_t begin = header.segment_base_offset + offset;
    if (begin < header.segment_base_offset || begin >= file.size) continue;  // overflowing or outside: padding
    const uint64_t end = std::min<uint64_t>(file.size, begin + std::min<uint64_t>(size, file.size));
    const uint32_t index = uint32_t(i);
    std::string what = "segment " + std::to_string(i) + " (no table refers to it)";
    if (int64_t(i) == uses.constant_segment) what = "constants";
    else if (uses.delegates.count(index)) what = uses.delegates.at(index);
    else if (uses.named.count(index)) {
      what = "named data " + uses.named.at(index);
      const ByteSpan span = segment_span(i);
      if (const auto user = xnnpack_constants.find(span.data); user != xnnpack_constants.end() && span.size > 0) {
        what = "named data: " + user->second;
      }
    }
    else if (uses.mutable_offsets.count(index)) what = "mutable buffers' initial state";
    const int part = tree.child(segments_node, what);
    if (claims.free(begin, end) != end - begin) {
      claims.claim(begin, end, part);  // overlaps another part: its own bytes, in one piece
      continue;
    }
    claims.claim(begin, end, -1);  // attributed below
    const ByteSpan bytes{file.data + begin, size_t(end - begin)};
    if (int64_t(i) == uses.constant_segment) {
      offsets_in_segment(tree, part, bytes.size, uses.constant_offsets, uses.constants, "constant");
    } else if (uses.mutable_offsets.count(index)) {
      const auto states = uses.mutable_states.find(index);
      offsets_in_segment(tree, part, bytes.size, uses.mutable_offsets.at(index),
                         states != uses.mutable_states.end() ? states->second : Items{}, "state");
    } else if (uses.backends.count(index) && uses.backends.at(index) == "XnnpackBackend") {
      xnnpack_payload(tree, part, bytes, xnnpack_constants);
    } else {
      tree.nodes[size_t(part)].own += bytes.size;
    }
  }
  // Everything unclaimed: flatbuffer padding inside it, segment padding after.
  claims.settle_split(tree, flatbuffer_end, tree.child(flatbuffer, "alignment padding"),
                      tree.child(segments_node, "alignment padding and trailing bytes"));
  return Ok{};
}

// ---- .bpte: the bundle's tables and test cases, the embedded program opened -

class BundleNaming : public Naming {
 public:
  BundleNaming(Claims& claims, const uint8_t* base, Tree& tree, Status& status)
      : claims_(claims), base_(base), tree_(tree), status_(status) {}
  int field_node(Tree& tree, const reflection::Object& object, const reflection::Field& field, int node) override {
    if (object.name()->str() != "bundled_program_flatbuffer.BundledProgram") return node;
    const std::string f = field_name(field);
    if (f == "method_test_suites") return tree.child(node, "test cases (inputs and expected outputs)");
    if (f == "program") return tree.child(node, "program (embedded .pte)");
    return tree.child(node, "bundle tables");
  }
  bool nested_bytes(const reflection::Object& object, const reflection::Field& field, const uint8_t* data, size_t size,
                    int node) override {
    if (object.name()->str() != "bundled_program_flatbuffer.BundledProgram" || field_name(field) != "program") return false;
    const uint64_t begin = uint64_t(data - base_);
    claims_.claim(begin, begin + size, -1);
    status_ = program_breakdown(tree_, node, ByteSpan{data, size}, "embedded program");
    return true;
  }

 private:
  Claims& claims_;
  const uint8_t* base_;
  Tree& tree_;
  Status& status_;
};

Status bundle_breakdown(Tree& tree, ByteSpan file, const std::string& name) {
  const reflection::Schema& schema = schema_of(bundled_program_flatbuffer::BundledProgramBinarySchema::data());
  if (!verified(schema, file)) return Error::make(ErrorCode::kMalformed, "%s: the bundle flatbuffer does not verify", name.c_str());
  Claims claims(0, file.size);
  claims.claim(0, 8, tree.child(tree.child(0, "headers"), "flatbuffer root offset and identifier"));
  Status nested = Ok{};
  BundleNaming naming(claims, file.data, tree, nested);
  Walker(schema, file.data, claims, tree, naming).table(*schema.root_table(), *flatbuffers::GetAnyRoot(file.data), 0);
  ETKIT_TRY(nested);
  claims.settle(tree, tree.child(0, "alignment padding"));
  return Ok{};
}

// ---- .ptd: header, flatbuffer tables, named data by key ---------------------

Status flat_tensor_breakdown(Tree& tree, ByteSpan file, const std::string& name) {
  const reflection::Schema& schema = schema_of(flat_tensor_flatbuffer::FlatTensorBinarySchema::data());
  // FH01 at byte 8: u32 length, u64 flatbuffer offset and size, segment base and size.
  if (file.size < 16 || std::memcmp(file.data + 8, "FH01", 4) != 0) {
    return Error::make(ErrorCode::kMalformed, "%s: no FH01 header at byte 8", name.c_str());
  }
  const auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, file.data + at, 4); return v; };
  const auto u64 = [&](size_t at) { uint64_t v; std::memcpy(&v, file.data + at, 8); return v; };
  const uint32_t length = u32(12);
  if (length < 40 || 8 + uint64_t(length) > file.size) {
    return Error::make(ErrorCode::kMalformed, "%s: FH01 header of %u bytes does not fit", name.c_str(), length);
  }
  const uint64_t fb_offset = u64(16), fb_size = u64(24), segment_base = u64(32);
  if (fb_offset > file.size || fb_size > file.size - fb_offset ||
      !verified(schema, {file.data + fb_offset, size_t(fb_size)})) {
    return Error::make(ErrorCode::kMalformed, "%s: the flat tensor flatbuffer does not verify", name.c_str());
  }
  Claims claims(0, file.size);
  const int headers = tree.child(0, "headers");
  claims.claim(fb_offset, fb_offset + 8, tree.child(headers, "flatbuffer root offset and identifier"));
  claims.claim(8, 8 + length, tree.child(headers, "flat tensor header (FH01)"));
  const int tables = tree.child(0, "flatbuffer tables");
  Naming naming;
  const flatbuffers::Table& root = *flatbuffers::GetAnyRoot(file.data + fb_offset);
  Walker(schema, file.data, claims, tree, naming).table(*schema.root_table(), root, tables);
  const reflection::Object& flat = object_named(schema, "flat_tensor_flatbuffer.FlatTensor");
  const reflection::Object& segment = object_named(schema, "flat_tensor_flatbuffer.DataSegment");
  const reflection::Object& named = object_named(schema, "flat_tensor_flatbuffer.NamedData");
  std::map<uint32_t, std::string> keys;
  if (const auto* entries = flatbuffers::GetFieldAnyV(root, field_of(flat, "named_data"))) {
    for (size_t i = 0; i < entries->size(); ++i) {
      const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(entries, i);
      keys.emplace(flatbuffers::GetFieldI<uint32_t>(*t, field_of(named, "segment_index")), string_field(named, *t, "key"));
    }
  }
  const int data = tree.child(0, "named data");
  if (const auto* segments = flatbuffers::GetFieldAnyV(root, field_of(flat, "segments"))) {
    for (size_t i = 0; i < segments->size(); ++i) {
      const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(segments, i);
      const uint64_t begin = segment_base + flatbuffers::GetFieldI<uint64_t>(*t, field_of(segment, "offset"));
      const uint64_t size = flatbuffers::GetFieldI<uint64_t>(*t, field_of(segment, "size"));
      if (begin < segment_base || begin >= file.size) continue;
      const auto key = keys.find(uint32_t(i));
      claims.claim(begin, begin + std::min<uint64_t>(size, file.size - begin),
                   tree.child(data, key != keys.end() ? key->second : "segment " + std::to_string(i) + " (no key refers to it)"));
    }
  }
  claims.settle_split(tree, fb_offset + fb_size, tree.child(tables, "alignment padding"),
                      tree.child(data, "alignment padding and trailing bytes"));
  return Ok{};
}

void leaves(const SizePart& part, const std::string& path, std::vector<std::pair<std::string, uint64_t>>& out) {
  if (part.parts.empty()) {
    out.emplace_back(path, part.bytes);
    return;
  }
  for (const SizePart& sub : part.parts) leaves(sub, path.empty() ? sub.name : path + "/" + sub.name, out);
}

}  // namespace

Result<std::vector<ProgramConstant>> program_constants(ByteSpan file, const std::string& name) {
  if (file.size >= 8 && std::memcmp(file.data + 4, "BP08", 4) == 0) {  // the embedded program
    const reflection::Schema& schema = schema_of(bundled_program_flatbuffer::BundledProgramBinarySchema::data());
    if (!verified(schema, file)) return Error::make(ErrorCode::kMalformed, "%s: the bundle does not verify", name.c_str());
    const auto* program = flatbuffers::GetFieldAnyV(*flatbuffers::GetAnyRoot(file.data),
                                                    field_of(*schema.root_table(), "program"));
    if (program == nullptr) return Error::make(ErrorCode::kMalformed, "%s: the bundle holds no program", name.c_str());
    return program_constants(ByteSpan{program->Data(), program->size()}, name + " (embedded program)");
  }
  if (file.size < 8 || std::memcmp(file.data + 4, "ET", 2) != 0) {
    return Error::make(ErrorCode::kMalformed, "%s: not an ExecuTorch program (no ETxx identifier)", name.c_str());
  }
  ETKIT_ASSIGN_OR_RETURN(const ExtendedHeader header, ExtendedHeader::parse(file));
  const uint64_t flatbuffer_end = header.present ? std::min<uint64_t>(header.program_size, file.size) : file.size;
  const reflection::Schema& schema = schema_of(executorch_flatbuffer::ProgramBinarySchema::data());
  if (!verified(schema, {file.data, size_t(flatbuffer_end)})) {
    return Error::make(ErrorCode::kMalformed, "%s: the program flatbuffer does not verify", name.c_str());
  }
  const flatbuffers::Table& root = *flatbuffers::GetAnyRoot(file.data);
  const reflection::Object& program = object_named(schema, "executorch_flatbuffer.Program");
  const reflection::Object& data_segment = object_named(schema, "executorch_flatbuffer.DataSegment");
  const reflection::Object& buffer = object_named(schema, "executorch_flatbuffer.Buffer");
  const auto* segments = flatbuffers::GetFieldAnyV(root, field_of(program, "segments"));
  const auto segment_span = [&](size_t i) -> ByteSpan {
    if (segments == nullptr || !header.present || i >= segments->size()) return {};
    const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(segments, i);
    const uint64_t begin = header.segment_base_offset + flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "offset"));
    const uint64_t size = flatbuffers::GetFieldI<uint64_t>(*t, field_of(data_segment, "size"));
    if (begin < header.segment_base_offset || begin > file.size || size > file.size - begin) return {};
    return {file.data + begin, size_t(size)};
  };
  std::vector<ProgramConstant> out;
  // Tensors with a data buffer and no planned place, as segment_uses finds
  // them, read again here with their shapes.
  const reflection::Object& plan = object_named(schema, "executorch_flatbuffer.ExecutionPlan");
  const reflection::Object& evalue = object_named(schema, "executorch_flatbuffer.EValue");
  const reflection::Object& tensor = object_named(schema, "executorch_flatbuffer.Tensor");
  const reflection::Object& extra = object_named(schema, "executorch_flatbuffer.ExtraTensorInfo");
  const reflection::Field& val = field_of(evalue, "val");
  const reflection::Enum& kinds = *schema.enums()->Get(val.type()->index());
  const SegmentUses uses = segment_uses(schema, root);
  const ByteSpan constant_segment = uses.constant_segment >= 0 ? segment_span(size_t(uses.constant_segment)) : ByteSpan{};
  const auto* inline_buffers = flatbuffers::GetFieldAnyV(root, field_of(program, "constant_buffer"));
  std::set<std::string> seen;
  const auto* plans = flatbuffers::GetFieldAnyV(root, field_of(program, "execution_plan"));
  for (size_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    const auto* pt = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(plans, p);
    const std::string method = string_field(plan, *pt, "name");
    const auto* values = flatbuffers::GetFieldAnyV(*pt, field_of(plan, "values"));
    for (size_t v = 0; values != nullptr && v < values->size(); ++v) {
      const auto* ev = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(values, v);
      const reflection::EnumVal* kind = kinds.values()->LookupByKey(flatbuffers::GetFieldI<uint8_t>(*ev, field_of(evalue, "val_type")));
      if (kind == nullptr || kind->name()->str() != "Tensor") continue;
      const flatbuffers::Table* t = flatbuffers::GetFieldT(*ev, val);
      if (t == nullptr || flatbuffers::GetFieldT(*t, field_of(tensor, "allocation_info")) != nullptr) continue;
      const uint32_t index = flatbuffers::GetFieldI<uint32_t>(*t, field_of(tensor, "data_buffer_idx"));
      if (index == 0) continue;
      ProgramConstant c;
      if (const flatbuffers::Table* info = flatbuffers::GetFieldT(*t, field_of(tensor, "extra_tensor_info"))) {
        c.key = string_field(extra, *info, "fully_qualified_name");
      }
      if (c.key.empty()) c.key = method + " value " + std::to_string(v);
      if (!seen.insert(c.key).second) continue;
      const ScalarType type = tensor_type(tensor, *t);
      c.type = to_string(type);
      c.is_float32 = type == ScalarType::kFloat;
      const auto* sizes = flatbuffers::GetFieldAnyV(*t, field_of(tensor, "sizes"));
      for (size_t i = 0; sizes != nullptr && i < sizes->size(); ++i) c.sizes.push_back(flatbuffers::GetAnyVectorElemI(sizes, BaseType::Int, i));
      const uint64_t bytes = tensor_facts(tensor, *t).second;
      if (constant_segment.size > 0 && index < uses.constant_offsets.size() &&
          uses.constant_offsets[index] <= constant_segment.size && bytes <= constant_segment.size - uses.constant_offsets[index]) {
        c.data = ByteSpan{constant_segment.data + uses.constant_offsets[index], size_t(bytes)};
      } else if (inline_buffers != nullptr && index < inline_buffers->size()) {
        const auto* b = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(inline_buffers, index);
        const auto* storage = flatbuffers::GetFieldAnyV(*b, field_of(buffer, "storage"));
        if (storage != nullptr && storage->size() >= bytes) c.data = ByteSpan{storage->Data(), size_t(bytes)};
      }
      out.push_back(std::move(c));
    }
  }
  // XNNPACK constants, by the node that reads them.
  std::map<std::string, uint32_t> segment_of_key;
  for (const auto& [segment, key] : uses.named) segment_of_key.emplace(key, segment);
  const auto lookup = [&](const std::string& key) -> Result<ByteSpan> {
    const auto it = segment_of_key.find(key);
    if (it == segment_of_key.end()) return Error::make(ErrorCode::kNotFound, "no named data '%s'", key.c_str());
    return segment_span(it->second);
  };
  for (const auto& [segment, label] : uses.delegates) {
    if (uses.backends.at(segment) != "XnnpackBackend") continue;
    auto graph = xnnpack::read_xnn_graph(segment_span(segment), lookup);
    if (!graph.ok()) continue;
    std::set<const uint8_t*> named;
    for (size_t n = 0; n < graph->nodes.size(); ++n) {
      const xnnpack::GraphNode& g = graph->nodes[n];
      for (size_t k = 0; k < g.inputs.size(); ++k) {
        if (g.inputs[k] >= graph->values.size()) continue;
        const xnnpack::GraphValue& value = graph->values[g.inputs[k]];
        if (value.constant.size == 0 || !named.insert(value.constant.data).second) continue;
        ProgramConstant c;
        c.key = label + " node " + std::to_string(n) + " " + xnnpack::node_kind_name(g.kind) + " (debug handle " +
                std::to_string(g.debug_handle) + ") input " + std::to_string(k);
        c.type = xnnpack::datatype_name(value.datatype);
        c.is_float32 = value.datatype == xnnpack::Datatype::kFp32;
        for (size_t d : value.dims) c.sizes.push_back(int64_t(d));
        c.data = value.constant;
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

Result<SizePart> file_size_breakdown(ByteSpan file, const std::string& name) {
  Tree tree;
  tree.nodes[0].name = name;
  if (file.size >= 8 && std::memcmp(file.data + 4, "BP08", 4) == 0) {
    ETKIT_TRY(bundle_breakdown(tree, file, name));
  } else if (file.size >= 8 && std::memcmp(file.data + 4, "FT01", 4) == 0) {
    ETKIT_TRY(flat_tensor_breakdown(tree, file, name));
  } else {
    ETKIT_TRY(program_breakdown(tree, 0, file, name));
  }
  SizePart root = tree.build(0);
  if (root.bytes != file.size) {
    return Error::make(ErrorCode::kInternal, "%s: the parts add up to %llu bytes, not the file's %zu", name.c_str(),
                       (unsigned long long)root.bytes, file.size);
  }
  return root;
}

std::vector<std::pair<std::string, uint64_t>> largest_leaves(const SizePart& root, size_t count) {
  std::vector<std::pair<std::string, uint64_t>> out;
  leaves(root, "", out);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > count) out.resize(count);
  return out;
}

}  // namespace etkit::inspector
