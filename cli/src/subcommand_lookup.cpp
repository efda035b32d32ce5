#include "subcommand_lookup.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "diagnostics.h"

namespace etkit::cli {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

int unknown_subcommand(const std::string& typed, const std::vector<std::string>& names) {
  const std::optional<std::string> near = nearest_name(typed, names);
  std::string message = fmt::format("'{}' is not a subcommand", typed);
  if (near) message += fmt::format("; did you mean '{}'?", *near);
  fmt::print(stderr, "etinspect: error: {}\nRun 'etinspect --help' for the subcommands.\n", message);
  return kExitBadInput;
}

}  // namespace

std::optional<std::string> nearest_name(const std::string& typed, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_distance = 3;  // at most 2 edits
  for (const std::string& name : names) {
    const size_t distance = edit_distance(typed, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  if (best || typed.empty()) return best;
  std::vector<std::string> prefixed;
  for (const std::string& name : names) {
    if (name.compare(0, typed.size(), typed) == 0) prefixed.push_back(name);
  }
  if (prefixed.size() == 1) return prefixed[0];
  return std::nullopt;
}

std::optional<int> handle_help_and_unknown(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string first = argv[1];
  const std::vector<std::string> names = subcommand_names(app);
  if (std::find(names.begin(), names.end(), first) != names.end()) return std::nullopt;
  if (first == "help") {
    if (argc == 2) {
      std::cout << app.help();
      return kExitOk;
    }
    const std::string wanted = argv[2];
    if (std::find(names.begin(), names.end(), wanted) == names.end()) return unknown_subcommand(wanted, names);
    std::cout << app.get_subcommand(wanted)->help();
    return kExitOk;
  }
  return unknown_subcommand(first, names);
}

}  // namespace etkit::cli
