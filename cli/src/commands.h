#pragma once
// Every subcommand registers itself on the CLI11 app with one function; its
// callback stores the exit code in `exit_code`.

namespace CLI {
class App;
}

namespace etkit::cli {

struct CommandContext {
  int exit_code = 0;
};

void register_info(CLI::App& app, CommandContext& context);
void register_run(CLI::App& app, CommandContext& context);
void register_verify(CLI::App& app, CommandContext& context);
void register_bundle(CLI::App& app, CommandContext& context);
void register_table(CLI::App& app, CommandContext& context);
void register_trace(CLI::App& app, CommandContext& context);
void register_diff(CLI::App& app, CommandContext& context);
void register_modules(CLI::App& app, CommandContext& context);
void register_gap(CLI::App& app, CommandContext& context);
void register_memory(CLI::App& app, CommandContext& context);
void register_generate(CLI::App& app, CommandContext& context);
void register_steps(CLI::App& app, CommandContext& context);
void register_size(CLI::App& app, CommandContext& context);
void register_diff_program(CLI::App& app, CommandContext& context);

/// Every subcommand above, in the order `etinspect --help` lists them (the
/// CLI's main and the Python module's in-process runner share it).
void register_commands(CLI::App& app, CommandContext& context);

}  // namespace etkit::cli
