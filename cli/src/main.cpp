// etinspect: one binary, one subcommand per job.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cstdio>
#include <exception>
#include <new>

#include "commands.h"
#include "diagnostics.h"

int main(int argc, char** argv) {
  CLI::App app{"etinspect: inspect, run, verify and profile ExecuTorch programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "etinspect " ETKIT_VERSION);
  etkit::cli::CommandContext context;
  etkit::cli::register_commands(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    fmt::print(stderr, "etinspect: error: {}\nRun 'etinspect --help' for usage.\n", error.what());
    return etkit::cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    // Host-side code (JSON, tables) throws only on exhaustion or a bug: both
    // are internal errors, reported like every other error.
    etkit::cli::Diagnostics diagnostics;
    return diagnostics.fail(etkit::Error::make(etkit::ErrorCode::kOutOfMemory, "out of memory"));
  } catch (const std::exception& error) {
    etkit::cli::Diagnostics diagnostics;
    return diagnostics.fail(etkit::Error::make(etkit::ErrorCode::kInternal, "%s", error.what()));
  }
  return context.exit_code;
}
