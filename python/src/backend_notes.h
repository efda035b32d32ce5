#pragma once
// Backends' load-time notes (how an XNNPACK delegate's nodes run) as
// Python warnings instead of lines on stderr: collected while a method
// loads, warned once it has.

namespace etkit::python {

/// Makes the session library hand its notes to this module (at import).
void collect_backend_notes();
/// Issues the notes collected so far through `warnings.warn` (GIL held).
void warn_backend_notes();

}  // namespace etkit::python
