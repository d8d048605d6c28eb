# Runs clang-tidy (the checks and limits in .clang-tidy: naming and function size, every
# warning an error) over every C++ source under src/ and apps/ that the build compiles, with
# the flags of BUILD/compile_commands.json, JOBS files at a time; headers under include/crux/,
# src/ and apps/ are checked where they are included. Fails naming each file and function
# that breaks a rule. Run by ctest as `clang_tidy`.
#   -DROOT=<source dir> -DBUILD=<build dir> -DCLANG_TIDY=<clang-tidy> -DJOBS=<n> -DWORK=<dir>
foreach(var ROOT BUILD CLANG_TIDY JOBS WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "clang_tidy.cmake: -D${var}= is required")
  endif()
endforeach()
if(NOT EXISTS ${BUILD}/compile_commands.json)
  message(FATAL_ERROR "no ${BUILD}/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS)")
endif()

# The sources: entries of the compilation database under src/ or apps/, each once.
file(READ ${BUILD}/compile_commands.json db)
string(JSON entries LENGTH "${db}")
set(sources "")
if(entries GREATER 0)
  math(EXPR last "${entries} - 1")
  foreach(i RANGE ${last})
    string(JSON source GET "${db}" ${i} file)
    file(RELATIVE_PATH relative ${ROOT} ${source})
    if(relative MATCHES "^(src|apps)/.*\\.cc$")
      list(APPEND sources ${relative})
    endif()
  endforeach()
endif()
list(REMOVE_DUPLICATES sources)
list(SORT sources)
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources under src/ or apps/ in ${BUILD}/compile_commands.json")
endif()

# One log per source, written by JOBS clang-tidy processes at once.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
list(JOIN sources "\n" listing)
file(WRITE ${WORK}/sources.txt "${listing}\n")
string(TIMESTAMP started "%s")
execute_process(
  COMMAND xargs -P ${JOBS} -I{} sh -c
          "\"$0\" -p \"$1\" --quiet \"$3\" > \"$2/$(echo \"$3\" | tr / _).log\" 2>&1"
          ${CLANG_TIDY} ${BUILD} ${WORK} {}
  INPUT_FILE ${WORK}/sources.txt
  WORKING_DIRECTORY ${ROOT}
  RESULT_VARIABLE result)
string(TIMESTAMP finished "%s")
math(EXPR seconds "${finished} - ${started}")

# Each finding once (a header's repeats in every file that includes it): "path:line: what".
file(GLOB logs ${WORK}/*.log)
set(findings "")
foreach(log IN LISTS logs)
  file(STRINGS ${log} lines)
  set(pending "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ :]+):([0-9]+):[0-9]+: error: (.*) \\[([^],]+)(,-warnings-as-errors)?\\]$")
      if(pending)
        list(APPEND findings "${pending}")
      endif()
      set(at "${CMAKE_MATCH_2}")
      set(what "${CMAKE_MATCH_3}")
      set(check "${CMAKE_MATCH_4}")
      file(RELATIVE_PATH where ${ROOT} ${CMAKE_MATCH_1})
      if(check STREQUAL "readability-function-size")
        string(REGEX REPLACE " exceeds recommended size/complexity thresholds$" "" what "${what}")
      endif()
      set(pending "${where}:${at}: ${what} [${check}]")
    elseif(pending AND line MATCHES "note: ([0-9]+) lines including whitespace and comments \\(threshold ([0-9]+)\\)")
      set(pending "${pending}: ${CMAKE_MATCH_1} lines, the limit is ${CMAKE_MATCH_2}")
    elseif(line MATCHES "^([^ :]+):[0-9]+:[0-9]+: (fatal )?error: ")
      list(APPEND findings "${line}")  # a compile error, as clang reports it
    elseif(line MATCHES "^error: ")
      get_filename_component(name ${log} NAME_WE)
      list(APPEND findings "(no location, from ${name}) ${line}")
    endif()
  endforeach()
  if(pending)
    list(APPEND findings "${pending}")
  endif()
endforeach()
list(REMOVE_DUPLICATES findings)
list(SORT findings)
list(LENGTH findings found)

if(found GREATER 0)
  list(JOIN findings "\n  " listed)
  message(FATAL_ERROR "clang-tidy: ${found} problems in ${count} sources (${seconds}s; "
                      "the rules are in .clang-tidy):\n  ${listed}")
endif()
if(NOT result EQUAL 0)
  message(FATAL_ERROR "clang-tidy failed with no finding it could name; logs in ${WORK}")
endif()
message(STATUS "clang-tidy: ${count} sources clean in ${seconds}s")
