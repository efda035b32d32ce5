# etkit_gtest_suites(<target> [TIMEOUT s] [ENVIRONMENT "A=1;B=2"]): ctest
# runs the test binary once per gtest suite (`<target>:<Suite>`, filter
# `Suite.*`) instead of once per test, for binaries whose start-up is the
# cost: one linking libtorch spends about 2 s under ASan registering ATen's
# operators before its first test. The suites are listed after each build,
# as gtest_discover_tests does for single tests. A suite whose tests were
# all skipped is reported as skipped (../support/suite_outcome.cpp);
# a suite with a skipped test among passing ones passes, and its output
# names the skip.
set(ETKIT_GTEST_SUITES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/etkit_list_gtest_suites.cmake)
set(ETKIT_SUITE_OUTCOME_SOURCE ${CMAKE_CURRENT_LIST_DIR}/../support/suite_outcome.cpp)

function(etkit_gtest_suites target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "ENVIRONMENT" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  target_sources(${target} PRIVATE ${ETKIT_SUITE_OUTCOME_SOURCE})
  set(listed ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake)
  string(REPLACE ";" "|" environment "${ARG_ENVIRONMENT}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D "BINARY=$<TARGET_FILE:${target}>" -D "TARGET=${target}" -D "OUT=${listed}"
            -D "TIMEOUT=${ARG_TIMEOUT}" -D "ENVIRONMENT=${environment}" -P ${ETKIT_GTEST_SUITES_SCRIPT}
    BYPRODUCTS ${listed}
    VERBATIM)
  file(WRITE ${include_file}
       "if(EXISTS \"${listed}\")\n  include(\"${listed}\")\nelse()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
