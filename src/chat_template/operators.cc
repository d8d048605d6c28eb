// Python's arithmetic, concatenation, ordering and membership over template values.
#include <cmath>
#include <limits>

#include "chat_template/args.h"
#include "chat_template/python.h"
#include "chat_template/renderer.h"

namespace crux::chat_template {
namespace {

bool IsIntLike(const Value& v) {
  return v.kind() == Value::Kind::kInt || v.kind() == Value::Kind::kBool;
}

int64_t IntOf(const Value& v) {
  return v.kind() == Value::Kind::kInt ? v.as_int() : v.as_bool();
}

[[noreturn]] void Unsupported(Renderer& renderer, std::string_view op, const Value& a,
                              const Value& b) {
  if (a.is_undefined()) renderer.Fail("'" + a.undefined_hint() + "' is undefined");
  if (b.is_undefined()) renderer.Fail("'" + b.undefined_hint() + "' is undefined");
  renderer.Fail("unsupported operand type(s) for " + std::string(op) + ": '" +
                std::string(a.TypeName()) + "' and '" + std::string(b.TypeName()) + "'");
}

// a op b for + - *, raising on int64 overflow (Python's ints are unbounded; templates never
// need more).
int64_t Checked(Renderer& renderer, char op, int64_t a, int64_t b) {
  int64_t r = 0;
  const bool overflow = op == '+'   ? __builtin_add_overflow(a, b, &r)
                        : op == '-' ? __builtin_sub_overflow(a, b, &r)
                                    : __builtin_mul_overflow(a, b, &r);
  if (overflow) renderer.Fail("integer overflow", ErrorCode::kLimit);
  return r;
}

Value IntPower(Renderer& renderer, int64_t base, int64_t exponent) {
  if (exponent < 0)
    return Value(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  int64_t result = 1;
  for (int64_t i = 0; i < exponent; ++i) {
    result = Checked(renderer, '*', result, base);
    if (result == 0 || result == 1) break;
    if (result == -1) return Value((exponent - i - 1) % 2 == 0 ? int64_t{-1} : int64_t{1});
  }
  return Value(result);
}

Value IntArithmetic(Renderer& renderer, std::string_view op, int64_t a, int64_t b) {
  if (op == "+" || op == "-" || op == "*") return Value(Checked(renderer, op[0], a, b));
  if (op == "**") return IntPower(renderer, a, b);
  if (b == 0) {
    renderer.Fail(op == "/" ? "division by zero" : "integer division or modulo by zero");
  }
  if (op == "/") return Value(static_cast<double>(a) / static_cast<double>(b));
  if (a == std::numeric_limits<int64_t>::min() && b == -1) {
    renderer.Fail("integer overflow", ErrorCode::kLimit);
  }
  int64_t q = a / b;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) {
    --q;
    m += b;
  }
  return op == "//" ? Value(q) : Value(m);
}

Value FloatArithmetic(Renderer& renderer, std::string_view op, double a, double b) {
  if (op == "+") return Value(a + b);
  if (op == "-") return Value(a - b);
  if (op == "*") return Value(a * b);
  if (op == "**") {
    if (a == 0 && b < 0) renderer.Fail("0.0 cannot be raised to a negative power");
    if (a < 0 && b != std::floor(b)) renderer.Fail("complex results are not supported");
    return Value(std::pow(a, b));
  }
  if (b == 0) renderer.Fail(op == "/" ? "float division by zero" : "float modulo");
  if (op == "/") return Value(a / b);
  // CPython's float divmod.
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (op == "%") return Value(mod);
  double floor_div = 0;
  if (div != 0) {
    floor_div = std::floor(div);
    if (div - floor_div > 0.5) floor_div += 1.0;
  } else {
    floor_div = std::copysign(0.0, a / b);
  }
  return Value(floor_div);
}

Value Repeat(Renderer& renderer, const Value& seq, int64_t times) {
  if (times <= 0) {
    if (seq.is_string()) return Value(std::string());
    return seq.kind() == Value::Kind::kList ? Value::List({}) : Value::Tuple({});
  }
  const size_t unit = seq.is_string() ? seq.as_string().size() : seq.items().size();
  if (unit != 0 &&
      static_cast<uint64_t>(times) > renderer.options().limits.max_output_bytes / unit) {
    renderer.Fail("repetition too large", ErrorCode::kLimit);
  }
  if (seq.is_string()) {
    std::string out;
    for (int64_t i = 0; i < times; ++i)
      out += seq.as_string();
    return Value(std::move(out));
  }
  SizeCap::Items(unit * static_cast<size_t>(times));  // at most max_output_bytes: no overflow
  std::vector<Value> items;
  for (int64_t i = 0; i < times; ++i)
    items.insert(items.end(), seq.items().begin(), seq.items().end());
  return seq.kind() == Value::Kind::kList ? Value::List(std::move(items))
                                          : Value::Tuple(std::move(items));
}

Value Concatenate(const Value& a, const Value& b) {
  if (a.is_markup() || b.is_markup()) {
    return Value::Markup((a.is_markup() ? a.as_string() : HtmlEscape(a.as_string())) +
                         (b.is_markup() ? b.as_string() : HtmlEscape(b.as_string())));
  }
  if (a.is_string()) {
    SizeCap::Bytes(a.as_string().size() + b.as_string().size());
    return Value(a.as_string() + b.as_string());
  }
  SizeCap::Items(a.items().size() + b.items().size());
  std::vector<Value> items = a.items();
  items.insert(items.end(), b.items().begin(), b.items().end());
  return a.kind() == Value::Kind::kList ? Value::List(std::move(items))
                                        : Value::Tuple(std::move(items));
}

}  // namespace

Value FormatPercent(Renderer& renderer, const Value& format, const Value& args);

Value BinaryOp(Renderer& renderer, std::string_view op, const Value& a, const Value& b) {
  if (op == "~") {
    std::string out = a.Str();
    b.AppendStr(out);
    SizeCap::Bytes(out.size());
    return Value(std::move(out));
  }
  if (a.is_number() && b.is_number()) {
    if (IsIntLike(a) && IsIntLike(b)) return IntArithmetic(renderer, op, IntOf(a), IntOf(b));
    return FloatArithmetic(renderer, op, a.as_number(), b.as_number());
  }
  if (op == "+" && a.kind() == b.kind() && a.flavor() == ListFlavor::kList &&
      b.flavor() == ListFlavor::kList &&
      (a.is_string() || a.kind() == Value::Kind::kList || a.kind() == Value::Kind::kTuple)) {
    return Concatenate(a, b);
  }
  if (op == "*") {
    auto repeatable = [](const Value& v) {
      return v.is_string() || (v.is_sequence() && v.flavor() == ListFlavor::kList);
    };
    if (repeatable(a) && IsIntLike(b)) return Repeat(renderer, a, IntOf(b));
    if (repeatable(b) && IsIntLike(a)) return Repeat(renderer, b, IntOf(a));
  }
  if (op == "%" && a.is_string()) return FormatPercent(renderer, a, b);
  Unsupported(renderer, op, a, b);
}

bool LessThan(Renderer& renderer, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (IsIntLike(a) && IsIntLike(b)) return IntOf(a) < IntOf(b);
    return a.as_number() < b.as_number();
  }
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
  if (a.is_sequence() && a.kind() == b.kind() && a.flavor() == ListFlavor::kList &&
      b.flavor() == ListFlavor::kList) {
    const auto& x = a.items();
    const auto& y = b.items();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!x[i].Equals(y[i])) return LessThan(renderer, x[i], y[i]);
    }
    return x.size() < y.size();
  }
  if (a.is_undefined()) renderer.Fail("'" + a.undefined_hint() + "' is undefined");
  if (b.is_undefined()) renderer.Fail("'" + b.undefined_hint() + "' is undefined");
  renderer.Fail("'<' not supported between instances of '" + std::string(a.TypeName()) + "' and '" +
                std::string(b.TypeName()) + "'");
}

bool Contains(Renderer& renderer, const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::kString:
      if (!item.is_string()) {
        renderer.Fail("'in <string>' requires string as left operand, not " +
                      std::string(item.TypeName()));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      for (const Value& v : renderer.Iterate(container)) {
        if (v.Equals(item)) return true;
      }
      return false;
    case Value::Kind::kDict:
      renderer.RequireHashable(item);
      return container.dict().Find(item) != nullptr;
    case Value::Kind::kUndefined:
      return false;
    default:
      renderer.Fail("argument of type '" + std::string(container.TypeName()) + "' is not iterable");
  }
}

}  // namespace crux::chat_template
