# `crux parse` prints tool-call arguments of any depth and width whole (they used to crash it:
# the arguments were parsed into a tree, copied and dumped, all recursively), and a --tools
# file may nest deeply too. Run by ctest: cmake -DCRUX=<crux binary> -DWORK=<dir> -P <this>.
file(MAKE_DIRECTORY "${WORK}")

function(expect_parse name input expected)
  file(WRITE "${WORK}/${name}.txt" "${input}")
  execute_process(COMMAND "${CRUX}" parse ${ARGN} INPUT_FILE "${WORK}/${name}.txt"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: crux parse exited with ${rc}: ${err}")
  endif()
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    string(SUBSTRING "${out}" 0 300 head)
    message(FATAL_ERROR "${name}: the arguments are not in the output: ${head}")
  endif()
endfunction()

function(hermes_call arguments out_var)
  set(${out_var} "<tool_call>\n{\"name\": \"f\", \"arguments\": ${arguments}}\n</tool_call>"
      PARENT_SCOPE)
endfunction()

foreach(depth 75000 1000000)
  string(REPEAT "[" ${depth} open)
  string(REPEAT "]" ${depth} close)
  hermes_call("{\"a\": ${open}${close}}" input)
  expect_parse(deep${depth} "${input}" "\"arguments\":{\"a\":${open}${close}}}]}"
               --tool-call-parser hermes)
  expect_parse(deep${depth}_auto "${input}" "\"arguments\":{\"a\":${open}${close}}}]}"
               --tool-call-parser auto)
endforeach()

# 100,000 members, built 1,000 at a time (appending to one long string is quadratic in CMake).
set(members "")
set(compact "")
foreach(high RANGE 99)
  set(members_chunk "")
  set(compact_chunk "")
  foreach(low RANGE 999)
    math(EXPR i "${high} * 1000 + ${low}")
    string(APPEND members_chunk "\"k${i}\": ${i}, ")
    string(APPEND compact_chunk "\"k${i}\":${i},")
  endforeach()
  string(APPEND members "${members_chunk}")
  string(APPEND compact "${compact_chunk}")
endforeach()
hermes_call("{${members}\"end\": true}" input)
expect_parse(wide "${input}" "\"arguments\":{${compact}\"end\":true}}]}"
             --tool-call-parser hermes)

# A tools file whose parameters nest 100,000 levels.
string(REPEAT "[" 100000 open)
string(REPEAT "]" 100000 close)
file(WRITE "${WORK}/tools.json"
     "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"x\":${open}${close}}}}]")
hermes_call("{\"a\": 1}" input)
expect_parse(deep_tools "${input}" "\"arguments\":{\"a\":1}}]}" --tools "${WORK}/tools.json")
