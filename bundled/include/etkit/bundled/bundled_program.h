#pragma once
/// @file
/// Reader of bundled programs (.bpte): a program plus test cases. The
/// embedded program is loaded in place, never copied.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/program.h"
#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"

namespace etkit {
class FileData;
}

namespace etkit::bundled {

/// A test input or expected output.
struct BundledValue {
  enum class Kind { kTensor, kInt, kBool, kDouble };
  Kind kind = Kind::kTensor;
  ScalarType scalar_type = ScalarType::kFloat;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  ByteSpan data;  ///< Tensor bytes inside the bundle.
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
};

const char* to_string(BundledValue::Kind kind);

struct TestCase {
  std::vector<BundledValue> inputs;
  std::vector<BundledValue> expected_outputs;
};

struct MethodTestSuite {
  std::string method_name;
  std::vector<TestCase> cases;
};

class BundledProgram {
 public:
  static Result<BundledProgram> load_file(const std::string& path);
  static Result<BundledProgram> load(std::shared_ptr<const FileData> owner,
                                     std::string name);

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  const std::vector<MethodTestSuite>& suites() const { return suites_; }
  /// The embedded program's bytes (inside the bundle's buffer).
  ByteSpan program_bytes() const { return program_bytes_; }
  /// Byte offset of the embedded program within the bundle file.
  uint64_t program_offset() const;
  /// Loads (and verifies) the embedded program without copying it.
  Result<Program> load_program() const;

 private:
  BundledProgram() = default;
  std::shared_ptr<const FileData> owner_;
  std::string name_;
  uint32_t version_ = 0;
  std::vector<MethodTestSuite> suites_;
  ByteSpan program_bytes_;
};

}  // namespace etkit::bundled
