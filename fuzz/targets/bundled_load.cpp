// Bundled program load, the embedded program's load, and the set-up of
// every test case: method load, inputs viewed and set. Nothing executes.

#include <cstddef>
#include <cstdint>

#include "etkit/bundled/bundled_inputs.h"
#include "etkit/bundled/bundled_program.h"
#include "etkit/core/method.h"
#include "fuzz_input.h"

namespace {

void touch_value(const etkit::bundled::BundledValue& value) {
  if (value.kind != etkit::bundled::BundledValue::Kind::kTensor) {
    return;
  }
  etkit::fuzz::touch(value.data);
  auto tensor = etkit::bundled::tensor_view(value);
  (void)tensor;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = etkit::fuzz::as_file(data, size, "fuzz.bpte");
  auto bundle = etkit::bundled::BundledProgram::load(file, "fuzz.bpte");
  if (!bundle.ok()) {
    return 0;
  }
  for (const auto& suite : bundle->suites()) {
    for (const auto& test_case : suite.cases) {
      for (const auto& value : test_case.inputs) touch_value(value);
      for (const auto& value : test_case.expected_outputs) touch_value(value);
    }
  }
  auto program = bundle->load_program();
  if (!program.ok()) {
    return 0;
  }
  const etkit::MethodOptions options = etkit::fuzz::method_options();
  for (const auto& suite : bundle->suites()) {
    auto method = etkit::Method::load(*program, suite.method_name, options);
    if (!method.ok()) {
      continue;
    }
    for (const auto& test_case : suite.cases) {
      auto status = etkit::bundled::set_inputs(**method, test_case);
      (void)status;
    }
  }
  return 0;
}
