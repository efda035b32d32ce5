#include "diagnostics.h"
#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace etkit::cli {

bool use_colour(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour != nullptr && no_colour[0] != '\0') {
    return false;
  }
  return ::isatty(fd) != 0;
}

Diagnostics::Diagnostics() : colour_(use_colour(STDERR_FILENO)) {}

Diagnostics::Diagnostics(std::string* held) : colour_(use_colour(STDERR_FILENO)), held_(held) {}

void Diagnostics::emit(const char* level, const char* colour,
                       const std::string& message) {
  // One line per diagnostic: newlines from file contents would break that.
  std::string flat = message;
  for (char& c : flat) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  const std::string line = colour_ ? fmt::format("etinspect: \033[1;{}m{}:\033[0m {}\n", colour, level, flat)
                                   : fmt::format("etinspect: {}: {}\n", level, flat);
  if (held_ != nullptr) *held_ += line;
  else fmt::print(stderr, "{}", line);
}

void Diagnostics::error(const std::string& message) {
  ++errors_;
  emit("error", "31", message);
}

int Diagnostics::fail(const Error& error) {
  const bool internal = error.code() == ErrorCode::kInternal || error.code() == ErrorCode::kOutOfMemory;
  this->error(internal ? std::string("internal: ") + error.message() : std::string(error.message()));
  return internal ? kExitInternal : kExitBadInput;
}

int Diagnostics::check_failed(const std::string& what) {
  ++errors_;
  emit("check failed", "31", what);
  return kExitCheckFailed;
}

void Diagnostics::warning(const std::string& message) {
  if (repeated_warnings_[message]++ == 0) {
    emit("warning", "35", message);
  }
}

void Diagnostics::flush() {
  for (const auto& [message, count] : repeated_warnings_) {
    if (count > 1) {
      emit("warning", "35",
           message + " (repeated " + std::to_string(count - 1) + " more times)");
    }
  }
  repeated_warnings_.clear();
}

}  // namespace etkit::cli
