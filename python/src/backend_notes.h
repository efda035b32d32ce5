#pragma once
// Backends' load-time notes (how an XNNPACK delegate's nodes run) as records
// of Python's `etkit` logger instead of lines on stderr: collected while a
// method loads, logged once it has. They say how the program runs, not
// that the caller did something wrong, so they are log records at INFO
// (silent unless the application configures logging), not warnings.

namespace etkit::python {

/// Makes the session library hand its notes to this module (at import).
void collect_backend_notes();
/// Logs the notes collected so far to `logging.getLogger("etkit")` at INFO
/// (GIL held).
void log_backend_notes();

}  // namespace etkit::python
