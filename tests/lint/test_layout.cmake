# Fails when a unit test does not mirror the code it tests: every tests/unit/<dir>/*_test.cc
# needs src/<dir>/ or include/crux/<dir>/ to exist (tests/unit/parse/tools/detect_test.cc
# tests src/parse/tools/). Names each misplaced file. Run by ctest as `test_layout`.
file(GLOB_RECURSE tests RELATIVE ${ROOT}/tests/unit ${ROOT}/tests/unit/*_test.cc)
list(SORT tests)
list(LENGTH tests count)
if(count EQUAL 0)
  message(FATAL_ERROR "no unit tests found under ${ROOT}/tests/unit")
endif()
set(misplaced "")
foreach(test IN LISTS tests)
  get_filename_component(dir ${test} DIRECTORY)
  if(dir STREQUAL "")
    list(APPEND misplaced "tests/unit/${test} (directly under tests/unit/)")
  elseif(NOT (IS_DIRECTORY ${ROOT}/src/${dir} OR IS_DIRECTORY ${ROOT}/include/crux/${dir}))
    list(APPEND misplaced "tests/unit/${test} (no src/${dir}/ or include/crux/${dir}/)")
  endif()
endforeach()
if(misplaced)
  list(JOIN misplaced "\n  " listed)
  message(FATAL_ERROR "unit tests that do not mirror src/ (move them under "
                      "tests/unit/<the folder of the code they test>/):\n  ${listed}")
endif()
message(STATUS "${count} unit tests mirror src/")
