# The module order, checked (ctest test `module_order`, registered in tests/CMakeLists.txt; run as
# `cmake -DSOURCE_DIR=<repo> -P cmake/CheckModuleOrder.cmake`). Modules depend only on modules to
# their left:
#   util -> columnar -> codec -> plan -> io -> format | orc | avro -> read -> table -> index -> server
# (format, orc and avro, the file formats, are siblings: none may include another).
# Every header and source under src/<m>/ and include/rap/<m>/ (subfolders included) may include
# headers of <m> and of modules left of it only, public ("rap/<x>/...") or private ("<x>/..."); and
# src/<m>/CMakeLists.txt may name only those modules in its DEPS. Fails listing every violation.
# (All public headers share one include directory, so the link DEPS alone cannot catch an include
# that runs up the order; this check does.)
cmake_minimum_required(VERSION 3.22)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<repo> -P CheckModuleOrder.cmake")
endif()

set(order util columnar codec plan io format orc avro read table index server)
# The rank of each module (siblings share one).
set(ranks 0 1 2 3 4 5 5 5 6 7 8 9)

set(violations "")
set(checked 0)
list(LENGTH order n)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  list(GET order ${i} module)
  list(GET ranks ${i} rank)
  file(GLOB_RECURSE files
       "${SOURCE_DIR}/src/${module}/*.h" "${SOURCE_DIR}/src/${module}/*.cc"
       "${SOURCE_DIR}/include/rap/${module}/*.h")
  foreach(f ${files})
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line ${lines})
      if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"](rap/)?([a-z_]+)/")
        set(target "${CMAKE_MATCH_2}")
        list(FIND order "${target}" j)
        set(target_rank -1)
        if(j GREATER_EQUAL 0)
          list(GET ranks ${j} target_rank)
        endif()
        if(NOT target STREQUAL module AND target_rank GREATER_EQUAL rank)
          file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
          string(STRIP "${line}" line)
          list(APPEND violations "${rel}: ${module} includes ${target} (${line})")
        endif()
      endif()
    endforeach()
  endforeach()
  set(cmake_file "${SOURCE_DIR}/src/${module}/CMakeLists.txt")
  if(EXISTS "${cmake_file}")
    file(READ "${cmake_file}" text)
    string(REGEX MATCHALL "rap::[a-z_]+" deps "${text}")
    foreach(dep ${deps})
      string(REPLACE "rap::" "" target "${dep}")
      list(FIND order "${target}" j)
      set(target_rank -1)
      if(j GREATER_EQUAL 0)
        list(GET ranks ${j} target_rank)
      endif()
      if(target_rank GREATER_EQUAL rank)
        list(APPEND violations "src/${module}/CMakeLists.txt: ${module} depends on ${target}")
      endif()
    endforeach()
  endif()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "module order: no files found under ${SOURCE_DIR}/src")
endif()
if(violations)
  list(LENGTH violations count)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "module order: ${count} include(s) or dependency(ies) run up the order "
                      "util -> columnar -> codec -> plan -> io -> format | orc | avro -> read -> table -> index -> server:\n  ${text}")
endif()
message(STATUS "module order: ${checked} files follow util -> columnar -> codec -> plan -> io -> format | orc | avro -> read -> table -> index -> server")
