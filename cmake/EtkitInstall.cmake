# Installs the libraries, headers and a package config so other projects can
# find_package(etkit) and link etkit::core, etkit::etdump, ….
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(ETKIT_INSTALL_TARGETS etkit_core etkit_kernels_util etkit_kernels_portable etkit_kernels_prim etkit_kernels_quantized etkit_kernels_cortex_m etkit_kernels_llm etkit_kernels etkit_generation etkit_etdump etkit_bundled etkit_etrecord etkit_xnnpack_graph etkit_report etkit_inspector)
install(TARGETS ${ETKIT_INSTALL_TARGETS} EXPORT etkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(lib core kernels/util kernels/all generation etdump bundled etrecord delegates/xnnpack report inspector)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${lib}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
if(ETKIT_BUILD_CLI)
  install(TARGETS etinspect RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT etkitTargets NAMESPACE etkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/etkit)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/etkitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/etkitConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/etkit)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/etkitConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/etkitConfig.cmake ${CMAKE_BINARY_DIR}/etkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/etkit)
