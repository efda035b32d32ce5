# Shared by the host build and the device runners' cross builds.
set(ETKIT_ETDUMP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_gen.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/etdump_serialize.cpp)
set(ETKIT_ETDUMP_SCHEMAS ${CMAKE_CURRENT_LIST_DIR}/schema/etdump.fbs)
