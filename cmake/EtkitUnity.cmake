# etkit_sanitized_unity(<target>): in the sanitized test build, compiles the
# target's sources six to a translation unit (CMake's unity build). There a
# file's time is mostly -O0 code generation under ASan of what every file
# instantiates again (CLI11's option templates, gtest's, nlohmann/json's):
# etkit_cli_lib's 36 files took 346 s of CPU one by one and 100 s six to a
# unit. Other builds keep one unit per file, so they still check that each
# file includes what it uses.
function(etkit_sanitized_unity target)
  if(ETKIT_SANITIZE)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()
