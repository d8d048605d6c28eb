# Fails when a file includes another module's private header, naming the file, the include and
# the module it belongs to. Run by ctest as `include_check` (cmake -DROOT=<repo> -P this file).
#
# Modules are the libraries in src/CMakeLists.txt: crux_library(<name> …) lives in
# src/<name with "_" as "/">/ (parse_tools: src/parse/tools/), or src/<name>/ when that is the
# folder there is (chat_template: src/chat_template/). A header under src/ is private
# to the module whose folder holds it (the deepest one); public headers are in include/crux/.
# Who may include a private header of module M:
#   - files of M itself (src/<M's folder>/, not a nested module's folder);
#   - unit tests under tests/unit/<d>/, when M's folder is src/<d> or below it (tests of a
#     module may test its internals);
#   - fuzz harnesses (tests/fuzz/): white-box drivers of internals, like unit tests.
# Nobody else: other modules, apps/, bench/, tests/stream/, tests/support/.
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<repository> -P include_check.cmake")
endif()

# Module folders (relative to src/), longest first so the deepest folder wins.
file(READ ${ROOT}/src/CMakeLists.txt lists)
string(REGEX MATCHALL "crux_library\\([ \t\r\n]*[A-Za-z0-9_]+" calls "${lists}")
set(modules "")
foreach(call IN LISTS calls)
  string(REGEX REPLACE "crux_library\\([ \t\r\n]*" "" name "${call}")
  string(REPLACE "_" "/" folder "${name}")
  if(NOT IS_DIRECTORY ${ROOT}/src/${folder} AND IS_DIRECTORY ${ROOT}/src/${name})
    set(folder ${name})  # crux_library(… FOLDER <name>): a folder whose name has "_"
  endif()
  if(NOT IS_DIRECTORY ${ROOT}/src/${folder})
    message(FATAL_ERROR "module crux_${name} has no folder src/${folder}")
  endif()
  list(APPEND modules ${folder})
endforeach()
if(NOT modules)
  message(FATAL_ERROR "no crux_library() in ${ROOT}/src/CMakeLists.txt")
endif()
list(REMOVE_DUPLICATES modules)
set(by_length "")
foreach(folder IN LISTS modules)
  string(LENGTH "${folder}" len)
  math(EXPR key "1000 + ${len}")
  list(APPEND by_length "${key}|${folder}")
endforeach()
list(SORT by_length ORDER DESCENDING)
set(modules "")
foreach(entry IN LISTS by_length)
  string(REGEX REPLACE "^[0-9]+\\|" "" folder "${entry}")
  list(APPEND modules ${folder})
endforeach()

# The module folder owning `path` (relative to src/), or "" when none does.
function(owning_module path out)
  foreach(folder IN LISTS modules)
    string(LENGTH "${folder}/" len)
    string(SUBSTRING "${path}" 0 ${len} head)
    if(head STREQUAL "${folder}/")
      set(${out} ${folder} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# Whether module folder `folder` equals `dir` or lies below it.
function(at_or_below folder dir out)
  string(LENGTH "${dir}/" len)
  string(SUBSTRING "${folder}/" 0 ${len} head)
  if(head STREQUAL "${dir}/")
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE files RELATIVE ${ROOT}
  ${ROOT}/src/*.cc ${ROOT}/src/*.h ${ROOT}/apps/*.cc ${ROOT}/apps/*.h
  ${ROOT}/tests/unit/*.cc ${ROOT}/tests/unit/*.h ${ROOT}/tests/stream/*.cc ${ROOT}/tests/stream/*.h
  ${ROOT}/tests/support/*.cc ${ROOT}/tests/support/*.h ${ROOT}/tests/fuzz/*.cc
  ${ROOT}/tests/fuzz/*.h ${ROOT}/bench/*.cc ${ROOT}/bench/*.h)
list(SORT files)

set(violations "")
foreach(file IN LISTS files)
  if(file MATCHES "^tests/fuzz/")
    continue()
  endif()
  file(STRINGS ${ROOT}/${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"]+[>\"]")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*$" "\\1" inc "${line}")
    # Where the include resolves: beside the including file, else under src/.
    get_filename_component(dir ${file} DIRECTORY)
    set(resolved "")
    if(EXISTS ${ROOT}/${dir}/${inc} AND NOT IS_DIRECTORY ${ROOT}/${dir}/${inc})
      file(REAL_PATH ${ROOT}/${dir}/${inc} real)
      file(REAL_PATH ${ROOT} root_real)
      file(RELATIVE_PATH resolved ${root_real} ${real})
    elseif(EXISTS ${ROOT}/src/${inc} AND NOT IS_DIRECTORY ${ROOT}/src/${inc})
      set(resolved src/${inc})
    endif()
    if(NOT resolved MATCHES "^src/")
      continue()  # a public header, a system header, or a test's own helper
    endif()
    string(SUBSTRING "${resolved}" 4 -1 header)
    owning_module(${header} owner)
    if(owner STREQUAL "")
      continue()
    endif()
    set(allowed FALSE)
    if(file MATCHES "^src/")
      string(SUBSTRING "${file}" 4 -1 source)
      owning_module(${source} own)
      if(own STREQUAL owner)
        set(allowed TRUE)
      endif()
    elseif(file MATCHES "^tests/unit/.+/")
      string(REGEX REPLACE "^tests/unit/(.+)/[^/]+$" "\\1" test_dir "${file}")
      at_or_below(${owner} ${test_dir} allowed)
    endif()
    if(NOT allowed)
      string(REPLACE "/" "_" owner_name "${owner}")
      list(APPEND violations "${file}: #include \"${inc}\" is private to crux_${owner_name}")
    endif()
  endforeach()
endforeach()

list(LENGTH files count)
if(violations)
  list(JOIN violations "\n  " listed)
  message(FATAL_ERROR "private headers of another module included (use its public header in "
    "include/crux/, or move what is shared there):\n  ${listed}")
endif()
message(STATUS "${count} files include no other module's private header")
