# Runs include_check.cmake on planted trees under WORK: a clean one must pass, and one with
# each kind of violation must fail, naming every violating file and include and nothing that
# the rule allows. Run by ctest as `include_check_catches_violations`.
if(NOT WORK OR NOT CHECK)
  message(FATAL_ERROR "usage: cmake -DWORK=<dir> -DCHECK=<include_check.cmake> -P this file")
endif()

function(plant root path text)
  file(WRITE ${root}/${path} "${text}\n")
endfunction()

function(run_check root result_var output_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${root} -P ${CHECK}
    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${result_var} ${result} PARENT_SCOPE)
  set(${output_var} "${out}${err}" PARENT_SCOPE)
endfunction()

# Modules a, b and b_c (nested in src/b/c/), each with a private header.
function(plant_modules root)
  file(REMOVE_RECURSE ${root})
  plant(${root} src/CMakeLists.txt
    "crux_library(a SOURCES a/a.cc)\ncrux_library(b\n  SOURCES b/b.cc)\ncrux_library(b_c SOURCES b/c/c.cc)")
  plant(${root} src/a/private.h "#pragma once")
  plant(${root} src/b/private.h "#pragma once")
  plant(${root} src/b/c/inner.h "#pragma once")
  plant(${root} include/crux/a/public.h "#pragma once")
  plant(${root} src/a/a.cc "#include \"crux/a/public.h\"\n#include \"a/private.h\"\n#include <vector>")
  plant(${root} src/b/c/c.cc "#include \"b/c/inner.h\"\n#include \"inner.h\"")
  plant(${root} tests/unit/a/a_test.cc "#include \"a/private.h\"")
  plant(${root} tests/unit/b/b_test.cc "#include \"b/private.h\"\n#include \"b/c/inner.h\"")
  plant(${root} tests/unit/b/helper.h "#pragma once")
  plant(${root} tests/unit/b/helper_test.cc "#include \"unit/b/helper.h\"\n#include \"helper.h\"")
  plant(${root} tests/fuzz/b_fuzz.cc "#include \"b/c/inner.h\"")
endfunction()

set(clean ${WORK}/clean)
plant_modules(${clean})
run_check(${clean} result output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "a tree that keeps the rule was rejected:\n${output}")
endif()

set(bad ${WORK}/bad)
plant_modules(${bad})
plant(${bad} src/b/b.cc "#include \"b/private.h\"\n#include \"a/private.h\"")
plant(${bad} src/b/b_outer.cc "#include \"b/c/inner.h\"")
plant(${bad} src/b/c/c_up.cc "  #  include <b/private.h>")
plant(${bad} src/a/a_relative.cc "#include \"../b/private.h\"")
plant(${bad} apps/tool/main.cc "#include \"a/private.h\"")
plant(${bad} bench/a_bench.cc "#include \"a/private.h\"")
plant(${bad} tests/unit/a/cross_test.cc "#include \"b/private.h\"")
plant(${bad} tests/unit/b/c/deep_test.cc "#include \"b/private.h\"")
plant(${bad} tests/stream/s_test.cc "#include \"a/private.h\"")
run_check(${bad} result output)
if(result EQUAL 0)
  message(FATAL_ERROR "planted violations passed the check:\n${output}")
endif()
foreach(expected
    "src/b/b.cc: #include \"a/private.h\" is private to crux_a"
    "src/b/b_outer.cc: #include \"b/c/inner.h\" is private to crux_b_c"
    "src/b/c/c_up.cc: #include \"b/private.h\" is private to crux_b"
    "src/a/a_relative.cc: #include \"../b/private.h\" is private to crux_b"
    "apps/tool/main.cc: #include \"a/private.h\" is private to crux_a"
    "bench/a_bench.cc: #include \"a/private.h\" is private to crux_a"
    "tests/unit/a/cross_test.cc: #include \"b/private.h\" is private to crux_b"
    "tests/unit/b/c/deep_test.cc: #include \"b/private.h\" is private to crux_b"
    "tests/stream/s_test.cc: #include \"a/private.h\" is private to crux_a")
  string(FIND "${output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the check did not report '${expected}':\n${output}")
  endif()
endforeach()
foreach(allowed "src/a/a.cc" "src/b/c/c.cc:" "tests/unit/b/b_test.cc" "helper_test.cc" "b_fuzz.cc"
    "src/b/b.cc: #include \"b/private.h\"")
  string(FIND "${output}" "${allowed}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the check reported '${allowed}', which the rule allows:\n${output}")
  endif()
endforeach()
message(STATUS "include_check rejects every planted violation and nothing else")
