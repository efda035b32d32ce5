#include "runner_verification.h"

#include <chrono>
#include <filesystem>
#include <memory>

#include "etkit/core/atomic_file.h"
#include "etkit/core/tensor_access.h"
#include "etkit/inspector/npy.h"
#include "etkit/session/loaded_program.h"

namespace fs = std::filesystem;

namespace etkit::cli {
namespace {

// One bundled value as .npy: tensors as they are, scalars as 0-d arrays.
Status write_bundled_npy(const std::string& path, const bundled::BundledValue& value) {
  using Kind = bundled::BundledValue::Kind;
  int64_t int_value = value.kind == Kind::kBool ? int64_t(value.bool_value) : value.int_value;
  double double_value = value.double_value;
  if (value.kind != Kind::kTensor) {
    const bool is_double = value.kind == Kind::kDouble;
    const ScalarType type = is_double ? ScalarType::kDouble : value.kind == Kind::kBool ? ScalarType::kBool : ScalarType::kLong;
    uint8_t flag = uint8_t(value.bool_value);
    void* data = is_double ? static_cast<void*>(&double_value)
                 : value.kind == Kind::kBool ? static_cast<void*>(&flag)
                                             : static_cast<void*>(&int_value);
    ETKIT_ASSIGN_OR_RETURN(Tensor scalar, Tensor::make(type, {}, {}, data, 8));
    return inspector::write_npy(path, scalar);
  }
  const std::vector<int64_t> sizes(value.sizes.begin(), value.sizes.end());
  ETKIT_ASSIGN_OR_RETURN(Tensor tensor, Tensor::make(value.scalar_type, Span<const int64_t>(sizes.data(), sizes.size()),
                                                     Span<const uint8_t>(value.dim_order.data(), value.dim_order.size()),
                                                     const_cast<uint8_t*>(value.data.data), value.data.size));
  return inspector::write_npy(path, tensor);
}

// The runner's output as a value to compare with `expected`: a 0-d array
// stands for a scalar when a scalar is expected.
struct ReadOutput {
  inspector::NpyArray array;
  Tensor tensor;
  Value value;
};
Status read_output(const std::string& path, const bundled::BundledValue& expected, ReadOutput& out) {
  ETKIT_ASSIGN_OR_RETURN(out.array, inspector::read_npy(path));
  ETKIT_ASSIGN_OR_RETURN(out.tensor, out.array.view());
  using Kind = bundled::BundledValue::Kind;
  if (expected.kind == Kind::kTensor || out.tensor.numel() != 1) {
    out.value = Value::from_tensor(&out.tensor);
    return Ok{};
  }
  const double v = element_as_double(out.tensor, 0);
  out.value = expected.kind == Kind::kInt    ? Value::from_int(int64_t(v))
              : expected.kind == Kind::kBool ? Value::from_bool(v != 0)
                                             : Value::from_double(v);
  return Ok{};
}

// Set-up errors (no runner, an unreachable host) end the verification;
// what a run did wrong is the case's own error.
bool ends_verification(const Error& error) { return error.code() != ErrorCode::kInternal; }

Result<bundled::CaseReport> run_case(const DeviceOptions& options, const std::string& target, const fs::path& dir,
                                     const std::string& program, const std::string& method, size_t index,
                                     const bundled::TestCase& test, const session::VerifyRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  bundled::CaseReport report;
  report.method = method;
  report.case_index = index;
  const fs::path case_dir = dir / (method + "-" + std::to_string(index));
  fs::create_directories(case_dir);
  DeviceJob job;
  job.command = "run";
  job.file = program;
  job.data = request.data;
  job.runner = options.runner;
  job.runner_args = options.runner_args;
  job.method = method;
  job.outputs = test.expected_outputs.size();
  job.output_dir = case_dir.string();
  job.etdump = request.tracing.etdump;
  job.debug_buffer = request.tracing.debug_buffer;
  for (size_t i = 0; i < test.inputs.size(); ++i) {
    job.inputs.push_back((case_dir / ("input_" + std::to_string(i) + ".npy")).string());
    ETKIT_TRY(write_bundled_npy(job.inputs.back(), test.inputs[i]));
  }
  auto ran = run_on_device(options, target, job);
  if (!ran.ok() && ends_verification(ran.error())) return ran.error();
  if (!ran.ok()) {
    report.passed = false;
    report.error = ran.error().message();
  }
  bundled::VerifyOptions compare;
  compare.rtol = request.rtol;
  compare.atol = request.atol;
  for (size_t i = 0; ran.ok() && i < test.expected_outputs.size(); ++i) {
    ReadOutput output;
    Status read = read_output((case_dir / ("output_" + std::to_string(i) + ".npy")).string(), test.expected_outputs[i], output);
    if (!read.ok()) {
      report.passed = false;
      report.error = read.error().message();
      break;
    }
    report.outputs.push_back(bundled::compare_output(i, output.value, test.expected_outputs[i], compare));
    report.passed = report.passed && report.outputs.back().passed;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace

Result<bundled::VerifyReport> verify_through_runner(const DeviceOptions& options, const std::string& target,
                                                    const std::string& bundle, const session::VerifyRequest& request) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<session::LoadedProgram> loaded, session::load_bundle(bundle, request.data));
  WorkDir dir;
  ETKIT_TRY(make_work_dir(dir, "runner-verify"));
  const std::string program = (dir.path / "program.pte").string();
  ETKIT_TRY(write_file_atomically(program, loaded->bundle->program_bytes()));
  bundled::VerifyReport report;
  report.rtol = request.rtol;
  report.atol = request.atol;
  report.ran_on = options.runner.empty() ? target : target + " via " + fs::path(options.runner).filename().string();
  size_t selected = 0;
  for (const bundled::MethodTestSuite& suite : loaded->bundle->suites()) {
    if (!request.method.empty() && suite.method_name != request.method) continue;
    for (size_t i = 0; i < suite.cases.size(); ++i) {
      if (request.case_index >= 0 && size_t(request.case_index) != i) continue;
      if (++selected > 1 && !request.tracing.etdump.empty()) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "%s: through a runner, --etdump traces one case (each case is one run of the runner); "
                           "choose it with --case N (and --method)",
                           bundle.c_str());
      }
    }
  }
  if (selected == 0) {
    return Error::make(ErrorCode::kNotFound, "%s: no test case matches --method '%s' --case %lld", bundle.c_str(),
                       request.method.c_str(), static_cast<long long>(request.case_index));
  }
  for (const bundled::MethodTestSuite& suite : loaded->bundle->suites()) {
    if (!request.method.empty() && suite.method_name != request.method) continue;
    for (size_t i = 0; i < suite.cases.size(); ++i) {
      if (request.case_index >= 0 && size_t(request.case_index) != i) continue;
      ETKIT_ASSIGN_OR_RETURN(bundled::CaseReport c, run_case(options, target, dir.path, program, suite.method_name, i,
                                                             suite.cases[i], request));
      (c.error.empty() ? (c.passed ? report.passed : report.failed) : report.errors) += 1;
      report.cases.push_back(std::move(c));
      if (request.progress) request.progress(report.cases.size(), selected);
    }
  }
  return report;
}

}  // namespace etkit::cli
