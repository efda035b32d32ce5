# Generates C++ from our flatbuffers schemas at build time with Debian's
# flatc. Generated headers go to <build>/generated and are never checked in;
# they are private to the libraries that read the formats.
set(ETKIT_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
set(ETKIT_SCHEMA_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/../core/schema)

# An INTERFACE target that builds `outputs` (generated headers under
# ETKIT_GENERATED_DIR) and puts them on its consumers' include path.
function(etkit_generated_headers_target target)
  add_custom_target(${target}_gen DEPENDS ${ARGN})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_gen)
  target_include_directories(${target} SYSTEM INTERFACE $<BUILD_INTERFACE:${ETKIT_GENERATED_DIR}>)
  target_link_libraries(${target} INTERFACE flatbuffers::flatbuffers)
endfunction()

# etkit_flatc(<target> <schema.fbs>...): adds an INTERFACE target whose
# consumers get the generated headers on their include path.
function(etkit_flatc target)
  set(outputs)
  foreach(schema ${ARGN})
    get_filename_component(base ${schema} NAME_WE)
    set(out ${ETKIT_GENERATED_DIR}/${base}_generated.h)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${ETKIT_FLATC} --cpp --scoped-enums --reflect-names
              -I ${ETKIT_SCHEMA_INCLUDE} -o ${ETKIT_GENERATED_DIR} ${schema}
      DEPENDS ${schema} ${ETKIT_SCHEMA_INCLUDE}/scalar_type.fbs
      COMMENT "flatc ${base}.fbs"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  etkit_generated_headers_target(${target} ${outputs})
endfunction()

# etkit_flatc_bfbs(<target> <schema.fbs>...): an INTERFACE target whose
# consumers can include "bfbs/<schema>_bfbs_generated.h": the binary schema
# embedded as <Root>BinarySchema::data()/size(), for reflection (walking
# any table of the format, as `etinspect size` does).
function(etkit_flatc_bfbs target)
  set(outputs)
  set(dir ${ETKIT_GENERATED_DIR}/bfbs)
  foreach(schema ${ARGN})
    get_filename_component(base ${schema} NAME_WE)
    set(out ${dir}/${base}_bfbs_generated.h)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${ETKIT_FLATC} --cpp --bfbs-gen-embed -I ${ETKIT_SCHEMA_INCLUDE} -o ${dir} ${schema}
      DEPENDS ${schema} ${ETKIT_SCHEMA_INCLUDE}/scalar_type.fbs
      COMMENT "flatc --bfbs-gen-embed ${base}.fbs"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  etkit_generated_headers_target(${target} ${outputs})
endfunction()
