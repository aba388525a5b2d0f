# dra_add_library(NAME SRCS a.cc b.cc DEPS other libs)
# Creates static library dra_NAME with include root src/ and the given deps.
function(dra_add_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;DEPS" ${ARGN})
  add_library(dra_${name} STATIC ${ARG_SRCS})
  target_include_directories(dra_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src
                                                ${CMAKE_BINARY_DIR}/generated)
  target_link_libraries(dra_${name} PUBLIC ${ARG_DEPS})
endfunction()

# dra_add_test(path/to/foo_test.cc DEPS libs...)
# Builds one gtest binary per file and registers it with ctest.
function(dra_add_test src)
  cmake_parse_arguments(ARG "" "" "DEPS;LABELS" ${ARGN})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    DRA_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    DRA_TESTDATA_DIR="${PROJECT_SOURCE_DIR}/testdata")
  add_test(NAME ${name} COMMAND ${name})
  if(ARG_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()
