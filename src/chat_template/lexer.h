// The Jinja lexer, configured as Hugging Face configures Jinja2: trim_blocks (the first
// newline after a block or comment tag is dropped) and lstrip_blocks (spaces and tabs before a
// block or comment tag at the start of a line are dropped), `-` and `+` whitespace control,
// newlines normalised to \n and one trailing newline of the source dropped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::chat_template {

enum class TokenKind : uint8_t {
  kData,        // literal text between tags
  kVarBegin,    // {{
  kVarEnd,      // }}
  kBlockBegin,  // {%
  kBlockEnd,    // %}
  kName,
  kString,  // text: the decoded value
  kInteger,
  kFloat,
  kOperator,  // text: the operator ("+", "//", "==", "(", …)
  kEnd,       // end of the template
};

struct Token {
  TokenKind kind;
  std::string text;
  int64_t integer = 0;
  double number = 0;
  int line = 1;
  int column = 1;
};

// Splits `source` into tokens; a kEnd token closes the list. Errors (an unclosed tag,
// string or comment, an unexpected character) name the line and column.
Expected<std::vector<Token>> Lex(std::string_view source);

}  // namespace crux::chat_template
