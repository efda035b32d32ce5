# Shared by the host build and the device runners' cross builds.
set(ETKIT_BUNDLED_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/bundled_program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bundled_inputs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/device_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/bundled_writer.cpp)
set(ETKIT_BUNDLED_SCHEMAS ${CMAKE_CURRENT_LIST_DIR}/schema/bundled_program.fbs)
