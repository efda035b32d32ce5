// make_graph_program OUT.pte [OPS]: a program of OPS (default 1000) small
// float ops with skip connections — each op reads the previous result and
// one a few ops back — for the GUI graph view's layout and frame benchmark
// (`etinspect-gui OUT.pte --view graph --bench-frames N`).

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "support/program_builder.h"

int main(int argc, char** argv) {
  const int ops = argc > 2 ? std::atoi(argv[2]) : 1000;
  if (argc < 2 || ops < 2 || ops > 100000) {
    std::fprintf(stderr, "usage: %s OUT.pte [OPS, 2..100000]\n", argv[0]);
    return 2;
  }
  etkit::test::ProgramBuilder b;
  constexpr int64_t kBytes = 16 * 4;  // float32[16] each
  std::vector<int32_t> values = {b.tensor({16}, 0)};
  const int32_t one = b.integer(1);
  for (int i = 1; i <= ops; ++i) {
    const int32_t out = b.tensor({16}, int64_t(i) * kBytes);
    const int32_t previous = values.back();
    const int32_t skip = values[size_t(std::max(0, int(values.size()) - 1 - (1 + i % 5)))];
    switch (i % 3) {
      case 0: b.kernel_call("aten::add", "out", {previous, skip, one, out, out}); break;
      case 1: b.kernel_call("aten::mul", "out", {previous, skip, out, out}); break;
      default: b.kernel_call("aten::relu", "out", {previous, out, out}); break;
    }
    values.push_back(out);
  }
  b.arena(int64_t(ops + 1) * kBytes);
  b.inputs({values.front()});
  b.outputs({values.back()});
  const std::vector<uint8_t> bytes = b.build();
  std::ofstream file(argv[1], std::ios::binary);
  file.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!file) {
    std::fprintf(stderr, "make_graph_program: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("%s: %d ops\n", argv[1], ops);
  return 0;
}
