// etinspect: one binary, one subcommand per job.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <cstdio>
#include <string>
#include <exception>
#include <new>

#include "child_process.h"
#include "commands.h"
#include "diagnostics.h"
#include "subcommand_lookup.h"

int main(int argc, char** argv) {
  CLI::App app{"etinspect: inspect, run, verify and profile ExecuTorch programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "etinspect " ETKIT_VERSION);
  etkit::cli::CommandContext context;
  etkit::cli::register_commands(app, context);
  if (const std::optional<int> handled = etkit::cli::handle_help_and_unknown(app, argc, argv)) return *handled;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    // A hidden option's errors come without its name (": <message>"): the
    // renamed options' messages name it themselves (option_checks.h).
    std::string what = error.what();
    if (what.rfind(": ", 0) == 0) what.erase(0, 2);
    fmt::print(stderr, "etinspect: error: {}\nRun 'etinspect --help' for usage.\n", what);
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
  // Ctrl-C during a device job: the job stopped and cleaned up; the shell's
  // convention for an interrupted command.
  if (etkit::cli::InterruptGuard::interrupted()) return 130;
  return context.exit_code;
}
