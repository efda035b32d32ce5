#include "device_backends.h"

#include <cstdio>

#ifdef ETKIT_HAS_XNNPACK
#include "etkit/delegates/xnnpack/xnnpack_backend.h"
#endif

namespace etkit::device {

const BackendRegistry& device_backends() {
  static BackendRegistry registry;
  static bool made = false;  // the runner is single-threaded
  if (!made) {
#ifdef ETKIT_HAS_XNNPACK
    xnnpack::XnnpackOptions options;
    options.threads = 1;  // one core, as the host's default
    options.log = [](const std::string& line) { std::fprintf(stderr, "etkit-runner: %s\n", line.c_str()); };
    static xnnpack::XnnpackBackend backend(options);
    if (backend.is_available()) registry.add(xnnpack::kXnnpackBackendId, &backend);
#endif
    made = true;
  }
  return registry;
}

}  // namespace etkit::device
