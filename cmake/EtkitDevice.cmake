# The device runners (device/): cross builds of core, bundled and etdump for
# a bare-metal Cortex-M55 and for aarch64, riscv64 and x86-64 Linux, each an external project
# with its toolchain file, built by the normal build when the cross
# toolchain is installed and copied beside etinspect, which finds them
# there at run time (and installs them with it).
include(ExternalProject)
include(GNUInstallDirs)

set(ETKIT_DEVICE_ARENA_BYTES 16777216 CACHE STRING
    "Cortex-M55 runner: bytes of the static arena for bundle, planned memory and trace")

# The runners build side by side, and beside the main build: each takes a
# quarter of the machine's cores, so that a 2-core CI machine runs a few
# compilers at a time instead of twenty (the default of nproc + 2 per build).
cmake_host_system_information(RESULT etkit_host_cores QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR etkit_device_jobs_default "(${etkit_host_cores} + 3) / 4")
set(ETKIT_DEVICE_BUILD_JOBS ${etkit_device_jobs_default} CACHE STRING
    "Parallel compile jobs of each device runner's build")

get_target_property(etkit_flatbuffers_include flatbuffers::flatbuffers INTERFACE_INCLUDE_DIRECTORIES)
list(GET etkit_flatbuffers_include 0 etkit_flatbuffers_include)

# etkit_device_runner(<target> <toolchain file> <compiler> <runner file name>)
function(etkit_device_runner target toolchain compiler runner)
  find_program(compiler_path ${compiler} NO_CACHE)
  if(NOT compiler_path)
    set(ETKIT_DEVICE_MISSING ${ETKIT_DEVICE_MISSING} "${target} (${compiler})" PARENT_SCOPE)
    return()
  endif()
  ExternalProject_Add(etkit_runner_${target}
    SOURCE_DIR ${CMAKE_SOURCE_DIR}/device
    BINARY_DIR ${CMAKE_BINARY_DIR}/device/${target}
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/device/toolchains/${toolchain}
      -DCMAKE_BUILD_TYPE=Release
      -DETKIT_DEVICE_TARGET=${target}
      -DETKIT_FLATC=${ETKIT_FLATC}
      -DETKIT_FLATBUFFERS_INCLUDE=${etkit_flatbuffers_include}
      -DETKIT_ARENA_BYTES=${ETKIT_DEVICE_ARENA_BYTES}
      -DETKIT_RUNNER_NAME=${runner}
    BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --parallel ${ETKIT_DEVICE_BUILD_JOBS}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ${CMAKE_COMMAND} -E copy <BINARY_DIR>/${runner} ${CMAKE_BINARY_DIR}/cli/${runner}
    BUILD_BYPRODUCTS ${CMAKE_BINARY_DIR}/cli/${runner})
  install(PROGRAMS ${CMAKE_BINARY_DIR}/cli/${runner} DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(ETKIT_DEVICE_RUNNERS ${ETKIT_DEVICE_RUNNERS} ${target} PARENT_SCOPE)
endfunction()

set(ETKIT_DEVICE_RUNNERS)
set(ETKIT_DEVICE_MISSING)
etkit_device_runner(cortex-m55 cortex-m55.cmake arm-none-eabi-g++ etkit-runner-cortex-m55.elf)
etkit_device_runner(aarch64 aarch64-linux.cmake aarch64-linux-gnu-g++ etkit-runner-aarch64)
etkit_device_runner(riscv64 riscv64-linux.cmake riscv64-linux-gnu-g++ etkit-runner-riscv64)
# The x86-64 Linux runner, for x86-64 machines reached over SSH (the host's
# own compiler: always built on an x86-64 host).
if(CMAKE_HOST_SYSTEM_PROCESSOR STREQUAL "x86_64")
  etkit_device_runner(x86_64 x86_64-linux.cmake g++ etkit-runner-x86_64)
endif()
if(ETKIT_DEVICE_MISSING)
  string(REPLACE ";" ", " missing "${ETKIT_DEVICE_MISSING}")
  message(STATUS "etkit device runners: not built for ${missing}: cross toolchain missing "
                 "(scripts/install-deps --device installs gcc-arm-none-eabi, g++-aarch64-linux-gnu, "
                 "g++-riscv64-linux-gnu and QEMU)")
endif()
