# Warnings for etkit's own targets; third-party headers are included as
# SYSTEM so their warnings do not drown ours.
function(etkit_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wno-missing-field-initializers)
endfunction()

# Declares an etkit library: etkit_<name>, alias etkit::<name>, public headers
# in <dir>/include, sources given.
function(etkit_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(etkit_${name} ${ARG_SOURCES})
  add_library(etkit::${name} ALIAS etkit_${name})
  set_target_properties(etkit_${name} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(etkit_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(etkit_${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  etkit_warnings(etkit_${name})
endfunction()
