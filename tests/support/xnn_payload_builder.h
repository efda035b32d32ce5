#pragma once
// Builds XNNPACK delegate payloads in upstream's layout (an XH00 header,
// the XNNGraph flatbuffer written by flatc from JSON, 16-byte aligned
// constants) for tests and benchmarks that need graphs the corpus lacks.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::test {

constexpr unsigned kNoExternal = 0xFFFFFFFFu;

struct PayloadBuilder {
  nlohmann::json values = nlohmann::json::array();
  nlohmann::json nodes = nlohmann::json::array();
  nlohmann::json offsets = nlohmann::json::array({nlohmann::json::object()});
  std::vector<uint8_t> data;
  std::vector<int> inputs, outputs;

  /// A constant (its index in constant_data).
  int constant(const void* bytes, size_t size);
  /// A value; flags 1 = external input, 2 = external output; `quant` and
  /// `quant_type` make it a QuantizedTensorValue.
  int value(const char* datatype, std::vector<int64_t> dims, int constant_index = 0, int flags = 0,
            const nlohmann::json& quant = nullptr, const char* quant_type = nullptr);
  int per_tensor(const char* datatype, std::vector<int64_t> dims, float scale, int zero_point, int flags = 0,
                 int constant_index = 0);
  int per_channel(const char* datatype, std::vector<int64_t> dims, const std::vector<float>& scales,
                  int constant_index, int channel_dim = 0);
  void node(const char* type, int debug_handle, nlohmann::json params);
  void convert(int in, int out, int handle);
  /// bias < 0: none.
  void fully_connected(int in, int filter, int bias, int out, int handle);
  /// The payload bytes.
  std::vector<uint8_t> finish() const;
};

}  // namespace etkit::test
