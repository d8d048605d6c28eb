# `crux template render`: a template over a context file prints the prompt (with
# --add-generation-prompt and --kwargs applied), equal to what the Python reference
# (tests/chat_template/render_reference.py) prints when python3 with Jinja2 is present; a
# template error exits 2 and names the line and column; a bad --input exits 2.
# Run by ctest: cmake -DCRUX=<crux binary> -DREFERENCE=<render_reference.py> -DWORK=<dir> -P <this>.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/t.jinja" [=[
{%- for m in messages %}
  {%- if m.role == 'system' %}[{{ m.content | trim }}]
  {% elif m.tool_calls %}
    {%- for c in m.tool_calls %}<call>{{ c.function.arguments | tojson }}</call>{% endfor %}
  {%- else %}<{{ m.role }}>{{ m.content }}{{ eos_token }}
  {% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<assistant>{% if not enable_thinking | default(true) %}<think></think>{% endif %}{% endif %}
]=])
file(WRITE "${WORK}/conv.json" [=[
{"messages": [{"role": "system", "content": " Be brief. "},
              {"role": "user", "content": "Hi é"},
              {"role": "assistant", "content": null,
               "tool_calls": [{"function": {"name": "f", "arguments": {"b": 1, "a": "<x>"}}}]}],
 "eos_token": "</s>"}
]=])
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/t.jinja" --input "${WORK}/conv.json"
                        --add-generation-prompt --kwargs "{\"enable_thinking\": false}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "crux template render exited with ${rc}: ${err}")
endif()
set(expected "[Be brief.]\n<user>Hi é</s>\n<call>{\"b\": 1, \"a\": \"<x>\"}</call><assistant><think></think>")
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "crux template render printed:\n${out}\nexpected:\n${expected}")
endif()

find_program(PYTHON3 python3)
if(PYTHON3)
  execute_process(COMMAND "${PYTHON3}" -c "import jinja2" RESULT_VARIABLE no_jinja2 OUTPUT_QUIET ERROR_QUIET)
  if(no_jinja2 EQUAL 0)
    file(WRITE "${WORK}/conv2.json" [=[
{"messages": [{"role": "user", "content": "Hi é"}], "eos_token": "</s>", "enable_thinking": false}
]=])
    execute_process(COMMAND "${PYTHON3}" "${REFERENCE}" --template "${WORK}/t.jinja" --input "${WORK}/conv2.json"
                            --add-generation-prompt OUTPUT_VARIABLE want RESULT_VARIABLE rc)
    execute_process(COMMAND "${CRUX}" template render --template "${WORK}/t.jinja" --input "${WORK}/conv2.json"
                            --add-generation-prompt OUTPUT_VARIABLE got)
    if(NOT rc EQUAL 0 OR NOT got STREQUAL want)
      message(FATAL_ERROR "crux printed:\n${got}\nJinja2 printed (exit ${rc}):\n${want}")
    endif()
  endif()
endif()

file(WRITE "${WORK}/bad.jinja" "line one\n{{ raise_exception('roles must alternate') }}")
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/bad.jinja" --input "${WORK}/conv.json"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "line 2, column [0-9]+: roles must alternate")
  message(FATAL_ERROR "a raising template: exit ${rc}, stderr: ${err}")
endif()
file(WRITE "${WORK}/syntax.jinja" "{% for x in %}")
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/syntax.jinja" --input "${WORK}/conv.json"
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "line 1, column")
  message(FATAL_ERROR "a syntax error: exit ${rc}, stderr: ${err}")
endif()
file(WRITE "${WORK}/list.json" "[1, 2]")
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/t.jinja" --input "${WORK}/list.json"
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "an --input that is not an object: exit ${rc}, stderr: ${err}")
endif()

# --from anthropic: a Messages request body, normalised before rendering.
file(WRITE "${WORK}/anthropic.json" [=[
{"system": "Be brief.", "messages": [
  {"role": "user", "content": [{"type": "text", "text": "Hi é"}]},
  {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {"b": 1, "a": "<x>"}}]}],
 "eos_token": "ignored"}
]=])
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/t.jinja" --input "${WORK}/anthropic.json"
                        --from anthropic --kwargs "{\"eos_token\": \"</s>\"}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
set(expected "[Be brief.]\n<user>Hi é</s>\n<call>{\"b\": 1, \"a\": \"<x>\"}</call>")
if(NOT rc EQUAL 0 OR NOT out STREQUAL expected)
  message(FATAL_ERROR "--from anthropic: exit ${rc}, printed:\n${out}\nexpected:\n${expected}\n${err}")
endif()
execute_process(COMMAND "${CRUX}" template render --template "${WORK}/t.jinja" --input "${WORK}/anthropic.json"
                        --from nope ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "available: openai_chat, anthropic, responses")
  message(FATAL_ERROR "--from nope: exit ${rc}, stderr: ${err}")
endif()
