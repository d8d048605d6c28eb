// The parsed template: expressions and statements as Jinja2's parser builds them. Owned by
// the Template; the renderer walks it without changing it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "chat_template/function.h"
#include "crux/chat_template/value.h"

namespace crux::chat_template {

enum class ExprKind : uint8_t {
  kLiteral,     // literal
  kName,        // name
  kList,        // children: items
  kTuple,       // children: items
  kDict,        // children: key, value, key, value, …
  kGetAttr,     // children[0].name
  kGetItem,     // children[0][children[1]]
  kSlice,       // children[0][children[1]:children[2]:children[3]] (null parts absent)
  kCall,        // children[0](args)
  kFilter,      // children[0] | name(args); children[0] null inside {% filter %} / block set
  kTest,        // children[0] is name(args); negated with `is not`
  kNeg,         // -children[0]
  kPos,         // +children[0]
  kNot,         // not children[0]
  kBinary,      // children[0] op children[1]; op in name ("+", "-", "*", "/", "//", "%", "**", "~")
  kAnd,         // children[0] and children[1]
  kOr,          // children[0] or children[1]
  kCompare,     // children[0] ops[0] children[1] ops[1] children[2] …
  kCondition,   // children[1] if children[0] else children[2] (children[2] may be null)
  kBlockValue,  // the text a {% filter %} block or a block set rendered
};

enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  int line = 0;
  int column = 0;
  std::string name;
  Value literal;
  bool negated = false;  // `is not`
  // A slice that is a whole {{ }} expression over a subject made of literals alone: Jinja2
  // folds it at compile time through the sandbox's getitem, so it yields undefined where a
  // slice elsewhere raises.
  bool constant_subject = false;
  std::vector<std::unique_ptr<Expr>> children;
  // Calls, filters and tests: the arguments are children[1..]; the last keyword_names.size()
  // of them are keyword arguments with these names.
  std::vector<std::string> keyword_names;
  std::vector<CompareOp> compare_ops;
  // Filters and tests: resolved at parse time (null when the name is unknown, which raises
  // when evaluated, as Jinja2 does for a filter used only inside an `if`).
  FilterFn filter = nullptr;
  TestFn test = nullptr;
};

enum class StmtKind : uint8_t {
  kData,         // text
  kOutput,       // {{ expr }}
  kIf,           // expr, body, else_body (an elif is an If alone in else_body)
  kFor,          // target in expr [if condition]: body, else_body
  kSet,          // target = expr
  kSetBlock,     // {% set target [| filter] %}body{% endset %}; filter in expr (may be null)
  kMacro,        // name(params = defaults): body
  kCallBlock,    // {% call(params) expr %}body{% endcall %}
  kFilterBlock,  // {% filter expr %}body{% endfilter %}
  kBreak,
  kContinue,
  kScope,  // a block that renders its body ({% generation %})
};

struct Stmt {
  StmtKind kind = StmtKind::kData;
  int line = 0;
  int column = 0;
  std::string text;
  std::unique_ptr<Expr> expr;
  std::unique_ptr<Expr> target;
  std::unique_ptr<Expr> condition;
  std::vector<Stmt> body;
  std::vector<Stmt> else_body;
  std::vector<std::string> params;
  std::vector<std::unique_ptr<Expr>> defaults;  // aligned to params; null where none
  // Macros: whether the body reads `caller`, `varargs` or `kwargs` (Jinja2 accepts extra
  // arguments only then).
  bool uses_caller = false;
  bool uses_varargs = false;
  bool uses_kwargs = false;
  // Loops: whether the body names `loop` (else the renderer does not build it).
  bool uses_loop = false;
  // Output and set: where expr is a chain of one operator, `~` or `+` (`a ~ b ~ c`, which
  // Jinja2 parses as `((a ~ b) ~ c)`), its operands left to right and the operator node
  // before each (null for the first); empty otherwise. They point into expr.
  std::vector<const Expr*> chain;
  std::vector<const Expr*> chain_ops;
};

}  // namespace crux::chat_template
