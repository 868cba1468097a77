# rap_module(NAME DEPS ...): one static library per module, built from every .cc in src/NAME.
# New source files are picked up automatically (CONFIGURE_DEPENDS), so modules can grow without
# editing build files.
function(rap_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  if(srcs)
    add_library(rap_${name} STATIC ${srcs})
    target_include_directories(rap_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                                            PRIVATE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(rap_${name} PUBLIC ${M_DEPS})
  else()
    # A module without sources yet: headers only.
    add_library(rap_${name} INTERFACE)
    target_include_directories(rap_${name} INTERFACE ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(rap_${name} INTERFACE ${M_DEPS})
  endif()
  add_library(rap::${name} ALIAS rap_${name})
endfunction()

# rap_module_tests(NAME DEPS ...): one GoogleTest binary per module from tests/NAME/*_test.cc,
# registered as one CTest test (fixtures that start real servers run once per binary).
function(rap_module_tests name)
  cmake_parse_arguments(T "" "" "DEPS;LABELS;FIXTURES" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${name}/*.cc)
  if(NOT srcs)
    return()
  endif()
  add_executable(rap_${name}_tests ${srcs})
  target_include_directories(rap_${name}_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(rap_${name}_tests PRIVATE ${T_DEPS} rap_testing GTest::gtest GTest::gmock GTest::gtest_main)
  add_test(NAME ${name} COMMAND rap_${name}_tests)
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "RAP_SHARED_DIR=${PROJECT_SOURCE_DIR}/../shared;RAP_SOURCE_DIR=${PROJECT_SOURCE_DIR};RAP_BINARY_DIR=${PROJECT_BINARY_DIR}"
    TIMEOUT 1200)
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
  if(T_FIXTURES)
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "${T_FIXTURES}")
  endif()
endfunction()
