#pragma once
// Counting a flatbuffer's bytes by what holds them: a tree of named parts
// (Tree), byte ranges claimed by parts, first claim wins (Claims), and a
// walk of any table with the format's binary schema (Walker) that claims
// every table, vtable, vector and string for the part a Naming chooses.
// Private to the inspector's size and diff code.

#include <flatbuffers/reflection.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/inspector/file_size.h"

namespace etkit::inspector::detail {

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
  void settle(Tree& tree, int unclaimed) const { settle_split(tree, end_, unclaimed, unclaimed); }

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
    // The verifier checks the vtable's bytes by its own size, which a damaged
    // file may make 0 or 2: then there is no object size (and no field) in it.
    const uint16_t object_size = vtable_size >= 4 ? flatbuffers::ReadScalar<uint16_t>(vtable + 2) : 0;
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
    // NONE (type 0, which a damaged file may pair with a value) names no
    // table: its type is not an object and its index is -1.
    if (value == nullptr || value->union_type() == nullptr || value->union_type()->base_type() != BaseType::Obj) return;
    const int32_t index = value->union_type()->index();
    if (index < 0 || uint32_t(index) >= schema_.objects()->size()) return;
    const reflection::Object& sub = *schema_.objects()->Get(uint32_t(index));
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

inline const reflection::Schema& schema_of(const uint8_t* data) { return *reflection::GetSchema(data); }

/// Whether `bytes` hold a sound buffer whose root is a `Root` (identifier
/// not checked): flatc's generated verifier, the one the runtime trusts,
/// with its limits. Not the reflection verifier: Debian's (flatbuffers
/// 2.0.8) reads out of bounds on damaged buffers the generated one refuses
/// (found by the file_size fuzz target).
template <class Root>
bool verified(ByteSpan bytes) {
  if (bytes.size > etkit::detail::kMaxFlatbufferSize) return false;  // the Verifier asserts on 2 GiB
  flatbuffers::Verifier verifier(bytes.data, bytes.size, etkit::detail::kVerifierMaxDepth,
                                 etkit::detail::kVerifierMaxTables);
  return verifier.VerifyBuffer<Root>(nullptr);
}

inline std::string field_name(const reflection::Field& field) { return field.name()->str(); }

inline std::string string_field(const reflection::Object& object, const flatbuffers::Table& table, const char* name) {
  const reflection::Field* f = object.fields()->LookupByKey(name);
  const flatbuffers::String* s = f != nullptr ? flatbuffers::GetFieldS(table, *f) : nullptr;
  return s != nullptr ? s->str() : std::string();
}


inline const reflection::Object& object_named(const reflection::Schema& schema, const char* name) {
  return *schema.objects()->LookupByKey(name);
}
inline const reflection::Field& field_of(const reflection::Object& object, const char* name) {
  return *object.fields()->LookupByKey(name);
}


}  // namespace etkit::inspector::detail
