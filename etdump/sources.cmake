# Shared by the host build and the device runners' cross builds.
set(ETKIT_ETDUMP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/trace_verification.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_gen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_serialize.cpp)
# How the reader spreads a trace's blocks: on threads on the host, in
# order on a device (no threads there).
set(ETKIT_ETDUMP_HOST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/block_ranges_threaded.cpp)
set(ETKIT_ETDUMP_DEVICE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/block_ranges_serial.cpp)
set(ETKIT_ETDUMP_SCHEMAS ${CMAKE_CURRENT_LIST_DIR}/schema/etdump.fbs)
