#pragma once
// The corpus bundle with one case's expected output altered: the gate's
// canonical failing input (the corpus README says such a copy must FAIL).

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli.h"

namespace etkit::test {

/// The bytes of upstream's add_mul_int.bpte whose first expected output
/// [2, 2, 2, 2] outside the embedded program (whose constant b holds the
/// same bytes) starts with 9 instead of 2. Inputs are all zeros.
inline std::vector<uint8_t> tampered_corpus_bundle() {
  const std::string bundle = corpus("upstream/bundled/add_mul_int.bpte");
  std::vector<uint8_t> bytes = read_file(bundle);
  const auto info = nlohmann::json::parse(etinspect({"info", "--json", bundle}).out);
  const size_t begin = info[0]["program"]["offset"], end = begin + size_t(info[0]["program"]["size"]);
  const uint8_t pattern[16] = {2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  for (auto at = bytes.begin();; ++at) {
    at = std::search(at, bytes.end(), pattern, pattern + 16);
    if (at == bytes.end()) {
      ADD_FAILURE() << "no expected output [2, 2, 2, 2] outside the program";
      return bytes;
    }
    const size_t offset = size_t(at - bytes.begin());
    if (offset < begin || offset >= end) {
      *at = 9;
      return bytes;
    }
  }
}

}  // namespace etkit::test
