# Install rules: headers, the fusekit::fusekit target, and a package config for find_package(fusekit).
include(CMakePackageConfigHelpers)

install(DIRECTORY include/fusekit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS fusekit EXPORT fusekitTargets)
install(EXPORT fusekitTargets NAMESPACE fusekit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusekit)

configure_package_config_file(cmake/fusekitConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/fusekitConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusekit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fusekitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fusekitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/fusekitConfigVersion.cmake
              ${CMAKE_CURRENT_SOURCE_DIR}/cmake/FusekitInstances.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/fusekit)
