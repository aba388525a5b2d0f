# dra_add_library(NAME [FOLDER path] [HEADERS path...] SRCS a.cc b.cc DEPS other libs)
# Creates static library dra_NAME. It sees the headers of its own folder
# (src/FOLDER, default src/NAME, included as "FOLDER/x.h"), of the libraries
# it links and of the generated folder, nothing else: its include root is a
# folder of the build tree, include/NAME, holding a symbolic link FOLDER ->
# src/FOLDER (and one per extra header of HEADERS, paths under src/), and
# linking a library is what puts another folder on the path. An include of a
# folder the target does not link does not compile; scripts/check-layers
# checks the floors between the folders that do link.
function(dra_add_library name)
  cmake_parse_arguments(ARG "" "FOLDER" "SRCS;DEPS;HEADERS" ${ARGN})
  if(NOT ARG_FOLDER)
    set(ARG_FOLDER ${name})
  endif()
  set(root ${CMAKE_BINARY_DIR}/include/${name})
  foreach(path ${ARG_FOLDER} ${ARG_HEADERS})
    get_filename_component(parent ${root}/${path} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${path} ${root}/${path} SYMBOLIC)
  endforeach()
  add_library(dra_${name} STATIC ${ARG_SRCS})
  target_include_directories(dra_${name} PUBLIC ${root} ${CMAKE_BINARY_DIR}/generated)
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
