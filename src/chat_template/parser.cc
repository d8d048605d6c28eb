// Jinja's grammar, one function per precedence level, following Jinja2's parser:
//   tuple     := condexpr ("," condexpr)*
//   condexpr  := or ("if" or ("else" condexpr)?)*
//   or        := and ("or" and)*          and := not ("and" not)*
//   not       := "not" not | compare      compare := math1 (cmp math1)*
//   math1     := concat (("+"|"-") concat)*    concat := math2 ("~" math2)*
//   math2     := pow (("*"|"/"|"//"|"%") pow)*  pow := unary ("**" unary)*
//   unary     := ("-"|"+") unary | primary postfix* (filter | test | call)*
#include "chat_template/parser.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "chat_template/builtins.h"

namespace crux::chat_template {
namespace {

struct ParseFailure {
  std::string message;
  int line;
  int column;
};

using ExprPtr = std::unique_ptr<Expr>;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  std::vector<Stmt> ParseRoot() {
    std::vector<Stmt> body = ParseBody({});
    if (Peek().kind != TokenKind::kEnd) Fail(Peek(), "unexpected tag");
    return body;
  }

 private:
  // Tokens.
  const Token& Peek(size_t ahead = 0) const {
    const size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool IsOp(std::string_view op, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kOperator && Peek(ahead).text == op;
  }
  bool IsName(std::string_view name, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kName && Peek(ahead).text == name;
  }
  bool SkipOp(std::string_view op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  bool SkipName(std::string_view name) {
    if (!IsName(name)) return false;
    Next();
    return true;
  }
  [[noreturn]] void Fail(const Token& at, const std::string& message) const {
    throw ParseFailure{message, at.line, at.column};
  }
  void ExpectOp(std::string_view op) {
    if (!SkipOp(op)) Fail(Peek(), "expected '" + std::string(op) + "', got " + Describe(Peek()));
  }
  std::string ExpectName() {
    if (Peek().kind != TokenKind::kName) Fail(Peek(), "expected a name, got " + Describe(Peek()));
    return Next().text;
  }
  void ExpectBlockEnd() {
    if (Peek().kind != TokenKind::kBlockEnd) {
      Fail(Peek(), "expected end of statement block, got " + Describe(Peek()));
    }
    Next();
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::kEnd:
        return "end of template";
      case TokenKind::kBlockEnd:
        return "end of statement block";
      case TokenKind::kVarEnd:
        return "end of print statement";
      case TokenKind::kString:
        return "string";
      default:
        return "'" + t.text + "'";
    }
  }
  ExprPtr Make(ExprKind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : parser(p) {
      if (++parser.depth_ > kMaxParseDepth) parser.Fail(parser.Peek(), "nesting too deep");
    }
    ~DepthGuard() { --parser.depth_; }
    Parser& parser;
  };

  // Statements.
  std::vector<Stmt> ParseBody(std::initializer_list<std::string_view> ends);
  // The body of a macro or a call block, up to `end`: a new scope, where `break` and
  // `continue` see no loop and a conditional around the definition does not apply.
  std::vector<Stmt> ParseScopeBody(std::string_view end);
  bool AtEnd(std::initializer_list<std::string_view> ends) const;
  void ParseStatement(std::vector<Stmt>& body);
  Stmt ParseIf(const Token& at);
  Stmt ParseFor(const Token& at);
  Stmt ParseSet(const Token& at);
  Stmt ParseMacro(const Token& at);
  Stmt ParseCallBlock(const Token& at);
  Stmt ParseFilterBlock(const Token& at);
  Stmt ParseScope(const Token& at, std::string_view end);
  void ParseParams(Stmt& stmt);
  void ExpectEnd(std::string_view name);
  ExprPtr ParseAssignTarget(bool with_namespace, std::string_view extra_end);
  ExprPtr ParseFilterChain(ExprPtr subject);
  void MarkUses(Stmt& macro);

  // Expressions.
  ExprPtr ParseTuple(bool with_condexpr, bool explicit_parens, std::string_view extra_end = {});
  ExprPtr ParseExpression() { return ParseCondition(); }
  ExprPtr ParseCondition();
  ExprPtr ParseOr();
  ExprPtr ParseAnd();
  ExprPtr ParseNot();
  ExprPtr ParseCompare();
  ExprPtr ParseBinary(int level);
  ExprPtr ParseUnary(bool with_filter);
  ExprPtr ParsePrimary();
  ExprPtr ParseList(const Token& at);
  ExprPtr ParseDict(const Token& at);
  ExprPtr ParsePostfix(ExprPtr node);
  ExprPtr ParseSubscript(ExprPtr node);
  ExprPtr ParseSubscribed();
  ExprPtr ParseFilterExpr(ExprPtr node);
  ExprPtr ParseFilter(ExprPtr node, bool after_pipe = true);
  ExprPtr ParseTest(ExprPtr node);
  void ParseCallArgs(Expr& call);
  std::string ParseDottedName();
  void CheckCallee(Expr& e, bool is_filter, const Token& at);

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  int loop_depth_ = 0;
  bool soft_ = false;  // inside an `if` or a conditional expression
  // Unknown filters and tests not (yet) known to be inside a conditional expression.
  std::vector<std::pair<std::string, Token>> unknown_;
};

// Fills `s.chain` and `s.chain_ops` where `s.expr` is a chain of `~` or `+`.
void SetChain(Stmt& s) {
  const Expr& top = *s.expr;
  if (top.kind != ExprKind::kBinary || (top.name != "~" && top.name != "+")) return;
  const Expr* e = &top;
  for (; e->kind == ExprKind::kBinary && e->name == top.name; e = e->children[0].get()) {
    s.chain.push_back(e->children[1].get());
    s.chain_ops.push_back(e);
  }
  s.chain.push_back(e);
  s.chain_ops.push_back(nullptr);
  std::reverse(s.chain.begin(), s.chain.end());
  std::reverse(s.chain_ops.begin(), s.chain_ops.end());
}

// Whether `e` is made of literals alone (what Jinja2's optimizer folds).
bool IsConstant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      return true;
    case ExprKind::kList:
    case ExprKind::kTuple:
    case ExprKind::kDict:
    case ExprKind::kNeg:
    case ExprKind::kPos:
    case ExprKind::kNot:
    case ExprKind::kBinary:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kCompare:
    case ExprKind::kGetItem:
    case ExprKind::kGetAttr:
    case ExprKind::kSlice:
    case ExprKind::kTest:
      for (const auto& child : e.children) {
        if (child && !IsConstant(*child)) return false;
      }
      return true;
    default:
      return false;
  }
}

bool Parser::AtEnd(std::initializer_list<std::string_view> ends) const {
  if (Peek().kind != TokenKind::kBlockBegin || Peek(1).kind != TokenKind::kName) return false;
  for (std::string_view end : ends) {
    if (Peek(1).text == end) return true;
  }
  return false;
}

std::vector<Stmt> Parser::ParseScopeBody(std::string_view end) {
  const bool saved = soft_;
  const int saved_loops = loop_depth_;
  soft_ = false;
  loop_depth_ = 0;
  std::vector<Stmt> body = ParseBody({end});
  soft_ = saved;
  loop_depth_ = saved_loops;
  return body;
}

std::vector<Stmt> Parser::ParseBody(std::initializer_list<std::string_view> ends) {
  DepthGuard guard(*this);
  std::vector<Stmt> body;
  while (true) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kEnd) {
      if (ends.size() == 0) return body;
      Fail(t, "unexpected end of template, expected '" + std::string(*ends.begin()) + "'");
    }
    if (AtEnd(ends)) {
      Next();  // {%
      return body;
    }
    if (t.kind == TokenKind::kData) {
      Stmt s;
      s.kind = StmtKind::kData;
      s.text = Next().text;
      body.push_back(std::move(s));
    } else if (t.kind == TokenKind::kVarBegin) {
      Next();
      Stmt s;
      s.kind = StmtKind::kOutput;
      s.line = t.line;
      s.column = t.column;
      const size_t unknown_before = unknown_.size();
      s.expr = ParseTuple(true, false);
      if (Peek().kind != TokenKind::kVarEnd) Fail(Peek(), "expected '}}', got " + Describe(Peek()));
      Next();
      if (unknown_.size() > unknown_before) Fail(unknown_.back().second, unknown_.back().first);
      if (s.expr->kind == ExprKind::kSlice) {
        s.expr->constant_subject = IsConstant(*s.expr->children[0]);
      }
      SetChain(s);
      body.push_back(std::move(s));
    } else {
      Next();
      ParseStatement(body);
    }
  }
}

void Parser::ExpectEnd(std::string_view name) {
  if (!SkipName(name)) Fail(Peek(), "expected '" + std::string(name) + "'");
  ExpectBlockEnd();
}

void Parser::ParseStatement(std::vector<Stmt>& body) {
  const Token at = Peek();
  if (at.kind != TokenKind::kName) Fail(at, "tag name expected");
  const std::string& name = at.text;
  Next();
  const size_t unknown_before = unknown_.size();
  if (name == "if") {
    body.push_back(ParseIf(at));
  } else if (name == "for") {
    body.push_back(ParseFor(at));
  } else if (name == "set") {
    body.push_back(ParseSet(at));
  } else if (name == "macro") {
    body.push_back(ParseMacro(at));
  } else if (name == "call") {
    body.push_back(ParseCallBlock(at));
  } else if (name == "filter") {
    body.push_back(ParseFilterBlock(at));
  } else if (name == "generation") {
    body.push_back(ParseScope(at, "endgeneration"));
  } else if (name == "break" || name == "continue") {
    if (loop_depth_ == 0) Fail(at, "'" + name + "' outside loop");
    Stmt s;
    s.kind = name == "break" ? StmtKind::kBreak : StmtKind::kContinue;
    ExpectBlockEnd();
    body.push_back(std::move(s));
  } else {
    Fail(at, "unknown tag '" + name + "'");
  }
  if (unknown_.size() > unknown_before) {
    const auto& [what, token] = unknown_[unknown_before];
    Fail(token, what);
  }
}

Stmt Parser::ParseIf(const Token& at) {
  const bool saved = soft_;
  soft_ = true;
  Stmt s;
  s.kind = StmtKind::kIf;
  s.line = at.line;
  s.column = at.column;
  s.expr = ParseTuple(false, false);
  ExpectBlockEnd();
  s.body = ParseBody({"elif", "else", "endif"});
  const Token& end = Next();
  if (end.text == "elif") {
    s.else_body.push_back(ParseIf(end));
  } else if (end.text == "else") {
    ExpectBlockEnd();
    s.else_body = ParseBody({"endif"});
    ExpectEnd("endif");
  } else {
    ExpectBlockEnd();
  }
  soft_ = saved;
  return s;
}

Stmt Parser::ParseFor(const Token& at) {
  Stmt s;
  s.kind = StmtKind::kFor;
  s.line = at.line;
  s.column = at.column;
  s.target = ParseAssignTarget(false, "in");
  if (!SkipName("in")) Fail(Peek(), "expected 'in'");
  s.expr = ParseTuple(false, false, "recursive");
  const bool saved = soft_;
  soft_ = false;
  if (SkipName("if")) s.condition = ParseExpression();
  if (IsName("recursive")) Fail(Peek(), "recursive loops are not supported");
  ExpectBlockEnd();
  ++loop_depth_;
  const size_t body_start = pos_;
  s.body = ParseBody({"endfor", "else"});
  --loop_depth_;
  for (size_t i = body_start; i < pos_ && !s.uses_loop; ++i)
    s.uses_loop = tokens_[i].kind == TokenKind::kName && tokens_[i].text == "loop";
  if (Next().text == "else") {
    ExpectBlockEnd();
    s.else_body = ParseBody({"endfor"});
    ExpectEnd("endfor");
  } else {
    ExpectBlockEnd();
  }
  soft_ = saved;
  return s;
}

ExprPtr Parser::ParseAssignTarget(bool with_namespace, std::string_view extra_end) {
  const Token at = Peek();
  if (with_namespace && Peek().kind == TokenKind::kName && IsOp(".", 1) &&
      Peek(2).kind == TokenKind::kName) {
    auto ns = Make(ExprKind::kGetAttr, at);
    auto base = Make(ExprKind::kName, at);
    base->name = Next().text;
    Next();
    ns->name = Next().text;
    ns->children.push_back(std::move(base));
    return ns;
  }
  std::vector<ExprPtr> names;
  bool is_tuple = false;
  while (true) {
    if (!names.empty()) ExpectOp(",");
    if (Peek().kind == TokenKind::kBlockEnd || IsOp("=") || IsOp("|") ||
        (!extra_end.empty() && IsName(extra_end))) {
      break;
    }
    const Token t = Peek();
    if (t.kind != TokenKind::kName || t.text == "true" || t.text == "false" || t.text == "none" ||
        t.text == "True" || t.text == "False" || t.text == "None") {
      Fail(t, "can't assign to " + Describe(t));
    }
    auto name = Make(ExprKind::kName, t);
    name->name = Next().text;
    names.push_back(std::move(name));
    if (!IsOp(",")) break;
    is_tuple = true;
  }
  if (names.empty()) Fail(at, "expected an assignment target");
  if (!is_tuple) return std::move(names[0]);
  auto tuple = Make(ExprKind::kTuple, at);
  tuple->children = std::move(names);
  return tuple;
}

Stmt Parser::ParseSet(const Token& at) {
  Stmt s;
  s.line = at.line;
  s.column = at.column;
  s.target = ParseAssignTarget(true, {});
  if (SkipOp("=")) {
    s.kind = StmtKind::kSet;
    s.expr = ParseTuple(true, false);
    ExpectBlockEnd();
    SetChain(s);
    return s;
  }
  s.kind = StmtKind::kSetBlock;
  if (IsOp("|")) s.expr = ParseFilterChain(nullptr);
  ExpectBlockEnd();
  const bool saved = soft_;
  soft_ = false;
  s.body = ParseBody({"endset"});
  soft_ = saved;
  ExpectEnd("endset");
  return s;
}

// `| f(args) | g` applied to `subject` (null: the text of the enclosing block).
ExprPtr Parser::ParseFilterChain(ExprPtr subject) {
  if (!subject) subject = Make(ExprKind::kBlockValue, Peek());
  while (IsOp("|"))
    subject = ParseFilter(std::move(subject));
  return subject;
}

void Parser::ParseParams(Stmt& stmt) {
  ExpectOp("(");
  while (!IsOp(")")) {
    if (!stmt.params.empty()) ExpectOp(",");
    if (IsOp(")")) break;
    const Token t = Peek();
    stmt.params.push_back(ExpectName());
    if (SkipOp("=")) {
      stmt.defaults.push_back(ParseExpression());
    } else {
      if (!stmt.defaults.empty() && stmt.defaults.back()) {
        Fail(t, "non-default argument follows default argument");
      }
      stmt.defaults.push_back(nullptr);
    }
  }
  ExpectOp(")");
}

Stmt Parser::ParseMacro(const Token& at) {
  Stmt s;
  s.kind = StmtKind::kMacro;
  s.line = at.line;
  s.column = at.column;
  s.text = ExpectName();
  ParseParams(s);
  ExpectBlockEnd();
  s.body = ParseScopeBody("endmacro");
  ExpectEnd("endmacro");
  MarkUses(s);
  return s;
}

Stmt Parser::ParseCallBlock(const Token& at) {
  Stmt s;
  s.kind = StmtKind::kCallBlock;
  s.line = at.line;
  s.column = at.column;
  if (IsOp("(")) ParseParams(s);
  s.expr = ParseExpression();
  if (s.expr->kind != ExprKind::kCall) Fail(at, "expected call");
  ExpectBlockEnd();
  s.body = ParseScopeBody("endcall");
  ExpectEnd("endcall");
  MarkUses(s);
  return s;
}

Stmt Parser::ParseFilterBlock(const Token& at) {
  Stmt s;
  s.kind = StmtKind::kFilterBlock;
  s.line = at.line;
  s.column = at.column;
  auto first = Make(ExprKind::kBlockValue, at);
  s.expr = ParseFilter(std::move(first), false);
  s.expr = ParseFilterChain(std::move(s.expr));
  ExpectBlockEnd();
  const bool saved = soft_;
  soft_ = false;
  s.body = ParseBody({"endfilter"});
  soft_ = saved;
  ExpectEnd("endfilter");
  return s;
}

Stmt Parser::ParseScope(const Token& at, std::string_view end) {
  Stmt s;
  s.kind = StmtKind::kScope;
  s.line = at.line;
  s.column = at.column;
  ExpectBlockEnd();
  const int saved_loops = loop_depth_;
  loop_depth_ = 0;  // the body is a function in Jinja2: no break out of it
  s.body = ParseBody({end});
  loop_depth_ = saved_loops;
  ExpectEnd(end);
  return s;
}

// Whether a macro body names caller, varargs or kwargs (anywhere: a conservative scan of the
// tokens it was parsed from is enough, as Jinja2 also looks at every name in the body).
void Parser::MarkUses(Stmt& macro) {
  size_t i = pos_;
  int nesting = 0;
  while (i > 0) {
    --i;
    const Token& t = tokens_[i];
    if (t.kind != TokenKind::kName) continue;
    if (t.text == "endmacro" || t.text == "endcall") ++nesting;
    if ((t.text == "macro" || t.text == "call") && tokens_[i - 1].kind == TokenKind::kBlockBegin) {
      if (--nesting == 0) break;
    }
    if (t.text == "caller") macro.uses_caller = true;
    if (t.text == "varargs") macro.uses_varargs = true;
    if (t.text == "kwargs") macro.uses_kwargs = true;
  }
}

}  // namespace

namespace {

ExprPtr Parser::ParseTuple(bool with_condexpr, bool explicit_parens, std::string_view extra_end) {
  const Token at = Peek();
  std::vector<ExprPtr> items;
  bool is_tuple = false;
  while (true) {
    if (!items.empty()) ExpectOp(",");
    const Token& t = Peek();
    if (t.kind == TokenKind::kVarEnd || t.kind == TokenKind::kBlockEnd || IsOp(")") ||
        (!extra_end.empty() && IsName(extra_end))) {
      break;
    }
    items.push_back(with_condexpr ? ParseExpression() : ParseOr());
    if (!IsOp(",")) break;
    is_tuple = true;
  }
  if (!is_tuple) {
    if (!items.empty()) return std::move(items[0]);
    if (!explicit_parens) Fail(at, "expected an expression, got " + Describe(at));
  }
  auto tuple = Make(ExprKind::kTuple, at);
  tuple->children = std::move(items);
  return tuple;
}

ExprPtr Parser::ParseCondition() {
  DepthGuard guard(*this);
  const Token at = Peek();
  const size_t unknown_before = unknown_.size();
  ExprPtr expr = ParseOr();
  while (SkipName("if")) {
    const bool saved = soft_;
    soft_ = true;
    unknown_.resize(unknown_before);  // the value half is conditional too
    auto cond = Make(ExprKind::kCondition, at);
    cond->children.push_back(ParseOr());
    cond->children.push_back(std::move(expr));
    cond->children.push_back(SkipName("else") ? ParseCondition() : nullptr);
    soft_ = saved;
    expr = std::move(cond);
  }
  return expr;
}

ExprPtr Parser::ParseOr() {
  ExprPtr left = ParseAnd();
  while (IsName("or")) {
    auto e = Make(ExprKind::kOr, Next());
    e->children.push_back(std::move(left));
    e->children.push_back(ParseAnd());
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseAnd() {
  ExprPtr left = ParseNot();
  while (IsName("and")) {
    auto e = Make(ExprKind::kAnd, Next());
    e->children.push_back(std::move(left));
    e->children.push_back(ParseNot());
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseNot() {
  if (IsName("not")) {
    DepthGuard guard(*this);
    auto e = Make(ExprKind::kNot, Next());
    e->children.push_back(ParseNot());
    return e;
  }
  return ParseCompare();
}

ExprPtr Parser::ParseCompare() {
  const Token at = Peek();
  ExprPtr first = ParseBinary(0);
  ExprPtr cmp;
  static const std::pair<std::string_view, CompareOp> ops[] = {
      {"==", CompareOp::kEq}, {"!=", CompareOp::kNe}, {"<", CompareOp::kLt},
      {"<=", CompareOp::kLe}, {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
  while (true) {
    std::optional<CompareOp> op;
    for (const auto& [text, value] : ops) {
      if (IsOp(text)) op = value;
    }
    if (op) {
      Next();
    } else if (IsName("in")) {
      Next();
      op = CompareOp::kIn;
    } else if (IsName("not") && IsName("in", 1)) {
      Next();
      Next();
      op = CompareOp::kNotIn;
    } else {
      break;
    }
    if (!cmp) {
      cmp = Make(ExprKind::kCompare, at);
      cmp->children.push_back(std::move(first));
    }
    cmp->compare_ops.push_back(*op);
    cmp->children.push_back(ParseBinary(0));
  }
  return cmp ? std::move(cmp) : std::move(first);
}

// Levels 0..3: + -, ~, * / // %, **.
ExprPtr Parser::ParseBinary(int level) {
  static const std::vector<std::string_view> levels[] = {
      {"+", "-"}, {"~"}, {"*", "/", "//", "%"}, {"**"}};
  auto operand = [&] { return level == 3 ? ParseUnary(true) : ParseBinary(level + 1); };
  ExprPtr left = operand();
  while (true) {
    const Token& t = Peek();
    bool match = false;
    for (std::string_view op : levels[level])
      match = match || IsOp(op);
    if (!match) return left;
    auto e = Make(ExprKind::kBinary, Next());
    e->name = t.text;
    e->children.push_back(std::move(left));
    e->children.push_back(operand());
    left = std::move(e);
  }
}

ExprPtr Parser::ParseUnary(bool with_filter) {
  DepthGuard guard(*this);
  ExprPtr node;
  if (IsOp("-") || IsOp("+")) {
    const ExprKind kind = IsOp("-") ? ExprKind::kNeg : ExprKind::kPos;
    node = Make(kind, Next());
    node->children.push_back(ParseUnary(false));
  } else {
    node = ParsePrimary();
  }
  node = ParsePostfix(std::move(node));
  if (with_filter) node = ParseFilterExpr(std::move(node));
  return node;
}

ExprPtr Parser::ParsePrimary() {
  const Token t = Peek();
  if (t.kind == TokenKind::kName) {
    Next();
    if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False" ||
        t.text == "none" || t.text == "None") {
      auto e = Make(ExprKind::kLiteral, t);
      e->literal = t.text == "none" || t.text == "None"
                       ? Value::None()
                       : Value(t.text == "true" || t.text == "True");
      return e;
    }
    auto e = Make(ExprKind::kName, t);
    e->name = t.text;
    return e;
  }
  if (t.kind == TokenKind::kString) {
    std::string text;
    while (Peek().kind == TokenKind::kString)
      text += Next().text;
    auto e = Make(ExprKind::kLiteral, t);
    e->literal = Value(std::move(text));
    return e;
  }
  if (t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat) {
    Next();
    auto e = Make(ExprKind::kLiteral, t);
    e->literal = t.kind == TokenKind::kInteger ? Value(t.integer) : Value(t.number);
    return e;
  }
  if (IsOp("(")) {
    Next();
    ExprPtr e = ParseTuple(true, true);
    ExpectOp(")");
    return e;
  }
  if (IsOp("[")) return ParseList(Next());
  if (IsOp("{")) return ParseDict(Next());
  Fail(t, "unexpected " + Describe(t));
}

ExprPtr Parser::ParseList(const Token& at) {
  auto e = Make(ExprKind::kList, at);
  while (!IsOp("]")) {
    if (!e->children.empty()) ExpectOp(",");
    if (IsOp("]")) break;
    e->children.push_back(ParseExpression());
  }
  ExpectOp("]");
  return e;
}

ExprPtr Parser::ParseDict(const Token& at) {
  auto e = Make(ExprKind::kDict, at);
  while (!IsOp("}")) {
    if (!e->children.empty()) ExpectOp(",");
    if (IsOp("}")) break;
    e->children.push_back(ParseExpression());
    ExpectOp(":");
    e->children.push_back(ParseExpression());
  }
  ExpectOp("}");
  return e;
}

ExprPtr Parser::ParsePostfix(ExprPtr node) {
  while (true) {
    if (IsOp(".") || IsOp("[")) {
      node = ParseSubscript(std::move(node));
    } else if (IsOp("(")) {
      auto call = Make(ExprKind::kCall, Peek());
      call->children.push_back(std::move(node));
      ParseCallArgs(*call);
      node = std::move(call);
    } else {
      return node;
    }
  }
}

ExprPtr Parser::ParseSubscript(ExprPtr node) {
  const Token at = Next();
  if (at.text == ".") {
    const Token& t = Peek();
    if (t.kind == TokenKind::kName) {
      auto e = Make(ExprKind::kGetAttr, at);
      e->name = Next().text;
      e->children.push_back(std::move(node));
      return e;
    }
    if (t.kind != TokenKind::kInteger) Fail(t, "expected name or number");
    auto e = Make(ExprKind::kGetItem, at);
    e->children.push_back(std::move(node));
    auto index = Make(ExprKind::kLiteral, t);
    index->literal = Value(Next().integer);
    e->children.push_back(std::move(index));
    return e;
  }
  std::vector<ExprPtr> args;
  while (!IsOp("]")) {
    if (!args.empty()) {
      ExpectOp(",");
      if (IsOp("]")) break;
    }
    args.push_back(ParseSubscribed());
  }
  ExpectOp("]");
  if (args.empty()) Fail(at, "expected a subscript");
  if (args.size() == 1 && args[0]->kind == ExprKind::kSlice) {
    args[0]->children[0] = std::move(node);
    return std::move(args[0]);
  }
  auto e = Make(ExprKind::kGetItem, at);
  e->children.push_back(std::move(node));
  if (args.size() == 1) {
    e->children.push_back(std::move(args[0]));
  } else {
    auto tuple = Make(ExprKind::kTuple, at);
    tuple->children = std::move(args);
    e->children.push_back(std::move(tuple));
  }
  return e;
}

// One subscript: an expression or a slice [start]:[stop][:[step]].
ExprPtr Parser::ParseSubscribed() {
  const Token at = Peek();
  ExprPtr start;
  if (!IsOp(":")) {
    start = ParseExpression();
    if (!IsOp(":")) return start;
  }
  Next();
  auto slice = Make(ExprKind::kSlice, at);
  slice->children.push_back(nullptr);  // the subject, set by ParseSubscript
  slice->children.push_back(std::move(start));
  auto bound = [&]() -> ExprPtr {
    if (IsOp("]") || IsOp(",") || IsOp(":")) return nullptr;
    return ParseExpression();
  };
  slice->children.push_back(bound());
  slice->children.push_back(SkipOp(":") ? bound() : nullptr);
  return slice;
}

void Parser::ParseCallArgs(Expr& call) {
  ExpectOp("(");
  bool first = true;
  while (!IsOp(")")) {
    if (!first) ExpectOp(",");
    first = false;
    if (IsOp(")")) break;
    if (IsOp("*") || IsOp("**")) Fail(Peek(), "*args and **kwargs calls are not supported");
    if (Peek().kind == TokenKind::kName && IsOp("=", 1)) {
      call.keyword_names.push_back(Next().text);
      Next();
      call.children.push_back(ParseExpression());
      continue;
    }
    if (!call.keyword_names.empty()) Fail(Peek(), "positional argument follows keyword argument");
    call.children.push_back(ParseExpression());
  }
  ExpectOp(")");
}

ExprPtr Parser::ParseFilterExpr(ExprPtr node) {
  while (true) {
    if (IsOp("|")) {
      node = ParseFilter(std::move(node));
    } else if (IsName("is")) {
      node = ParseTest(std::move(node));
    } else if (IsOp("(")) {
      auto call = Make(ExprKind::kCall, Peek());
      call->children.push_back(std::move(node));
      ParseCallArgs(*call);
      node = std::move(call);
    } else {
      return node;
    }
  }
}

std::string Parser::ParseDottedName() {
  std::string name = ExpectName();
  while (SkipOp(".")) {
    name += '.';
    name += ExpectName();
  }
  return name;
}

void Parser::CheckCallee(Expr& e, bool is_filter, const Token& at) {
  if (is_filter) {
    e.filter = FindFilter(e.name);
  } else {
    e.test = FindTest(e.name);
  }
  if (e.filter || e.test || soft_) return;
  unknown_.emplace_back(
      std::string("no ") + (is_filter ? "filter" : "test") + " named '" + e.name + "'", at);
}

ExprPtr Parser::ParseFilter(ExprPtr node, bool after_pipe) {
  const Token at = after_pipe ? Next() : Peek();  // the |, or the name in {% filter %}
  auto e = Make(ExprKind::kFilter, at);
  e->name = ParseDottedName();
  e->children.push_back(std::move(node));
  if (IsOp("(")) ParseCallArgs(*e);
  CheckCallee(*e, true, at);
  return e;
}

ExprPtr Parser::ParseTest(ExprPtr node) {
  const Token at = Next();  // is
  auto e = Make(ExprKind::kTest, at);
  e->negated = SkipName("not");
  e->name = ParseDottedName();
  e->children.push_back(std::move(node));
  const Token& t = Peek();
  if (IsOp("(")) {
    ParseCallArgs(*e);
  } else if ((t.kind == TokenKind::kName || t.kind == TokenKind::kString ||
              t.kind == TokenKind::kInteger || t.kind == TokenKind::kFloat || IsOp("(") ||
              IsOp("[") || IsOp("{")) &&
             !IsName("else") && !IsName("or") && !IsName("and")) {
    if (IsName("is")) Fail(t, "you cannot chain multiple tests with is");
    e->children.push_back(ParsePostfix(ParsePrimary()));
  }
  CheckCallee(*e, false, at);
  return e;
}

}  // namespace

Expected<std::vector<Stmt>> ParseTemplate(std::vector<Token> tokens) {
  try {
    return Parser(std::move(tokens)).ParseRoot();
  } catch (const ParseFailure& failure) {
    return Error(ErrorCode::kParse, "line " + std::to_string(failure.line) + ", column " +
                                        std::to_string(failure.column) + ": " + failure.message);
  }
}

}  // namespace crux::chat_template
