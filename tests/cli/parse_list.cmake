# `crux parse --list` prints each registered parser as a tab-separated line: name, aliases,
# models, markers. Run by ctest: cmake -DCRUX=<crux binary> -P <this>.
execute_process(COMMAND "${CRUX}" parse --list OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "crux parse --list exited with ${rc}: ${err}")
endif()
foreach(expected "\nthink\tgeneric_think\tany model that wraps reasoning in <think> tags\t<think> … </think>\n"
                 "\nrwkv\t-\tRWKV-7 G1\t<think> … </think>\n"
                 "\nhermes\tnous\t"
                 "# tool-call parsers (--tool-call-parser NAME)")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "crux parse --list does not print '${expected}':\n${out}")
  endif()
endforeach()
