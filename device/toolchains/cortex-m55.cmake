# Bare-metal Cortex-M55 with Debian's gcc-arm-none-eabi and newlib.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# No MVE float vectors: MVE flushes denormals, which would make the board
# compute different float bits from the host.
set(ETKIT_DEVICE_CPU_FLAGS "-mcpu=cortex-m55+nomve.fp -mthumb -mfloat-abi=hard")
set(CMAKE_C_FLAGS_INIT "${ETKIT_DEVICE_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${ETKIT_DEVICE_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${ETKIT_DEVICE_CPU_FLAGS} --specs=rdimon.specs -nostartfiles")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
