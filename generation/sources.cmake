# Token generation's sources, shared by the host build
# (generation/CMakeLists.txt) and the device runners' cross builds.
set(ETKIT_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/src/token_generation.cpp)
