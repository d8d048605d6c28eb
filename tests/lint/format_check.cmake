# Fails when a C++ source is not formatted as .clang-format says (clang-format --dry-run
# --Werror), naming each file. Run by ctest as `format_check`; fix with clang-format -i.
file(GLOB_RECURSE sources RELATIVE ${ROOT}
  ${ROOT}/src/*.cc ${ROOT}/src/*.h ${ROOT}/include/*.h ${ROOT}/apps/*.cc ${ROOT}/apps/*.h
  ${ROOT}/tests/unit/*.cc ${ROOT}/tests/stream/*.cc ${ROOT}/tests/support/*.cc
  ${ROOT}/tests/support/*.h ${ROOT}/tests/fuzz/*.cc ${ROOT}/tests/fuzz/*.h
  ${ROOT}/bench/*.cc ${ROOT}/bench/*.h)
list(SORT sources)
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no C++ sources found under ${ROOT}")
endif()
execute_process(
  COMMAND ${CLANG_FORMAT} --dry-run --Werror ${sources}
  WORKING_DIRECTORY ${ROOT}
  RESULT_VARIABLE result
  ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  string(REGEX MATCHALL "[^\n:]+:[0-9]+:[0-9]+: error" hits "${errors}")
  set(files "")
  foreach(hit IN LISTS hits)
    string(REGEX REPLACE ":[0-9]+:[0-9]+: error$" "" f "${hit}")
    list(APPEND files ${f})
  endforeach()
  list(REMOVE_DUPLICATES files)
  list(JOIN files "\n  " listed)
  message(FATAL_ERROR "not formatted (clang-format -i fixes them):\n  ${listed}")
endif()
message(STATUS "${count} C++ files formatted")
