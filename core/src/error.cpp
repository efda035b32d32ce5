#include "etkit/core/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace etkit {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kOutOfRange: return "out_of_range";
    case ErrorCode::kMalformed: return "malformed";
    case ErrorCode::kTruncated: return "truncated";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kMissingKernel: return "missing_kernel";
    case ErrorCode::kMissingBackend: return "missing_backend";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kOutOfMemory: return "out_of_memory";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

Error Error::make(ErrorCode code, const char* format, ...) {
  Error error;
  error.code_ = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(error.message_, kMaxMessage, format, args);
  va_end(args);
  return error;
}

Error Error::with_context(const char* format, ...) const {
  Error error;
  error.code_ = code_;
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(error.message_, kMaxMessage, format, args);
  va_end(args);
  if (written < 0) {
    written = 0;
  }
  // Append ": <old message>", truncating to the inline buffer.
  size_t used = static_cast<size_t>(written) < kMaxMessage - 1
                    ? static_cast<size_t>(written)
                    : kMaxMessage - 1;
  const char* parts[] = {": ", message_};
  for (const char* part : parts) {
    for (size_t i = 0; part[i] != '\0' && used + 1 < kMaxMessage; ++i) {
      error.message_[used++] = part[i];
    }
  }
  error.message_[used] = '\0';
  return error;
}

namespace detail {
void result_misuse(const char* what, const char* message) {
  std::fprintf(stderr, "etkit: %s%s%s\n", what, message[0] ? ": " : "", message);
  std::abort();
}
}  // namespace detail

}  // namespace etkit
