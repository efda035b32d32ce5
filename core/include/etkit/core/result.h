#pragma once
/// @file
/// Result<T>: a value or an Error. Move-only and [[nodiscard]] so failures
/// cannot be dropped silently.

#include <new>
#include <type_traits>
#include <utility>

#include "etkit/core/error.h"

namespace etkit {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T&& value) : has_value_(true) { new (&value_) T(std::move(value)); }
  Result(const T& value) : has_value_(true) { new (&value_) T(value); }
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Error>>>
  Result(U&& value) : has_value_(true) {
    new (&value_) T(std::forward<U>(value));
  }
  Result(const Error& error) : has_value_(false) { new (&error_) Error(error); }

  Result(Result&& other) noexcept : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(std::move(other.value_));
    } else {
      new (&error_) Error(other.error_);
    }
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&& other) noexcept {
    if (this == &other) return *this;
    if (has_value_ && other.has_value_) {
      value_ = std::move(other.value_);
    } else if (!has_value_ && !other.has_value_) {
      error_ = other.error_;
    } else if (has_value_) {  // value <- error
      value_.~T();
      new (&error_) Error(other.error_);
      has_value_ = false;
    } else {  // error <- value
      error_.~Error();
      new (&value_) T(std::move(other.value_));
      has_value_ = true;
    }
    return *this;
  }
  ~Result() {
    if (has_value_) {
      value_.~T();
    } else {
      error_.~Error();
    }
  }

  bool ok() const { return has_value_; }
  explicit operator bool() const { return has_value_; }

  /// The error; only valid when !ok() (checked in debug builds).
  const Error& error() const {
    check_error();
    return error_;
  }

  /// The value; only valid when ok() (checked in debug builds).
  T& value() & { return check_value(), value_; }
  const T& value() const& { return check_value(), value_; }
  T&& value() && { return check_value(), std::move(value_); }
  T* operator->() { return check_value(), &value_; }
  const T* operator->() const { return check_value(), &value_; }
  T& operator*() & { return check_value(), value_; }
  const T& operator*() const& { return check_value(), value_; }

 private:
  void check_value() const {
#ifndef NDEBUG
    if (!has_value_) detail::result_misuse("value of a failed Result", error_.message());
#endif
  }
  void check_error() const {
#ifndef NDEBUG
    if (has_value_) detail::result_misuse("error of a successful Result", "");
#endif
  }

  bool has_value_;
  union {
    T value_;
    Error error_;
  };
};

/// The value of an operation that yields nothing but success.
struct Ok {};

/// Outcome of an operation that yields no value: `return Ok{};` on success.
using Status = Result<Ok>;

}  // namespace etkit

#define ETKIT_CONCAT_INNER(a, b) a##b
#define ETKIT_CONCAT(a, b) ETKIT_CONCAT_INNER(a, b)

/// Returns the error of a Status or Result expression from the enclosing
/// function.
#define ETKIT_TRY(expr)                        \
  do {                                         \
    auto&& etkit_try_result_ = (expr);         \
    if (!etkit_try_result_.ok()) {             \
      return etkit_try_result_.error();        \
    }                                          \
  } while (0)

/// Declares `lhs` from a Result's value, or returns its error.
#define ETKIT_ASSIGN_OR_RETURN(lhs, expr) \
  ETKIT_ASSIGN_OR_RETURN_IMPL(ETKIT_CONCAT(etkit_result_, __LINE__), lhs, expr)
#define ETKIT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) {                                  \
    return tmp.error();                             \
  }                                                 \
  lhs = std::move(tmp).value()
