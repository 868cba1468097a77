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

# rap_optimize_hot_loops(TARGET): -O3 in optimised builds for modules whose loops are written to
# vectorise (GCC vectorises at -O3; -O2 left the level checks, dictionary lookups and comparisons of
# bench_scan's scattered_sparse query scalar: 81 -> 73 ms). GCC 12 reports -Wrestrict false
# positives inside std::string at -O3, so that warning is off for these targets.
function(rap_optimize_hot_loops target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O3>
                         $<$<AND:$<CONFIG:Release,RelWithDebInfo>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)
endfunction()

# rap_module_tests(NAME DEPS ...): one GoogleTest executable per tests/NAME/*_test.cc file, each one
# CTest test named NAME.FILE (so a broken test file only breaks its own target, and fixtures that
# start real servers run once per executable).
function(rap_module_tests name)
  cmake_parse_arguments(T "" "" "DEPS;LABELS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/${name}/*_test.cc)
  foreach(src ${srcs})
    get_filename_component(base ${src} NAME_WE)
    set(target rap_test_${name}_${base})
    add_executable(${target} ${src})
    target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} PRIVATE ${T_DEPS} rap_testing GTest::gtest GTest::gmock GTest::gtest_main)
    # Test code itself at -O1 in optimised builds (the library it links stays at -O2/-O3): GoogleTest
    # macros are costly to optimise and the tests' own loops are not what they measure
    # (tests/read/prefetch_test.cc: 15.5 s at -O2 -g1, 12.3 s at -O1 -g1).
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
    add_test(NAME ${name}.${base} COMMAND ${target})
    # Extra labels come from a marker comment in the test file: "// rap-test-labels: network concurrent".
    #   network     starts real servers (nginx, Swift s3api, rap-netsim) on loopback
    #   concurrent  exercises threads; also run under ThreadSanitizer
    file(STRINGS ${src} label_lines REGEX "rap-test-labels:")
    set(file_labels "")
    foreach(line ${label_lines})
      string(REGEX REPLACE ".*rap-test-labels:[ ]*" "" line "${line}")
      string(REPLACE " " ";" line "${line}")
      list(APPEND file_labels ${line})
    endforeach()
    # A test that starts rap-netsim or runs the rap CLI depends on that binary (the build order
    # then guarantees it exists when the test runs): found from the fixture headers it includes.
    file(STRINGS ${src} fixture_lines REGEX "#include \"testing/(netsim_fixture|cli_run)\\.h\"")
    foreach(line ${fixture_lines})
      if(line MATCHES "netsim_fixture" AND TARGET rap-netsim)
        add_dependencies(${target} rap-netsim)
      elseif(TARGET rap)
        add_dependencies(${target} rap)
      endif()
    endforeach()
    set_tests_properties(${name}.${base} PROPERTIES
      # RAP_SHARED_DIR is not set here, so that the caller's environment overrides the default
      # (SourceDir()/../shared, tests/testing/paths.cc).
      ENVIRONMENT "RAP_SOURCE_DIR=${PROJECT_SOURCE_DIR};RAP_BINARY_DIR=${PROJECT_BINARY_DIR}"
      TIMEOUT 1200 LABELS "${name};${T_LABELS};${file_labels}")
  endforeach()
endfunction()
