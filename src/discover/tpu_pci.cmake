# TPU (tpu.google.com, README.md §4.2) and generic PCI fallback
# (pci.dractl.io, README.md §4.3) discovery; included from CMakeLists.txt in
# its scope.
target_sources(dra_discover PRIVATE tpu.cc pci.cc)
if(DRA_BUILD_TESTS)
  dra_add_test(tpu_test.cc DEPS dra_discover dra_manifest)
  dra_add_test(pci_test.cc DEPS dra_discover)
endif()
