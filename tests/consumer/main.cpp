// Reads an upstream trace through the installed etkit::inspector and
// prints its event blocks: proof that the package links and works.

#include <cstdio>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/event_blocks.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: etkit_consumer TRACE.etdp\n");
    return 2;
  }
  auto trace = etkit::etdump::ETDump::load_file(argv[1]);
  if (!trace.ok()) {
    std::fprintf(stderr, "%s\n", trace.error().message());
    return 1;
  }
  auto blocks = etkit::inspector::event_blocks(*trace);
  if (!blocks.ok()) {
    std::fprintf(stderr, "%s\n", blocks.error().message());
    return 1;
  }
  for (const auto& block : *blocks) std::printf("%s %zu\n", block.name.c_str(), block.events.size());
  return 0;
}
