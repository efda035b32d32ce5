#pragma once
/// @file
/// Writes bundled programs (.bpte): a program plus test cases, laid out as
/// upstream's format requires (the program 32-byte aligned inside the
/// file, tensor data 16-byte aligned).

#include <cstdint>
#include <string>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"
#include "etkit/core/scalar_type.h"

namespace etkit::bundled {

/// A test value that owns its bytes.
struct OwnedValue {
  enum class Kind { kTensor, kInt, kBool, kDouble };
  Kind kind = Kind::kTensor;
  ScalarType scalar_type = ScalarType::kFloat;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;  ///< empty: default order
  std::vector<uint8_t> data;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
};

struct OwnedTestCase {
  std::vector<OwnedValue> inputs;
  std::vector<OwnedValue> expected_outputs;
};

struct OwnedTestSuite {
  std::string method;
  std::vector<OwnedTestCase> cases;
};

/// The .bpte bytes for `program` (a whole .pte file) and `suites`. Checks
/// that the program loads and every case matches its method's inputs and
/// outputs in count, kind, dtype and shape.
Result<std::vector<uint8_t>> write_bundled_program(ByteSpan program,
                                                   const std::vector<OwnedTestSuite>& suites);

}  // namespace etkit::bundled
