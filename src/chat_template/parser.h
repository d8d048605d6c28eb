// The Jinja parser: tokens → statements, with Jinja2's grammar and precedence (filters and
// `is` tests bind tighter than arithmetic; `**` is left-associative; a conditional without
// `else` yields undefined). Unknown filters and tests are errors here unless they sit inside
// an `if` or a conditional expression, where Jinja2 defers them to render time.
#pragma once

#include <vector>

#include "chat_template/ast.h"
#include "chat_template/lexer.h"
#include "crux/base/error.h"

namespace crux::chat_template {

// Limits the nesting of statements and expressions (deeper input is an error, not a crash).
inline constexpr int kMaxParseDepth = 200;

Expected<std::vector<Stmt>> ParseTemplate(std::vector<Token> tokens);

}  // namespace crux::chat_template
