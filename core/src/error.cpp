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

namespace {

// newlib (the bare-metal C library) prints "%zu" literally. size_t is
// unsigned long's width there, so the format is rewritten to "%lu": the
// same messages on a board as on the host. Elsewhere the format is used
// as it is.
#if defined(_NEWLIB_VERSION)
struct PortableFormat {
  char text[512];
  const char* format;
  explicit PortableFormat(const char* f) : format(f) {
    bool in_spec = false;
    size_t n = 0;
    for (const char* p = f; *p != '\0'; ++p, ++n) {
      if (n + 1 >= sizeof(text)) return;  // too long to rewrite: used as it is
      char c = *p;
      if (!in_spec) {
        in_spec = c == '%';
      } else if (c == 'z') {
        c = 'l';
      } else if (std::strchr("diouxXeEfFgGaAcspn%", c) != nullptr) {
        in_spec = false;
      }
      text[n] = c;
    }
    text[n] = '\0';
    format = text;
  }
  const char* get() const { return format; }
};
#else
struct PortableFormat {
  const char* format;
  explicit PortableFormat(const char* f) : format(f) {}
  const char* get() const { return format; }
};
#endif

}  // namespace

Error Error::make(ErrorCode code, const char* format, ...) {
  Error error;
  error.code_ = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(error.message_, kMaxMessage, PortableFormat(format).get(), args);
  va_end(args);
  return error;
}

Error Error::with_context(const char* format, ...) const {
  Error error;
  error.code_ = code_;
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(error.message_, kMaxMessage, PortableFormat(format).get(), args);
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
