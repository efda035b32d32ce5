// etinspect: one binary, one subcommand per job.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "diagnostics.h"

int main(int argc, char** argv) {
  CLI::App app{"etinspect: inspect, run, verify and profile ExecuTorch programs"};
  app.require_subcommand(1);
  etkit::cli::CommandContext context;
  etkit::cli::register_info(app, context);
  etkit::cli::register_run(app, context);
  etkit::cli::register_verify(app, context);
  etkit::cli::register_bundle(app, context);
  etkit::cli::register_table(app, context);
  etkit::cli::register_trace(app, context);
  etkit::cli::register_diff(app, context);
  etkit::cli::register_modules(app, context);
  etkit::cli::register_gap(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    std::fprintf(stderr, "etinspect: error: %s\n", error.what());
    std::fprintf(stderr, "Run 'etinspect --help' for usage.\n");
    return etkit::cli::kExitBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "etinspect: error: internal: %s\n", error.what());
    return etkit::cli::kExitInternal;
  }
  return context.exit_code;
}
