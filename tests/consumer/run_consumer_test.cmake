# ctest driver: installs the build tree into a fresh prefix, builds the
# consumer project against it and runs it on the upstream tutorial trace.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, TRACE, CXX_FLAGS, GENERATOR.
file(REMOVE_RECURSE ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGN}\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
     "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/etkit_consumer ${TRACE})
# The upstream tutorial trace: a Default block with 2 events, an Execute
# block with 29 (corpus README).
if(NOT step_output STREQUAL "Default 2\nExecute 29\n")
  message(FATAL_ERROR "unexpected consumer output:\n${step_output}")
endif()
message(STATUS "consumer built against the installed package and read the trace")
