// The final-answer check of structured output: finds the JSON value in a model's answer and
// checks it against the response format, for answers that were not constrained token by token
// (an engine without logits processors, an upstream that cannot constrain) or as a last guard
// when they were.
//
// Extraction, in order, on the answer without surrounding whitespace:
//   1. the whole text is one JSON value;
//   2. the first complete fenced block (```json … ``` or ``` … ```) whose inside is one;
//   3. an unterminated fence: everything after the last ``` (an optional `json` tag and
//      newline skipped), a closing ``` removed;
//   4. a balanced scan: from each `{` or `[`, left to right, the first balanced value
//      (strings and escapes respected) that is one JSON value — so a list holding objects is
//      found whole, not by its first object.
// Truncated output is not repaired: an answer cut off by max_tokens is reported, not guessed.
//
// Thread-safety: pure functions. Cost: linear in the answer: the balanced scan reads at most
// eight times the answer's length (then gives up), whatever brackets it holds.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

// The JSON value in `answer` (a view into it), or nullopt when there is none.
std::optional<std::string_view> ExtractJson(std::string_view answer);

struct AnswerCheck {
  bool valid = false;
  std::string json;   // the extracted value (valid or not); empty when none was found
  std::string error;  // why it is invalid: "no JSON value in the answer", "the root is not an
                      // object", "JSON Schema validation failed: /days: …"
};

// Checks `answer` for `response_format: json_object` (`schema` null: the root must be an
// object) or `json_schema` (validated against `schema`).
AnswerCheck CheckAnswer(std::string_view answer, const SchemaIr* schema);

}  // namespace crux::constrain
