#include "option_checks.h"

#include <fmt/format.h>

#include "etkit/inspector/event_blocks.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <cstdio>

namespace etkit::cli {
namespace {

// The value quoted for messages, shortened when it is long.
std::string quote_value(const std::string& value) {
  return "'" + (value.size() > 40 ? value.substr(0, 40) + "…" : value) + "'";
}

}  // namespace

CLI::Validator whole_number(int64_t min, int64_t max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& value) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long parsed = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || end == value.c_str() || *end != '\0') {
          return quote_value(value) + " is not a whole number (allowed: " + range + ")";
        }
        if (errno == ERANGE || parsed < min || parsed > max) {
          return quote_value(value) + " is out of range (allowed: " + range + ")";
        }
        return {};
      },
      "INT in [" + range + "]");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double parsed = std::strtod(value.c_str(), &end);
        if (value.empty() || end == value.c_str() || *end != '\0') {
          return quote_value(value) + " is not a number (allowed: a finite number >= 0)";
        }
        if (!std::isfinite(parsed) || parsed < 0) {
          return quote_value(value) + " is not allowed (allowed: a finite number >= 0)";
        }
        return {};
      },
      "NUMBER >= 0");
}

CLI::Validator number_in(double min, double max) {
  const std::string allowed = fmt::format("a number from {:g} to {:g}", min, max);
  return CLI::Validator(
      [min, max, allowed](std::string& value) -> std::string {
        char* end = nullptr;
        const double parsed = std::strtod(value.c_str(), &end);
        if (value.empty() || end == value.c_str() || *end != '\0') {
          return quote_value(value) + " is not a number (allowed: " + allowed + ")";
        }
        if (!std::isfinite(parsed) || parsed < min || parsed > max) {
          return quote_value(value) + " is not allowed (allowed: " + allowed + ")";
        }
        return {};
      },
      fmt::format("NUMBER in [{:g}, {:g}]", min, max));
}

void add_renamed_option(CLI::App& command, const std::string& old_name, const std::string& new_name,
                        const std::string& why) {
  const std::string message = fmt::format("{} {} is now {} ({})", command.get_name(), old_name, new_name, why);
  command.add_option(old_name)->group("")->expected(1)->check(
      CLI::Validator([message](std::string&) { return message; }, "", old_name));
}

CLI::Validator writable_path() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        namespace fs = std::filesystem;
        if (value.empty()) return "an empty path";
        std::error_code ignored;
        if (fs::is_directory(value, ignored)) return quote_value(value) + " is a directory, not a file";
        fs::path folder = fs::path(value).parent_path();
        if (folder.empty()) folder = ".";
        if (!fs::is_directory(folder, ignored)) {
          return "cannot write " + quote_value(value) + ": folder " + quote_value(folder.string()) + " does not exist";
        }
        // Opening for append is the one reliable test (permissions, read-only
        // or special file systems); a file made only to test is removed.
        const bool existed = fs::exists(value, ignored);
        std::FILE* file = std::fopen(value.c_str(), "ab");
        if (file == nullptr) return "cannot write " + quote_value(value) + ": " + std::strerror(errno);
        std::fclose(file);
        if (!existed) fs::remove(value, ignored);
        return {};
      },
      "FILE");
}

Error unknown_name(const std::string& option, const std::string& value, const std::string& what,
                   const std::vector<std::string>& existing) {
  std::string list;
  for (const std::string& name : existing) list += (list.empty() ? "" : ", ") + name;
  return Error::make(ErrorCode::kInvalidArgument, "%s %s: no %s of that name (there %s: %s)", option.c_str(),
                     quote_value(value).c_str(), what.c_str(), existing.size() == 1 ? "is" : "are",
                     list.empty() ? "none" : list.c_str());
}

Error index_out_of_range(const std::string& option, int64_t value, const std::string& what, size_t count) {
  if (count == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s %lld: there is no %s", option.c_str(), (long long)value,
                       what.c_str());
  }
  return Error::make(ErrorCode::kInvalidArgument, "%s %lld: there are %zu %ss (allowed: 0 to %zu)",
                     option.c_str(), (long long)value, count, what.c_str(), count - 1);
}

void add_threads_option(CLI::App& command, int& threads) {
  command.add_option("--threads", threads,
                     "Threads for the kernels and XNNPACK delegates (default 0: every core; 1: one thread; the "
                     "results are the same for any count)")
      ->check(whole_number(0, 1024));
}

void add_phase_option(CLI::App& command, std::shared_ptr<std::string> block, CLI::Option* block_option) {
  command
      .add_option_function<std::string>(
          "--phase",
          [block](const std::string& phase) {
            *block = phase == "prefill" ? inspector::kPrefillBlockName : inspector::kDecodeBlockName;
          },
          "Only the prefill or the decode steps of a generate trace (blocks Prefill / Decode)")
      ->check(CLI::IsMember({"prefill", "decode"}))
      ->excludes(block_option);
}

}  // namespace etkit::cli
