# The runtime's sources and schemas, shared by the host build
# (core/CMakeLists.txt) and the device runners' cross builds
# (device/CMakeLists.txt).
set(ETKIT_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/checked_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/extended_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/file_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/file_kind.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/flat_tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/input_snapshot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify_instructions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_verify_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/scalar_type.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/kernel_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/low_precision_staging.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method_instructions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/method_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tensor_access.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/tensor_copy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/value.cpp)
set(ETKIT_CORE_SCHEMAS
  ${CMAKE_CURRENT_LIST_DIR}/schema/scalar_type.fbs
  ${CMAKE_CURRENT_LIST_DIR}/schema/program.fbs
  ${CMAKE_CURRENT_LIST_DIR}/schema/flat_tensor.fbs)
