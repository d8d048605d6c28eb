# `crux schema check`: a schema compiles (and lists what it does not enforce), an instance is
# accepted (exit 0) or rejected (exit 1, with the refused byte and the violations on stderr),
# and a bad schema exits 2 naming the problem. The four bench schemas accept their instances.
# Run by ctest: cmake -DCRUX=<crux binary> -DSCHEMAS=<bench/schemas> -DWORK=<dir> -P <this>.
file(MAKE_DIRECTORY "${WORK}")

# Runs `crux schema check ARGN`; fails unless the exit status is `status` and stdout and stderr
# contain `out` and `err`.
function(expect_check name status out err)
  execute_process(COMMAND "${CRUX}" schema check ${ARGN} OUTPUT_VARIABLE got_out
                  ERROR_VARIABLE got_err RESULT_VARIABLE rc)
  if(NOT rc EQUAL status)
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${status}\nstdout: ${got_out}\nstderr: ${got_err}")
  endif()
  string(FIND "${got_out}" "${out}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: stdout lacks '${out}':\n${got_out}")
  endif()
  string(FIND "${got_err}" "${err}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: stderr lacks '${err}':\n${got_err}")
  endif()
endfunction()

foreach(bench flat5 nested_order anyof_ref longtext)
  expect_check(${bench}_compiles 0 "{\"compiled\":true,\"not_enforced\":[]}" ""
               --schema "${SCHEMAS}/${bench}.schema.json")
  expect_check(${bench}_accepted 0 "{\"accepted\":true," ""
               --schema "${SCHEMAS}/${bench}.schema.json"
               --instance "${SCHEMAS}/${bench}.instance.json")
endforeach()

# Whitespace around the document, a final newline included, is allowed.
file(WRITE "${WORK}/spaced.json" "  {\"id\": 1, \"name\": \"a\", \"email\": \"b\",\n \"score\": 2.5, \"active\": false}\n")
expect_check(trailing_newline 0 "{\"accepted\":true," ""
             --schema "${SCHEMAS}/flat5.schema.json" --instance "${WORK}/spaced.json")

# Rejected: the pattern of order_id; the refused byte is the first one past "ORD-".
file(READ "${SCHEMAS}/nested_order.instance.json" order)
string(REPLACE "ORD-004217" "ORD-0042X7" bad_order "${order}")
file(WRITE "${WORK}/bad_order.json" "${bad_order}")
string(FIND "${bad_order}" "X" refused)
expect_check(rejected 1 "{\"accepted\":false," "refuses byte ${refused} "
             --schema "${SCHEMAS}/nested_order.schema.json" --instance "${WORK}/bad_order.json")
expect_check(rejected_violation 1 "" "/order_id: pattern"
             --schema "${SCHEMAS}/nested_order.schema.json" --instance "${WORK}/bad_order.json")

# Rejected: incomplete (every byte taken, the document unfinished).
file(WRITE "${WORK}/incomplete.json" "{\"id\":1")
expect_check(incomplete 1 "{\"accepted\":false," "before the document is complete"
             --schema "${SCHEMAS}/flat5.schema.json" --instance "${WORK}/incomplete.json")

# A keyword the grammar does not enforce is listed with its pointer.
file(WRITE "${WORK}/unique.schema.json"
     "{\"type\":\"object\",\"properties\":{\"tags\":{\"type\":\"array\",\"uniqueItems\":true}}}")
expect_check(not_enforced 0
             "\"not_enforced\":[{\"keyword\":\"uniqueItems\",\"pointer\":\"/properties/tags/uniqueItems\"}]"
             "" --schema "${WORK}/unique.schema.json")

# Bad schemas: exit 2, the message names the keyword or the problem.
file(WRITE "${WORK}/bad_type.schema.json" "{\"type\":5}")
expect_check(bad_type 2 "" "type" --schema "${WORK}/bad_type.schema.json")
file(WRITE "${WORK}/not_json.schema.json" "{\"type\":")
expect_check(not_json 2 "" "not_json.schema.json" --schema "${WORK}/not_json.schema.json")
file(WRITE "${WORK}/remote.schema.json" "{\"$ref\":\"http://example.com/x.json\"}")
expect_check(remote_ref 2 "" "$ref" --schema "${WORK}/remote.schema.json")
expect_check(missing_file 2 "" "cannot read --schema" --schema "${WORK}/absent.json")
expect_check(no_schema 2 "" "--schema")
