#include "etkit/inspector/file_size.h"

#include <flatbuffers/reflection.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

#include "bfbs/bundled_program_bfbs_generated.h"
#include "bfbs/flat_tensor_bfbs_generated.h"
#include "bfbs/xnnpack_graph_bfbs_generated.h"
#include "bundled_program_generated.h"
#include "flat_tensor_generated.h"
#include "xnnpack_graph_generated.h"
#include "etkit/delegates/xnnpack/xnn_graph.h"
#include "flatbuffer_walk.h"
#include "program_tables.h"

namespace etkit::inspector {
namespace {

using namespace detail;

using reflection::BaseType;

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
void xnnpack_payload(Tree& tree, int node, ByteSpan payload,
                     const std::map<const uint8_t*, std::pair<std::string, uint64_t>>& constants) {
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
  if (graph_bytes == fb.size && verified<etkit_xnnpack_fb::Graph>(fb)) {
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
  for (const auto& [at, constant] : constants) {
    if (at < payload.data + data_begin || at >= payload.data + data_end) continue;
    const uint64_t offset = uint64_t(at - payload.data);
    claims.claim(offset, std::min(offset + constant.second, data_end), tree.child(constant_data, constant.first));
  }
  claims.claim(data_begin, data_end, tree.child(constant_data, "alignment padding"));
  claims.settle(tree, tree.child(node, "alignment padding"));
}

// XNNPACK constants by where their bytes start: a name and their size.
using ConstantNames = std::map<const uint8_t*, std::pair<std::string, uint64_t>>;

Status program_breakdown(Tree& tree, int node, ByteSpan file, const std::string& name) {
  ETKIT_ASSIGN_OR_RETURN(const ProgramFile program, ProgramFile::open(file, name));
  Claims claims(0, file.size);
  const int headers = tree.child(node, "headers");
  claims.claim(0, 8, tree.child(headers, "flatbuffer root offset and identifier"));
  if (program.header.present) claims.claim(8, 8 + program.header.length, tree.child(headers, "extended header (eh00)"));
  const int flatbuffer = tree.child(node, "program flatbuffer");
  ProgramNaming naming(*program.schema);
  Walker(*program.schema, file.data, claims, tree, naming).table(*program.schema->root_table(), *program.root, flatbuffer);
  const SegmentUses uses = segment_uses(program);
  ConstantNames xnnpack_constants;
  for_each_xnnpack_constant(program, uses, [&](const XnnpackConstant& c) {
    xnnpack_constants.emplace(c.value->constant.data, std::make_pair(c.describe(), uint64_t(c.value->constant.size)));
  });
  const int segments_node = tree.child(node, "segments");
  for (size_t i = 0; i < program.segment_count(); ++i) {
    const auto [begin, end] = program.segment_range(i);
    if (begin == end) continue;  // outside the file: its bytes are padding
    const uint32_t index = uint32_t(i);
    std::string what = "segment " + std::to_string(i) + " (no table refers to it)";
    if (int64_t(i) == uses.constant_segment) what = "constants";
    else if (uses.delegates.count(index)) what = uses.delegates.at(index);
    else if (uses.mutable_offsets.count(index)) what = "mutable buffers' initial state";
    else if (uses.named.count(index)) {
      const auto user = xnnpack_constants.find(file.data + begin);
      what = user != xnnpack_constants.end() ? "named data: " + user->second.first : "named data " + uses.named.at(index);
    }
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
  claims.settle_split(tree, program.flatbuffer_end, tree.child(flatbuffer, "alignment padding"),
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
  if (!verified<bundled_program_flatbuffer::BundledProgram>(file)) {
    return Error::make(ErrorCode::kMalformed, "%s: the bundle flatbuffer does not verify", name.c_str());
  }
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

// The key of each segment a named-data entry refers to.
std::map<uint32_t, std::string> segment_keys(const reflection::Schema& schema, const flatbuffers::Table& root) {
  const reflection::Object& flat = object_named(schema, "flat_tensor_flatbuffer.FlatTensor");
  const reflection::Object& named = object_named(schema, "flat_tensor_flatbuffer.NamedData");
  std::map<uint32_t, std::string> keys;
  if (const auto* entries = flatbuffers::GetFieldAnyV(root, field_of(flat, "named_data"))) {
    for (size_t i = 0; i < entries->size(); ++i) {
      const auto* t = flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(entries, i);
      keys.emplace(flatbuffers::GetFieldI<uint32_t>(*t, field_of(named, "segment_index")), string_field(named, *t, "key"));
    }
  }
  return keys;
}

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
  // The flatbuffer starts at byte 0 (its root offset and identifier, then
  // the header in its padding) and ends at flatbuffer offset + size: the
  // offset is where its tables start, after the header.
  const uint64_t fb_offset = u64(16), fb_size = u64(24), segment_base = u64(32);
  if (fb_offset > file.size || fb_size > file.size - fb_offset ||
      !verified<flat_tensor_flatbuffer::FlatTensor>({file.data, size_t(fb_offset + fb_size)})) {
    return Error::make(ErrorCode::kMalformed, "%s: the flat tensor flatbuffer does not verify", name.c_str());
  }
  Claims claims(0, file.size);
  const int headers = tree.child(0, "headers");
  claims.claim(0, 8, tree.child(headers, "flatbuffer root offset and identifier"));
  claims.claim(8, 8 + length, tree.child(headers, "flat tensor header (FH01)"));
  const int tables = tree.child(0, "flatbuffer tables");
  struct FlatTensorNaming : Naming {
    int field_node(Tree& t, const reflection::Object& o, const reflection::Field& f, int n) override {
      if (o.name()->str() != "flat_tensor_flatbuffer.FlatTensor") return n;
      const std::string field = field_name(f);
      if (field == "named_data") return t.child(n, "named data table (keys, tensor layouts)");
      if (field == "segments") return t.child(n, "segment table");
      return t.child(n, "flat tensor table");
    }
  } naming;
  const flatbuffers::Table& root = *flatbuffers::GetAnyRoot(file.data);
  Walker(schema, file.data, claims, tree, naming).table(*schema.root_table(), root, tables);
  const reflection::Object& flat = object_named(schema, "flat_tensor_flatbuffer.FlatTensor");
  const reflection::Object& segment = object_named(schema, "flat_tensor_flatbuffer.DataSegment");
  const std::map<uint32_t, std::string> keys = segment_keys(schema, root);
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

void leaves(const SizePart& part, const std::string& path, std::vector<SizeLeaf>& out) {
  if (part.parts.empty()) {
    out.push_back({path, part.bytes, part.detail});
    return;
  }
  for (const SizePart& sub : part.parts) leaves(sub, path.empty() ? sub.name : path + "/" + sub.name, out);
}

}  // namespace

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

std::vector<SizeLeaf> largest_leaves(const SizePart& root, size_t count) {
  std::vector<SizeLeaf> out;
  leaves(root, "", out);
  std::stable_sort(out.begin(), out.end(), [](const SizeLeaf& a, const SizeLeaf& b) { return a.bytes > b.bytes; });
  if (out.size() > count) out.resize(count);
  return out;
}

}  // namespace etkit::inspector
