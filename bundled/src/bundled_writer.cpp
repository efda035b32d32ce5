#include "etkit/bundled/bundled_writer.h"

#include "bundled_program_generated.h"
#include "etkit/core/file_data.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "etkit/core/tensor_access.h"

namespace etkit::bundled {
namespace fb = bundled_program_flatbuffer;
namespace {

constexpr size_t kProgramAlignment = 32;  // BundledProgram.program force_align
constexpr size_t kTensorAlignment = 16;   // Tensor.data force_align

// Checks one value against the method's input or output description.
Status check_value(const OwnedValue& value, const ValueSummary& spec, const char* what, size_t index) {
  if (value.kind != OwnedValue::Kind::kTensor) {
    if (spec.kind == "tensor") {
      return Error::make(ErrorCode::kInvalidArgument, "%s %zu is a tensor in the program, not a scalar",
                         what, index);
    }
    return Ok{};
  }
  if (spec.kind != "tensor") {
    return Error::make(ErrorCode::kInvalidArgument, "%s %zu is %s in the program, not a tensor", what,
                       index, spec.kind.c_str());
  }
  if (value.scalar_type != spec.tensor.scalar_type) {
    return Error::make(ErrorCode::kInvalidArgument, "%s %zu must be %s, got %s", what, index,
                       to_string(spec.tensor.scalar_type), to_string(value.scalar_type));
  }
  const std::vector<int64_t> sizes(value.sizes.begin(), value.sizes.end());
  if (sizes != spec.tensor.sizes && spec.tensor.dynamism == "static") {
    return Error::make(ErrorCode::kInvalidArgument, "%s %zu must have shape %s, got %s", what, index,
                       format_sizes(spec.tensor.sizes).c_str(), format_sizes(sizes).c_str());
  }
  uint64_t count = 1;
  for (int32_t s : value.sizes) count *= uint64_t(s < 0 ? 0 : s);
  if (count * element_size(value.scalar_type) != value.data.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s %zu has %zu data bytes for shape %s", what, index,
                       value.data.size(), format_sizes(sizes).c_str());
  }
  return Ok{};
}

flatbuffers::Offset<fb::Value> build_value(flatbuffers::FlatBufferBuilder& b, const OwnedValue& v) {
  switch (v.kind) {
    case OwnedValue::Kind::kTensor: {
      std::vector<uint8_t> order = v.dim_order;
      if (order.empty()) {
        for (size_t d = 0; d < v.sizes.size(); ++d) order.push_back(uint8_t(d));
      }
      auto sizes = b.CreateVector(v.sizes);
      auto dim_order = b.CreateVector(order);
      b.ForceVectorAlignment(v.data.size(), 1, kTensorAlignment);
      auto data = b.CreateVector(v.data);
      auto tensor = fb::CreateTensor(b, static_cast<executorch_flatbuffer::ScalarType>(v.scalar_type),
                                     sizes, data, dim_order);
      return fb::CreateValue(b, fb::ValueUnion::Tensor, tensor.Union());
    }
    case OwnedValue::Kind::kInt:
      return fb::CreateValue(b, fb::ValueUnion::Int, fb::CreateInt(b, v.int_value).Union());
    case OwnedValue::Kind::kBool:
      return fb::CreateValue(b, fb::ValueUnion::Bool, fb::CreateBool(b, v.bool_value).Union());
    case OwnedValue::Kind::kDouble:
      return fb::CreateValue(b, fb::ValueUnion::Double, fb::CreateDouble(b, v.double_value).Union());
  }
  return 0;
}

}  // namespace

Result<std::vector<uint8_t>> write_bundled_program(ByteSpan program_bytes,
                                                   const std::vector<OwnedTestSuite>& suites) {
  auto file = FileData::copy_of(program_bytes, "program");
  ETKIT_ASSIGN_OR_RETURN(Program program, Program::load(file, file->bytes(), "program"));
  const ProgramSummary summary = summarize(program);
  for (const OwnedTestSuite& suite : suites) {
    const MethodSummary* method = nullptr;
    for (const MethodSummary& m : summary.methods) {
      if (m.name == suite.method) method = &m;
    }
    if (method == nullptr) {
      return Error::make(ErrorCode::kNotFound, "the program has no method '%s'", suite.method.c_str());
    }
    for (size_t c = 0; c < suite.cases.size(); ++c) {
      const OwnedTestCase& test_case = suite.cases[c];
      if (test_case.inputs.size() != method->inputs.size() ||
          test_case.expected_outputs.size() != method->outputs.size()) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "case %zu has %zu inputs and %zu outputs; method '%s' takes %zu and "
                           "returns %zu",
                           c, test_case.inputs.size(), test_case.expected_outputs.size(),
                           suite.method.c_str(), method->inputs.size(), method->outputs.size());
      }
      for (size_t i = 0; i < test_case.inputs.size(); ++i) {
        Status ok = check_value(test_case.inputs[i], method->inputs[i], "input", i);
        if (!ok.ok()) return ok.error().with_context("method '%s' case %zu", suite.method.c_str(), c);
      }
      for (size_t o = 0; o < test_case.expected_outputs.size(); ++o) {
        Status ok = check_value(test_case.expected_outputs[o], method->outputs[o], "output", o);
        if (!ok.ok()) return ok.error().with_context("method '%s' case %zu", suite.method.c_str(), c);
      }
    }
  }
  flatbuffers::FlatBufferBuilder b(program_bytes.size + 4096);
  std::vector<flatbuffers::Offset<fb::BundledMethodTestSuite>> built_suites;
  for (const OwnedTestSuite& suite : suites) {
    std::vector<flatbuffers::Offset<fb::BundledMethodTestCase>> cases;
    for (const OwnedTestCase& test_case : suite.cases) {
      std::vector<flatbuffers::Offset<fb::Value>> inputs, outputs;
      for (const OwnedValue& v : test_case.inputs) inputs.push_back(build_value(b, v));
      for (const OwnedValue& v : test_case.expected_outputs) outputs.push_back(build_value(b, v));
      cases.push_back(fb::CreateBundledMethodTestCase(b, b.CreateVector(inputs), b.CreateVector(outputs)));
    }
    built_suites.push_back(
        fb::CreateBundledMethodTestSuite(b, b.CreateString(suite.method), b.CreateVector(cases)));
  }
  auto suites_offset = b.CreateVector(built_suites);
  b.ForceVectorAlignment(program_bytes.size, 1, kProgramAlignment);
  auto program_offset = b.CreateVector(program_bytes.data, program_bytes.size);
  // Schema version 2, as upstream's current bundles carry.
  auto root = fb::CreateBundledProgram(b, 2, suites_offset, program_offset);
  fb::FinishBundledProgramBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace etkit::bundled
