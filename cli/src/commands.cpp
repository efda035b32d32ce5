#include "commands.h"

namespace etkit::cli {

void register_commands(CLI::App& app, CommandContext& context) {
  register_info(app, context);
  register_run(app, context);
  register_verify(app, context);
  register_bundle(app, context);
  register_table(app, context);
  register_trace(app, context);
  register_diff(app, context);
  register_modules(app, context);
  register_gap(app, context);
  register_memory(app, context);
  register_generate(app, context);
  register_steps(app, context);
  register_size(app, context);
  register_diff_program(app, context);
}

}  // namespace etkit::cli
