#pragma once
// etkit's errors as one Python exception type, etkit.Error, carrying the
// message the CLI prints (file, method, op or offset included).

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>
#include <utility>

#include "etkit/core/result.h"

namespace etkit::python {

/// Thrown by the binding; pybind11 turns it into etkit.Error.
struct EtkitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An argument value a method cannot take (the number of inputs, an
/// input's dtype or shape): etkit.InputError, both an etkit.Error and a
/// ValueError, so `except ValueError` catches it as Python code expects.
struct InputError : EtkitError {
  using EtkitError::EtkitError;
};

/// Registers etkit.Error (a subclass of RuntimeError) and etkit.InputError.
void register_errors(pybind11::module_& m);

/// Text from files as a Python str: bytes that are not UTF-8 (a corrupt
/// name) become U+FFFD instead of raising UnicodeDecodeError.
pybind11::str text(std::string_view bytes);
pybind11::list text_list(const std::vector<std::string>& items);

inline void check(const Status& status) {
  if (!status.ok()) throw EtkitError(status.error().message());
}

template <typename T>
T unwrap(Result<T>&& result) {
  if (!result.ok()) throw EtkitError(result.error().message());
  return std::move(*result);
}

}  // namespace etkit::python
