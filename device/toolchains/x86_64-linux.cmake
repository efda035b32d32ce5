# x86-64 Linux with the host's own g++: the runner a Linux machine reached
# over SSH runs (`--device ssh://host` on an x86-64 target), linked
# statically so it needs nothing installed there.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
