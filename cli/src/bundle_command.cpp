// etinspect bundle PROGRAM.pte --add-case in0.npy,in1.npy=out0.npy ... -o OUT.bpte
// etinspect bundle BUNDLE.bpte --extract DIR: the reverse, every case's
// inputs and expected outputs as .npy and the embedded program, with the
// --add-case specs that bundle them again.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "etkit/core/atomic_file.h"
#include "diagnostics.h"
#include "option_checks.h"
#include "etkit/bundled/bundled_program.h"
#include "etkit/bundled/bundled_writer.h"
#include "etkit/core/file_data.h"
#include "etkit/inspector/npy.h"
#include "etkit/report/printer.h"

namespace etkit::cli {
namespace {

struct BundleOptions {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> cases;
  std::string output;
  std::string extract;  ///< a folder: extract the bundle `program` into it
  bool json = false;
};

std::unique_ptr<report::Printer> printer(const BundleOptions& options) {
  return options.json ? report::make_json_printer(std::cout) : report::make_text_printer(std::cout);
}

// One method's extracted cases and the command that bundles them again.
struct ExtractedSuite {
  std::string method;
  size_t cases = 0;
  std::string command;
};

void print_extracted(const BundleOptions& options, const std::vector<ExtractedSuite>& suites, size_t files) {
  auto out = printer(options);
  out->begin_object("");
  out->field("bundle", options.program);
  out->field("folder", options.extract);
  out->field("files", uint64_t(files));
  out->begin_list("methods");
  for (const ExtractedSuite& suite : suites) {
    out->begin_object("");
    out->field("method", suite.method);
    out->field("cases", uint64_t(suite.cases));
    out->field("bundle_again", suite.command);
    out->end_object();
  }
  out->end_list();
  out->end_object();
  out->finish();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1) {
    parts.push_back(text.substr(start, at - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

Result<bundled::OwnedValue> npy_value(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(inspector::NpyArray array, inspector::read_npy(path));
  bundled::OwnedValue value;
  value.scalar_type = array.dtype;
  for (int64_t s : array.shape) value.sizes.push_back(static_cast<int32_t>(s));
  value.data = std::move(array.data);
  return value;
}

// A bundled value as .npy bytes: tensors in their dtype (bfloat16 as the
// uint16 bits, as run --input takes them), scalars as 0-d arrays.
Result<std::vector<uint8_t>> value_npy(const bundled::BundledValue& value) {
  int64_t scalar_storage[1] = {};
  ScalarType type = value.scalar_type;
  std::vector<int64_t> sizes(value.sizes.begin(), value.sizes.end());
  void* data = const_cast<uint8_t*>(value.data.data);
  size_t bytes = value.data.size;
  switch (value.kind) {
    case bundled::BundledValue::Kind::kTensor: break;
    case bundled::BundledValue::Kind::kInt:
      type = ScalarType::kLong;
      std::memcpy(scalar_storage, &value.int_value, sizeof(int64_t));
      break;
    case bundled::BundledValue::Kind::kDouble:
      type = ScalarType::kDouble;
      std::memcpy(scalar_storage, &value.double_value, sizeof(double));
      break;
    case bundled::BundledValue::Kind::kBool:
      type = ScalarType::kBool;
      reinterpret_cast<uint8_t*>(scalar_storage)[0] = value.bool_value ? 1 : 0;
      break;
  }
  if (value.kind != bundled::BundledValue::Kind::kTensor) {
    sizes.clear();
    data = scalar_storage;
    bytes = sizeof(scalar_storage);
  }
  if (type == ScalarType::kBFloat16) type = ScalarType::kUInt16;
  ETKIT_ASSIGN_OR_RETURN(Tensor tensor, Tensor::make(type, Span<const int64_t>(sizes.data(), sizes.size()),
                                                     Span<const uint8_t>(value.dim_order.data(), value.dim_order.size()),
                                                     data, bytes));
  return inspector::encode_npy(tensor);
}

Status write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  return write_file_atomically(path, ByteSpan{bytes.data(), bytes.size()});
}

int run_extract(const BundleOptions& options, Diagnostics& diagnostics) {
  namespace fs = std::filesystem;
  auto bundle = bundled::BundledProgram::load_file(options.program);
  if (!bundle.ok()) return diagnostics.fail(bundle.error());
  std::error_code error;
  fs::create_directories(options.extract, error);
  if (error) {
    return diagnostics.fail(Error::make(ErrorCode::kIo, "--extract %s: %s", options.extract.c_str(),
                                        error.message().c_str()));
  }
  const fs::path root(options.extract);
  const ByteSpan program = bundle->program_bytes();
  if (Status written = write_file_atomically((root / "program.pte").string(), program); !written.ok()) {
    return diagnostics.fail(written.error());
  }
  size_t files = 1;
  std::vector<ExtractedSuite> extracted;
  for (const bundled::MethodTestSuite& suite : bundle->suites()) {
    std::string specs;
    for (size_t c = 0; c < suite.cases.size(); ++c) {
      const fs::path folder = root / suite.method_name / ("case" + std::to_string(c));
      fs::create_directories(folder, error);
      std::string spec;
      for (const auto& [values, stem] : {std::pair{&suite.cases[c].inputs, "input"},
                                         std::pair{&suite.cases[c].expected_outputs, "expected"}}) {
        spec += stem == std::string("input") ? "" : "=";
        for (size_t i = 0; i < values->size(); ++i) {
          const fs::path file = folder / (std::string(stem) + "_" + std::to_string(i) + ".npy");
          auto bytes = value_npy((*values)[i]);
          if (!bytes.ok()) {
            return diagnostics.fail(bytes.error().with_context("%s: %s case %zu %s %zu", options.program.c_str(),
                                                               suite.method_name.c_str(), c, stem, i));
          }
          if (Status written = write_bytes(file.string(), *bytes); !written.ok()) return diagnostics.fail(written.error());
          spec += (i ? "," : "") + file.string();
          ++files;
        }
      }
      specs += " --add-case " + spec;
    }
    extracted.push_back({suite.method_name, suite.cases.size(),
                         "etinspect bundle " + (root / "program.pte").string() + " --method " + suite.method_name +
                             specs + " -o OUT.bpte"});
  }
  print_extracted(options, extracted, files);
  return kExitOk;
}

int run_bundle(const BundleOptions& options) {
  Diagnostics diagnostics;
  if (!options.extract.empty()) {
    if (!options.cases.empty() || !options.output.empty()) {
      return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument,
                                          "--extract reads a bundle; --add-case and -o write one: not both"));
    }
    return run_extract(options, diagnostics);
  }
  if (options.cases.empty() || options.output.empty()) {
    return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument,
                                        "bundle needs --add-case (one or more) and -o OUT.bpte, or --extract DIR"));
  }
  auto program = FileData::load(options.program);
  if (!program.ok()) return diagnostics.fail(program.error());
  bundled::OwnedTestSuite suite;
  suite.method = options.method;
  for (const std::string& spec : options.cases) {
    const auto sides = split(spec, '=');
    if (sides.size() != 2) {
      return diagnostics.fail(Error::make(ErrorCode::kInvalidArgument,
                              "--add-case '%s': expected INPUTS=OUTPUTS, each a comma-separated list of .npy files",
                              spec.c_str()));
    }
    bundled::OwnedTestCase test_case;
    for (const std::string& path : split(sides[0], ',')) {
      if (path.empty()) continue;
      auto value = npy_value(path);
      if (!value.ok()) return diagnostics.fail(value.error());
      test_case.inputs.push_back(std::move(value).value());
    }
    for (const std::string& path : split(sides[1], ',')) {
      if (path.empty()) continue;
      auto value = npy_value(path);
      if (!value.ok()) return diagnostics.fail(value.error());
      test_case.expected_outputs.push_back(std::move(value).value());
    }
    suite.cases.push_back(std::move(test_case));
  }
  auto bytes = bundled::write_bundled_program((*program)->bytes(), {suite});
  if (!bytes.ok()) return diagnostics.fail(bytes.error().with_context("%s", options.program.c_str()));
  Status written = write_file_atomically(options.output, ByteSpan{bytes->data(), bytes->size()});
  if (!written.ok()) return diagnostics.fail(written.error());
  auto out = printer(options);
  out->begin_object("");
  out->field("output", options.output);
  out->field("method", options.method);
  out->field("cases", uint64_t(suite.cases.size()));
  out->field("bytes", uint64_t(bytes->size()));
  out->end_object();
  out->finish();
  return kExitOk;
}

}  // namespace

void register_bundle(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<BundleOptions>();
  CLI::App* command = app.add_subcommand("bundle", "Bundle a program with test cases from .npy files");
  command->add_option("program", options->program, ".pte file (with --extract: the .bpte)")->required();
  command->add_option("--method", options->method, "Method the cases test (default forward)");
  command->add_option("--add-case", options->cases, "A test case: in0.npy,in1.npy=out0.npy (repeatable)");
  add_renamed_option(*command, "--case", "--add-case", "a case to add; --case elsewhere is a case's index");
  command->add_option("-o,--output", options->output, "Output .bpte")->check(writable_path());
  command->add_option("--extract", options->extract,
                      "Write the bundle's program and every case's inputs and expected outputs (.npy) into DIR");
  command->add_flag("--json", options->json, "What was written (cases, bytes, files) as JSON");
  command->callback([options, &context] { context.exit_code = run_bundle(*options); });
}

}  // namespace etkit::cli
