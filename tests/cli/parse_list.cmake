# `crux parse --list` prints each registered parser as a tab-separated line: name, aliases,
# models, markers. Run by ctest: cmake -DCRUX=<crux binary> -P <this>.
execute_process(COMMAND "${CRUX}" parse --list OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "crux parse --list exited with ${rc}: ${err}")
endif()
foreach(expected "\nqwen3\tqwen,qwen3.5,qwq\tQwen3, Qwen3.5, QwQ\t<think> … </think>\n"
                 "\napertus\t-\tSwiss AI Apertus\t"
                 "\nhermes\tnous\t"
                 "# tool-call parsers (--tool-call-parser NAME)")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "crux parse --list does not print '${expected}':\n${out}")
  endif()
endforeach()
