// Jinja2's builtin tests (`x is defined`, `x is string`, …), by name.
#include <cmath>
#include <unordered_map>

#include "chat_template/args.h"
#include "chat_template/builtins.h"

namespace crux::chat_template {
namespace {

Value Other(Renderer& r, CallArgs& args, std::string_view name) {
  Params p(r, args, name);
  Value other = p.Required(0, "other");
  p.Done();
  return other;
}

bool NoArgs(Renderer& r, CallArgs& args, std::string_view name) {
  Params(r, args, name).Done();
  return true;
}

bool TestDefined(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "defined") && !x.is_undefined();
}
bool TestUndefined(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "undefined") && x.is_undefined();
}
bool TestNone(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "none") && x.is_none();
}
bool TestString(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "string") && x.is_string();
}
bool TestMapping(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "mapping") && x.is_mapping();
}
bool TestNumber(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "number") && x.is_number();
}
bool TestBoolean(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "boolean") && x.kind() == Value::Kind::kBool;
}
bool TestInteger(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "integer") && x.kind() == Value::Kind::kInt;
}
bool TestFloat(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "float") && x.kind() == Value::Kind::kFloat;
}
bool TestTrue(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "true") && x.kind() == Value::Kind::kBool && x.as_bool();
}
bool TestFalse(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "false") && x.kind() == Value::Kind::kBool && !x.as_bool();
}
bool TestCallable(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "callable") && (x.kind() == Value::Kind::kFunction || x.is_undefined());
}
bool TestIterable(Renderer& r, const Value& x, CallArgs& a) {
  NoArgs(r, a, "iterable");
  return x.is_undefined() || x.is_string() || x.is_sequence() || x.is_mapping();
}
bool TestSequence(Renderer& r, const Value& x, CallArgs& a) {
  NoArgs(r, a, "sequence");
  return x.is_undefined() || x.is_string() || x.is_indexable() || x.is_mapping();
}
bool TestEscaped(Renderer& r, const Value&, CallArgs& a) {
  return !NoArgs(r, a, "escaped");
}

bool Remainder(Renderer& r, const Value& x, const Value& n, int64_t want) {
  const Value m = BinaryOp(r, "%", x, n);
  return m.Equals(Value(want));
}
bool TestOdd(Renderer& r, const Value& x, CallArgs& a) {
  NoArgs(r, a, "odd");
  return Remainder(r, x, Value(2), 1);
}
bool TestEven(Renderer& r, const Value& x, CallArgs& a) {
  NoArgs(r, a, "even");
  return Remainder(r, x, Value(2), 0);
}
bool TestDivisibleBy(Renderer& r, const Value& x, CallArgs& a) {
  Params p(r, a, "divisibleby");
  Value n = p.Required(0, "num");
  p.Done();
  return Remainder(r, x, n, 0);
}

bool TestEq(Renderer& r, const Value& x, CallArgs& a) {
  return x.Equals(Other(r, a, "eq"));
}
bool TestNe(Renderer& r, const Value& x, CallArgs& a) {
  return !x.Equals(Other(r, a, "ne"));
}
bool TestLt(Renderer& r, const Value& x, CallArgs& a) {
  return LessThan(r, x, Other(r, a, "lt"));
}
bool TestLe(Renderer& r, const Value& x, CallArgs& a) {
  return !LessThan(r, Other(r, a, "le"), x);
}
bool TestGt(Renderer& r, const Value& x, CallArgs& a) {
  return LessThan(r, Other(r, a, "gt"), x);
}
bool TestGe(Renderer& r, const Value& x, CallArgs& a) {
  return !LessThan(r, x, Other(r, a, "ge"));
}
bool TestIn(Renderer& r, const Value& x, CallArgs& a) {
  Params p(r, a, "in");
  Value seq = p.Required(0, "seq");
  p.Done();
  return Contains(r, seq, x);
}

bool TestSameAs(Renderer& r, const Value& x, CallArgs& a) {
  const Value other = Other(r, a, "sameas");
  if (x.kind() != other.kind()) return false;
  switch (x.kind()) {
    case Value::Kind::kNone:
    case Value::Kind::kUndefined:
      return x.kind() == Value::Kind::kNone;
    case Value::Kind::kBool:
      return x.as_bool() == other.as_bool();
    case Value::Kind::kInt:
      return x.as_int() == other.as_int() && x.as_int() >= -5 && x.as_int() <= 256;
    case Value::Kind::kString:
      return x.as_string() == other.as_string();
    case Value::Kind::kFloat:
      return false;
    default:
      return x.identity() == other.identity();
  }
}

bool HasCase(const Value& x, bool lower) {
  bool cased = false;
  for (char c : x.Str()) {
    if ((lower && c >= 'A' && c <= 'Z') || (!lower && c >= 'a' && c <= 'z')) return false;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) cased = true;
  }
  return cased;
}
bool TestLower(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "lower") && HasCase(x, true);
}
bool TestUpper(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "upper") && HasCase(x, false);
}
bool TestFilter(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "filter") && x.is_string() && FindFilter(x.as_string()) != nullptr;
}
bool TestTest(Renderer& r, const Value& x, CallArgs& a) {
  return NoArgs(r, a, "test") && x.is_string() && FindTest(x.as_string()) != nullptr;
}

const std::unordered_map<std::string_view, TestFn>& Tests() {
  static const std::unordered_map<std::string_view, TestFn> tests = {
      {"defined", TestDefined},
      {"undefined", TestUndefined},
      {"none", TestNone},
      {"string", TestString},
      {"mapping", TestMapping},
      {"number", TestNumber},
      {"boolean", TestBoolean},
      {"integer", TestInteger},
      {"float", TestFloat},
      {"true", TestTrue},
      {"false", TestFalse},
      {"callable", TestCallable},
      {"iterable", TestIterable},
      {"sequence", TestSequence},
      {"escaped", TestEscaped},
      {"odd", TestOdd},
      {"even", TestEven},
      {"divisibleby", TestDivisibleBy},
      {"eq", TestEq},
      {"equalto", TestEq},
      {"==", TestEq},
      {"ne", TestNe},
      {"!=", TestNe},
      {"lt", TestLt},
      {"lessthan", TestLt},
      {"<", TestLt},
      {"le", TestLe},
      {"<=", TestLe},
      {"gt", TestGt},
      {"greaterthan", TestGt},
      {">", TestGt},
      {"ge", TestGe},
      {">=", TestGe},
      {"in", TestIn},
      {"sameas", TestSameAs},
      {"lower", TestLower},
      {"upper", TestUpper},
      {"filter", TestFilter},
      {"test", TestTest},
  };
  return tests;
}

}  // namespace

TestFn FindTest(std::string_view name) {
  const auto& tests = Tests();
  auto it = tests.find(name);
  return it == tests.end() ? nullptr : it->second;
}

}  // namespace crux::chat_template
