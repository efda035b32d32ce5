# Script mode (cmake -P), run after a test binary is built: writes OUT with
# one ctest test per gtest suite of BINARY (see EtkitGtestSuites.cmake).
# Inputs: BINARY, TARGET, OUT, TIMEOUT, ENVIRONMENT ("|"-separated).
execute_process(COMMAND "${BINARY}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${BINARY} --gtest_list_tests failed (${status}):\n${listing}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
string(REPLACE "|" ";" environment "${ENVIRONMENT}")
set(script "# Written by tests/cmake/etkit_list_gtest_suites.cmake from ${BINARY}; do not edit.\n")
set(suites 0)
foreach(line IN LISTS lines)
  # A suite line starts in column 0 and ends with '.', before any comment
  # ("Prefix/Suite.  # TypeParam = ..."); test lines are indented.
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${TARGET}:${suite}")
    string(APPEND script
      "add_test([=[${name}]=] [=[${BINARY}]=] [=[--gtest_filter=${suite}.*]=])\n"
      "set_tests_properties([=[${name}]=] PROPERTIES TIMEOUT ${TIMEOUT}"
      " SKIP_REGULAR_EXPRESSION [=[etkit-tests: every selected test was skipped]=]"
      " ENVIRONMENT [==[${environment}]==])\n")
    math(EXPR suites "${suites} + 1")
  endif()
endforeach()
if(suites EQUAL 0)
  message(FATAL_ERROR "${BINARY} lists no test suites")
endif()
file(WRITE "${OUT}" "${script}")
