#pragma once
// A program as the front ends (etinspect, the Python module) load it: a
// .pte or the program inside a .bpte, its external data files, and etkit's
// delegate backends, with the method options that point at them.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etkit/bundled/bundled_program.h"
#include "etkit/core/backend.h"
#include "etkit/core/flat_tensor.h"
#include "etkit/core/method.h"
#include "etkit/core/program.h"
#include "etkit/session/runtime_threads.h"

namespace etkit::session {

struct LoadedProgram {
  std::optional<bundled::BundledProgram> bundle;  ///< Set for .bpte input.
  std::optional<Program> program;
  std::vector<FlatTensor> data_files;
  /// The runtime's worker threads, shared by the portable kernels and
  /// XNNPACK; made by the first method_options_for (declared before the
  /// backend, which runs on them, so it goes after it).
  std::unique_ptr<RuntimeThreads> threads;
  /// etkit's delegate backends (XNNPACK when built), made on first use.
  std::unique_ptr<Backend> xnnpack;
  BackendRegistry backends;
};

/// Loads `path` (program or bundled program) and each .ptd in `data`.
Result<std::unique_ptr<LoadedProgram>> load_program(const std::string& path,
                                                    const std::vector<std::string>& data);

/// The same for a bundled program only: anything else is refused, naming
/// the file (verify's input, on the host or a device).
Result<std::unique_ptr<LoadedProgram>> load_bundle(const std::string& path, const std::vector<std::string>& data);

/// Method options pointing at the loaded data files and at etkit's
/// backends, with `threads` worker threads for the kernels and XNNPACK (0:
/// the machine's cores; 1: the calling thread only; the first call makes
/// the pool and the backend, later calls share them). Results are the same
/// for every thread count. Each XNNPACK delegate says, once per
/// process, how its nodes run: to the backend notes sink.
MethodOptions method_options_for(LoadedProgram& loaded, int threads = 1);

/// Where backends' load-time notes go, for the whole process: each distinct
/// line once. Empty (the default): stderr as "etinspect: LINE". The Python
/// module collects them and hands them to `warnings`.
using BackendNotes = std::function<void(const std::string& line)>;
void set_backend_notes(BackendNotes sink);

}  // namespace etkit::session
