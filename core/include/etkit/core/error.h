#pragma once
/// @file
/// Errors as values. Core is built without exceptions so it can run on
/// devices; every fallible call returns an Error or a Result<T>.

#include <cstddef>
#include <cstdint>

namespace etkit {

/// What kind of failure happened. Grouped by who has to act: the caller
/// (bad arguments), the file's author (malformed input), the build (missing
/// kernels or backends), or the system (I/O, memory).
enum class ErrorCode : uint8_t {
  // The caller's fault.
  kInvalidArgument = 1,
  kNotFound,          ///< A named thing (method, key, entry) does not exist.
  kOutOfRange,        ///< An index or size past what is allowed.
  // The input's fault.
  kMalformed,         ///< Bytes that do not form a valid file of the kind.
  kTruncated,         ///< A file shorter than its own headers say.
  kUnsupported,       ///< Valid input using a feature etkit lacks.
  // The build's fault.
  kMissingKernel,
  kMissingBackend,
  // The system's fault.
  kIo,
  kOutOfMemory,
  kInternal,
};

/// Stable lowercase name of a code, e.g. "malformed".
const char* to_string(ErrorCode code);

/// An error code plus a message naming the context (file, method,
/// instruction, offset). The message lives inline so creating an error never
/// allocates; long messages are truncated.
class Error {
 public:
  /// Message bytes (with the terminator). Every Result carries an Error
  /// inline; a success only writes its flag, so the size costs nothing on
  /// the execute path. 255 was tried and is too small: messages name the
  /// file, method and instruction and list what is missing (seven
  /// cortex_m kernels take 280 bytes).
  static constexpr size_t kMaxMessage = 384;

  /// printf-style constructor.
  [[gnu::format(printf, 2, 3)]] static Error make(ErrorCode code,
                                                   const char* format, ...);

  ErrorCode code() const { return code_; }
  const char* message() const { return message_; }

  /// Returns this error with "`context`: " in front of the message, so that
  /// outer layers can add where the failure happened.
  [[gnu::format(printf, 2, 3)]] Error with_context(const char* format,
                                                    ...) const;

 private:
  Error() = default;
  ErrorCode code_ = ErrorCode::kInternal;
  char message_[kMaxMessage] = {};
};

static_assert(sizeof(Error) <= 400, "Error is carried inline by every Result");

namespace detail {
/// Reports a programming error (a Result's value read when it holds an
/// error, or the reverse) and aborts. Only debug builds check; never
/// reached from bytes read from a file.
[[noreturn]] void result_misuse(const char* what, const char* message);
}  // namespace detail

}  // namespace etkit
