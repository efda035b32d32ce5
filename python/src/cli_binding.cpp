// etkit._cli(args): an etinspect subcommand run in this process, its
// standard output and error captured. etkit.verify, etkit.memory, … call it
// with --json, so their reports are the CLI's own, key for key.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "diagnostics.h"
#include "errors.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

// Points file descriptor `fd` at a temporary file until destroyed, then
// returns what was written there. C stdio, fmt and iostreams all land in it.
class CapturedFd {
 public:
  explicit CapturedFd(int fd) : fd_(fd) {
    std::fflush(nullptr);
    std::cout.flush();
    std::cerr.flush();
    file_ = std::tmpfile();
    if (file_ == nullptr) throw EtkitError("cannot create a temporary file to capture output");
    saved_ = ::dup(fd_);
    ::dup2(::fileno(file_), fd_);
  }
  std::string release() {
    std::fflush(nullptr);
    std::cout.flush();
    std::cerr.flush();
    ::dup2(saved_, fd_);
    ::close(saved_);
    saved_ = -1;
    std::string text;
    std::rewind(file_);
    char chunk[65536];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, file_)) > 0) text.append(chunk, n);
    std::fclose(file_);
    file_ = nullptr;
    return text;
  }
  ~CapturedFd() {
    if (saved_ >= 0) release();
  }

 private:
  int fd_;
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

int run_cli(const std::vector<std::string>& args) {
  CLI::App app{"etinspect"};
  app.require_subcommand(1);
  cli::CommandContext context;
  cli::register_commands(app, context);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    fmt::print(stderr, "etinspect: error: {}\n", error.what());
    return cli::kExitBadInput;
  } catch (const std::exception& error) {
    fmt::print(stderr, "etinspect: error: internal: {}\n", error.what());
    return cli::kExitInternal;
  }
  return context.exit_code;
}

py::tuple cli_call(const std::vector<std::string>& args) {
  int code = 0;
  std::string out, err;
  {
    CapturedFd captured_out(1), captured_err(2);
    code = run_cli(args);
    err = captured_err.release();
    out = captured_out.release();
  }
  return py::make_tuple(code, text(out), text(err));
}

}  // namespace

void register_cli(py::module_& m) {
  m.def("_cli", &cli_call, py::arg("args"),
        "Runs `etinspect ARGS...` in this process; returns (exit code, stdout, stderr).");
}

}  // namespace etkit::python
