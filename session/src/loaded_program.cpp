#include "etkit/session/loaded_program.h"

#include <mutex>
#include <set>

#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/kernels/all_kernels.h"

#include <cstdio>

#include <unistd.h>

#ifdef ETKIT_HAS_XNNPACK
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#endif

namespace etkit::session {

Result<std::unique_ptr<LoadedProgram>> load_program(const std::string& path,
                                                    const std::vector<std::string>& data) {
  auto loaded = std::make_unique<LoadedProgram>();
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  const FileKind kind = detect_file_kind(file->bytes());
  if (kind == FileKind::kBundledProgram) {
    ETKIT_ASSIGN_OR_RETURN(auto bundle, bundled::BundledProgram::load(file, path));
    loaded->bundle.emplace(std::move(bundle));
    ETKIT_ASSIGN_OR_RETURN(auto program, loaded->bundle->load_program());
    loaded->program.emplace(std::move(program));
  } else if (kind == FileKind::kProgram) {
    const ByteSpan bytes = file->bytes();
    ETKIT_ASSIGN_OR_RETURN(auto program, Program::load(file, bytes, path));
    loaded->program.emplace(std::move(program));
  } else {
    return Error::make(ErrorCode::kInvalidArgument,
                       "%s: not a program or bundled program (it is %s)", path.c_str(),
                       kind == FileKind::kUnknown ? "unrecognised" : to_string(kind));
  }
  // Reserve first: MethodOptions keeps pointers into the vector.
  loaded->data_files.reserve(data.size());
  for (const std::string& data_path : data) {
    ETKIT_ASSIGN_OR_RETURN(auto flat, FlatTensor::load_file(data_path));
    loaded->data_files.push_back(std::move(flat));
  }
  return loaded;
}

Result<std::unique_ptr<LoadedProgram>> load_bundle(const std::string& path, const std::vector<std::string>& data) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<LoadedProgram> loaded, load_program(path, data));
  if (!loaded->bundle) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: not a bundled program (.bpte)", path.c_str());
  }
  return loaded;
}

namespace {

std::mutex notes_mutex;
BackendNotes notes_sink;           // guarded by notes_mutex
std::set<std::string> notes_said;  // guarded by notes_mutex

// Each distinct line once per process: a program with many delegate calls
// (one per linear) or loaded twice (metadata, untraced copies) says it once.
[[maybe_unused]] void note_once(const std::string& line) {
  std::lock_guard<std::mutex> lock(notes_mutex);
  if (!notes_said.insert(line).second) return;
  if (notes_sink) notes_sink(line);
  else std::fprintf(stderr, "etinspect: %s\n", line.c_str());
}

}  // namespace

void set_backend_notes(BackendNotes sink) {
  std::lock_guard<std::mutex> lock(notes_mutex);
  notes_sink = std::move(sink);
}

MethodOptions method_options_for(LoadedProgram& loaded, int threads) {
  MethodOptions options;
  options.kernels = &all_kernels();
  // Planned arenas beyond the machine's memory are a corrupted file.
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) options.available_memory = size_t(pages) * size_t(page_size);
  if (!loaded.threads) loaded.threads = std::make_unique<RuntimeThreads>(threads);
  options.parallel = loaded.threads->runner();
#ifdef ETKIT_HAS_XNNPACK
  if (!loaded.xnnpack) {
    xnnpack::XnnpackOptions xnn_options;
    xnn_options.threads = threads;
    xnn_options.threadpool = loaded.threads->pool();  // one pool for the kernels and the delegate
    xnn_options.log = &note_once;
    loaded.xnnpack = std::make_unique<xnnpack::XnnpackBackend>(xnn_options);
    loaded.backends.add(xnnpack::kXnnpackBackendId, loaded.xnnpack.get());
  }
#endif
  options.backends = &loaded.backends;
  for (const FlatTensor& file : loaded.data_files) {
    options.data_files.push_back(&file);
  }
  return options;
}

}  // namespace etkit::session
