// etinspect bundle PROGRAM.pte --add-case in0.npy,in1.npy=out0.npy ... -o OUT.bpte

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "etkit/core/atomic_file.h"
#include "diagnostics.h"
#include "option_checks.h"
#include "etkit/bundled/bundled_writer.h"
#include "etkit/core/file_data.h"
#include "etkit/inspector/npy.h"

namespace etkit::cli {
namespace {

struct BundleOptions {
  std::string program;
  std::string method = "forward";
  std::vector<std::string> cases;
  std::string output;
};

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

int run_bundle(const BundleOptions& options) {
  Diagnostics diagnostics;
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
  std::cout << options.output << ": " << suite.cases.size() << " test cases for method '" << options.method
            << "', " << bytes->size() << " bytes\n";
  return kExitOk;
}

}  // namespace

void register_bundle(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<BundleOptions>();
  CLI::App* command = app.add_subcommand("bundle", "Bundle a program with test cases from .npy files");
  command->add_option("program", options->program, ".pte file")->required();
  command->add_option("--method", options->method, "Method the cases test (default forward)");
  command->add_option("--add-case", options->cases, "A test case: in0.npy,in1.npy=out0.npy (repeatable)")->required();
  add_renamed_option(*command, "--case", "--add-case", "a case to add; --case elsewhere is a case's index");
  command->add_option("-o,--output", options->output, "Output .bpte")->required()->check(writable_path());
  command->callback([options, &context] { context.exit_code = run_bundle(*options); });
}

}  // namespace etkit::cli
