# Source lists of the XNNPACK delegate, shared by the host build
# (delegates/xnnpack/CMakeLists.txt) and the aarch64 device runner's cross
# build (device/CMakeLists.txt).
set(ETKIT_XNNPACK_DIR ${CMAKE_CURRENT_LIST_DIR})
set(ETKIT_XNNPACK_SCHEMAS ${ETKIT_XNNPACK_DIR}/schema/xnnpack_graph.fbs)
# The payload reader: needs no XNNPACK library.
set(ETKIT_XNNPACK_GRAPH_SOURCES
  ${ETKIT_XNNPACK_DIR}/src/node_names.cpp
  ${ETKIT_XNNPACK_DIR}/src/node_params.cpp
  ${ETKIT_XNNPACK_DIR}/src/payload_header.cpp
  ${ETKIT_XNNPACK_DIR}/src/quant_params_reader.cpp
  ${ETKIT_XNNPACK_DIR}/src/shape_checks.cpp
  ${ETKIT_XNNPACK_DIR}/src/xnn_graph_reader.cpp
  ${ETKIT_XNNPACK_DIR}/src/xnn_support.cpp)
# The backend on Debian's XNNPACK.
set(ETKIT_XNNPACK_BACKEND_SOURCES
  ${ETKIT_XNNPACK_DIR}/src/dynamic_quant_nodes.cpp
  ${ETKIT_XNNPACK_DIR}/src/execution_plan.cpp
  ${ETKIT_XNNPACK_DIR}/src/portable_nodes.cpp
  ${ETKIT_XNNPACK_DIR}/src/subgraph_builder.cpp
  ${ETKIT_XNNPACK_DIR}/src/subgraph_nodes.cpp
  ${ETKIT_XNNPACK_DIR}/src/xnnpack_backend.cpp)
