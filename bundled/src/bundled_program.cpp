#include "etkit/bundled/bundled_program.h"

#include <algorithm>

#include <optional>


#include "bundled_program_generated.h"
#include "etkit/core/checked_size.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/file_data.h"

namespace etkit::bundled {
namespace fb = bundled_program_flatbuffer;
namespace {

using detail::kMaxFlatbufferSize;

using detail::length;

Result<BundledValue> read_tensor(const fb::Tensor& tensor) {
  BundledValue value;
  value.kind = BundledValue::Kind::kTensor;
  value.scalar_type = static_cast<ScalarType>(tensor.scalar_type());
  if (!is_valid(value.scalar_type)) {
    return Error::make(ErrorCode::kMalformed, "tensor has unknown scalar type %d",
                       static_cast<int>(tensor.scalar_type()));
  }
  if (tensor.sizes()) {
    value.sizes.assign(tensor.sizes()->begin(), tensor.sizes()->end());
  }
  if (tensor.dim_order()) {
    value.dim_order.assign(tensor.dim_order()->begin(), tensor.dim_order()->end());
  }
  CheckedShape shape;
  for (int32_t size : value.sizes) ETKIT_TRY(shape.add(size));
  const uint64_t count = shape.numel();
  if (!value.dim_order.empty() && value.dim_order.size() != value.sizes.size()) {
    return Error::make(ErrorCode::kMalformed,
                       "tensor dim_order has %zu entries for rank %zu",
                       value.dim_order.size(), value.sizes.size());
  }
  ETKIT_ASSIGN_OR_RETURN(const uint64_t expected, shape.nbytes(element_size(value.scalar_type)));
  const size_t actual = length(tensor.data());
  if (actual != expected) {
    return Error::make(ErrorCode::kMalformed,
                       "%s tensor of %llu elements needs %llu data bytes, has "
                       "%zu",
                       to_string(value.scalar_type),
                       static_cast<unsigned long long>(count),
                       static_cast<unsigned long long>(expected), actual);
  }
  if (actual > 0) {
    value.data = ByteSpan{tensor.data()->data(), actual};
  }
  return value;
}

Result<BundledValue> read_value(const fb::Value& value) {
  // As with programs, a set union type with an absent table passes the
  // Verifier; reject it here.
  if (value.val() == nullptr) {
    return Error::make(ErrorCode::kMalformed, "value has no content (type %d)",
                       static_cast<int>(value.val_type()));
  }
  BundledValue out;
  switch (value.val_type()) {
    case fb::ValueUnion::Tensor:
      return read_tensor(*value.val_as_Tensor());
    case fb::ValueUnion::Int:
      out.kind = BundledValue::Kind::kInt;
      out.int_value = value.val_as_Int()->int_val();
      return out;
    case fb::ValueUnion::Bool:
      out.kind = BundledValue::Kind::kBool;
      out.bool_value = value.val_as_Bool()->bool_val();
      return out;
    case fb::ValueUnion::Double:
      out.kind = BundledValue::Kind::kDouble;
      out.double_value = value.val_as_Double()->double_val();
      return out;
    default:
      break;
  }
  return Error::make(ErrorCode::kMalformed, "value has unknown type %d",
                     static_cast<int>(value.val_type()));
}

Result<std::vector<BundledValue>> read_values(
    const flatbuffers::Vector<flatbuffers::Offset<fb::Value>>* values,
    const char* what) {
  std::vector<BundledValue> out;
  for (size_t i = 0; i < length(values); ++i) {
    auto value = read_value(*values->Get(static_cast<uint32_t>(i)));
    if (!value.ok()) {
      return value.error().with_context("%s[%zu]", what, i);
    }
    out.push_back(std::move(value).value());
  }
  return out;
}

Result<MethodTestSuite> read_suite(const fb::BundledMethodTestSuite& suite) {
  MethodTestSuite out;
  if (suite.method_name() == nullptr) {
    return Error::make(ErrorCode::kMalformed, "test suite has no method name");
  }
  out.method_name = suite.method_name()->str();
  for (size_t c = 0; c < length(suite.test_cases()); ++c) {
    const auto* test_case = suite.test_cases()->Get(static_cast<uint32_t>(c));
    TestCase parsed;
    auto inputs = read_values(test_case->inputs(), "inputs");
    if (!inputs.ok()) {
      return inputs.error().with_context("suite '%s' case %zu",
                                         out.method_name.c_str(), c);
    }
    auto outputs = read_values(test_case->expected_outputs(), "expected_outputs");
    if (!outputs.ok()) {
      return outputs.error().with_context("suite '%s' case %zu",
                                          out.method_name.c_str(), c);
    }
    parsed.inputs = std::move(inputs).value();
    parsed.expected_outputs = std::move(outputs).value();
    out.cases.push_back(std::move(parsed));
  }
  return out;
}

}  // namespace

const char* to_string(BundledValue::Kind kind) {
  switch (kind) {
    case BundledValue::Kind::kTensor: return "tensor";
    case BundledValue::Kind::kInt: return "int";
    case BundledValue::Kind::kBool: return "bool";
    case BundledValue::Kind::kDouble: return "double";
  }
  return "unknown";
}

Result<BundledProgram> BundledProgram::load_file(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  return load(std::move(file), path);
}

namespace {

uint32_t read_u32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t read_u16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

// Where the root table's two vectors (test suites, embedded program) end,
// read with bounds checks only (the buffer failed verification): a file
// cut short has them reach past its end, which says "truncated" where
// "malformed" would send the user looking for corruption. nullopt when the
// root table itself cannot be read.
std::optional<uint64_t> root_vectors_end(ByteSpan bytes) {
  const uint64_t size = bytes.size;
  const uint64_t table = read_u32(bytes.data);
  if (table + 4 > size) return table + 4;
  const int32_t to_vtable = int32_t(read_u32(bytes.data + table));
  const int64_t vtable = int64_t(table) - to_vtable;
  if (vtable < 0 || uint64_t(vtable) + 4 > size) return std::nullopt;
  const uint16_t vtable_bytes = read_u16(bytes.data + vtable);
  uint64_t end = 0;
  for (size_t field : {size_t(1), size_t(2)}) {  // method_test_suites, program
    const uint64_t entry = uint64_t(vtable) + 4 + 2 * field;
    if (4 + 2 * field + 2 > vtable_bytes || entry + 2 > size) continue;
    const uint16_t field_offset = read_u16(bytes.data + entry);
    if (field_offset == 0) continue;
    const uint64_t slot = table + field_offset;
    if (slot + 4 > size) return slot + 4;
    const uint64_t vector = slot + read_u32(bytes.data + slot);
    if (vector + 4 > size) return vector + 4;
    const uint64_t element_bytes = field == 2 ? 1 : 4;  // bytes; offsets to suites
    end = std::max(end, vector + 4 + element_bytes * read_u32(bytes.data + vector));
  }
  return end;
}

}  // namespace

Result<BundledProgram> BundledProgram::load(std::shared_ptr<const FileData> owner,
                                            std::string name) {
  const ByteSpan bytes = owner->bytes();
  const char* label = name.c_str();
  if (bytes.size < 8) {
    return Error::make(ErrorCode::kTruncated,
                       "%s: %zu bytes is too short for a bundled program",
                       label, bytes.size);
  }
  if (!bytes.starts_with_at(4, "BP08", 4)) {
    if (bytes.data[4] == 'B' && bytes.data[5] == 'P') {
      return Error::make(ErrorCode::kUnsupported,
                         "%s: bundled program format '%.4s' (etkit reads BP08)",
                         label, reinterpret_cast<const char*>(bytes.data + 4));
    }
    return Error::make(ErrorCode::kMalformed,
                       "%s: not a bundled program: expected identifier 'BP08' "
                       "at byte 4",
                       label);
  }
  if (bytes.size > kMaxFlatbufferSize) {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: bundled program exceeds the format's 2 GiB limit",
                       label);
  }
  flatbuffers::Verifier verifier(bytes.data, bytes.size, 64, 50'000'000);
  if (!fb::VerifyBundledProgramBuffer(verifier)) {
    if (const std::optional<uint64_t> needed = root_vectors_end(bytes); needed && *needed > bytes.size) {
      return Error::make(ErrorCode::kTruncated,
                         "%s: the bundled program is cut off: its vectors reach byte %llu, the file has %zu bytes",
                         label, static_cast<unsigned long long>(*needed), bytes.size);
    }
    return Error::make(ErrorCode::kMalformed,
                       "%s: the bundled program flatbuffer is corrupt: a "
                       "table, vector or string lies outside the file or is "
                       "misaligned",
                       label);
  }
  const fb::BundledProgram* root = fb::GetBundledProgram(bytes.data);
  if (root->program() == nullptr || root->program()->size() == 0) {
    return Error::make(ErrorCode::kMalformed,
                       "%s: bundled program has no embedded program", label);
  }
  BundledProgram result;
  result.version_ = root->version();
  for (size_t s = 0; s < length(root->method_test_suites()); ++s) {
    auto suite = read_suite(*root->method_test_suites()->Get(static_cast<uint32_t>(s)));
    if (!suite.ok()) {
      return suite.error().with_context("%s", label);
    }
    result.suites_.push_back(std::move(suite).value());
  }
  result.program_bytes_ = ByteSpan{root->program()->data(), root->program()->size()};
  result.owner_ = std::move(owner);
  result.name_ = std::move(name);
  return result;
}

uint64_t BundledProgram::program_offset() const {
  return static_cast<uint64_t>(program_bytes_.data - owner_->bytes().data);
}

Result<Program> BundledProgram::load_program() const {
  return Program::load(owner_, program_bytes_, name_ + ": embedded program");
}

}  // namespace etkit::bundled
