# `cpack -G DEB` (or TGZ) in a Release build folder: dractl, kubectl-dra, the
# manual pages and the shell completions that `cmake --install` installs.
# The runtime dependencies are found by dpkg-shlibdeps from the binary.
# The licence (LICENSE, Apache-2.0) goes in as Debian's copyright file.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian-copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
set(CPACK_PACKAGE_NAME dractl)
set(CPACK_PACKAGE_VENDOR "dractl")
set(CPACK_PACKAGE_CONTACT "dractl maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Kubernetes Dynamic Resource Allocation engine")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "Validates DRA objects as the API server does, allocates and schedules as kube-scheduler does, explains "
       "pending pods, simulates clusters and traces, discovers devices and schedules live; kubectl-dra is its "
       "kubectl plugin.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "kubectl")
set(CPACK_STRIP_FILES ON)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
# Only dractl's own install rules (not the Python module's, component python).
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};${PROJECT_NAME};Unspecified;/")
include(CPack)
