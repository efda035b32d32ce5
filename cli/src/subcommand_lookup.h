#pragma once
// What `etinspect` does with a first word that is not a subcommand:
// `help [SUBCOMMAND]` prints that subcommand's help, and a typo ("verfy")
// is refused naming the nearest subcommand instead of CLI11's "A
// subcommand is required".

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace etkit::cli {

/// The name of `names` nearest to `typed` (edit distance at most 2, or
/// `typed` a prefix of exactly one name); nullopt when none is near.
std::optional<std::string> nearest_name(const std::string& typed, const std::vector<std::string>& names);

/// Handles `help`, `help SUBCOMMAND` and an unknown first word before
/// parsing: prints and returns the exit code, or nullopt to parse as usual.
std::optional<int> handle_help_and_unknown(CLI::App& app, int argc, char** argv);

}  // namespace etkit::cli
