// Expressions: Renderer::Eval and the attribute, item and call rules of Jinja2's sandbox.
#include <cmath>

#include "chat_template/builtins.h"
#include "chat_template/python.h"
#include "chat_template/renderer.h"

namespace crux::chat_template {

Value CallArgs::Take(size_t index, std::string_view name) {
  if (taken_.size() < positional.size()) taken_.resize(positional.size(), false);
  if (keyword_taken_.size() < keyword.size()) keyword_taken_.resize(keyword.size(), false);
  if (index < positional.size()) {
    taken_[index] = true;
    return positional[index];
  }
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (keyword[i].first == name) {
      keyword_taken_[i] = true;
      return keyword[i].second;
    }
  }
  return Value();
}

bool CallArgs::Has(size_t index, std::string_view name) const {
  if (index < positional.size()) return true;
  for (const auto& [key, value] : keyword) {
    if (key == name) return true;
  }
  return false;
}

bool CallArgs::Leftover() const {
  for (size_t i = 0; i < positional.size(); ++i) {
    if (i >= taken_.size() || !taken_[i]) return true;
  }
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (i >= keyword_taken_.size() || !keyword_taken_[i]) return true;
  }
  return false;
}

Value Renderer::Eval(const Expr& expr, const FramePtr& frame) {
  DepthGuard guard(*this);
  At(expr);
  switch (expr.kind) {
    case ExprKind::kLiteral:
      return expr.literal;
    case ExprKind::kName:
      return EvalName(expr, frame);
    case ExprKind::kList:
    case ExprKind::kTuple:
    case ExprKind::kDict:
      return EvalContainer(expr, frame);
    case ExprKind::kGetAttr:
      return EvalAttr(expr, frame);
    case ExprKind::kGetItem:
      return EvalItem(expr, frame);
    case ExprKind::kSlice:
      return EvalSlice(expr, frame);
    case ExprKind::kCall:
      return EvalCall(expr, frame);
    case ExprKind::kFilter:
      return EvalFilter(expr, frame);
    case ExprKind::kTest:
      return EvalTest(expr, frame);
    case ExprKind::kNeg:
    case ExprKind::kPos:
    case ExprKind::kNot:
      return EvalUnary(expr, frame);
    case ExprKind::kBinary: {
      Value a = Eval(*expr.children[0], frame);
      Value b = Eval(*expr.children[1], frame);
      At(expr);
      return BinaryOp(*this, expr.name, a, b);
    }
    case ExprKind::kAnd: {
      Value a = Eval(*expr.children[0], frame);
      return a.Truthy() ? Eval(*expr.children[1], frame) : a;
    }
    case ExprKind::kOr: {
      Value a = Eval(*expr.children[0], frame);
      return a.Truthy() ? a : Eval(*expr.children[1], frame);
    }
    case ExprKind::kCompare:
      return EvalCompare(expr, frame);
    case ExprKind::kCondition:
      if (Eval(*expr.children[0], frame).Truthy()) return Eval(*expr.children[1], frame);
      if (expr.children[2]) return Eval(*expr.children[2], frame);
      return Value::Undefined("the inline if-expression evaluated to false and no else section");
    case ExprKind::kBlockValue:
      return Value(block_value_);
  }
  return Value();
}

Value Renderer::EvalAttr(const Expr& expr, const FramePtr& frame) {
  if (recording_ && expr.children[0]->kind == ExprKind::kName) return EvalAttrRecorded(expr, frame);
  Value subject = Eval(*expr.children[0], frame);
  At(expr);
  return GetAttr(subject, expr.name);
}

Value Renderer::EvalItem(const Expr& expr, const FramePtr& frame) {
  if (recording_ && expr.children[0]->kind == ExprKind::kName) return EvalItemRecorded(expr, frame);
  Value subject = Eval(*expr.children[0], frame);
  Value key = Eval(*expr.children[1], frame);
  At(expr);
  return GetItem(subject, key);
}

Value Renderer::EvalName(const Expr& expr, const FramePtr& frame) {
  if (recording_) {
    Where where = Where::kLocal;
    Value value = Resolve(expr.name, frame, where);
    NoteName(expr.name, value, where);
    return value;
  }
  if (const Value* v = frame->Find(expr.name)) return *v;
  if (context_.is_mapping()) {
    if (const Value* v = context_.dict().FindKey(expr.name)) return *v;
  }
  Value global = FindGlobal(expr.name);
  if (!global.is_undefined()) return global;
  return Value::Undefined(expr.name);
}

Value Renderer::EvalContainer(const Expr& expr, const FramePtr& frame) {
  if (expr.kind == ExprKind::kDict) {
    auto dict = std::make_shared<DictData>();
    for (size_t i = 0; i + 1 < expr.children.size(); i += 2) {
      Value key = Eval(*expr.children[i], frame);
      RequireHashable(key);
      dict->Set(std::move(key), Eval(*expr.children[i + 1], frame));
    }
    return Value::Dict(std::move(dict));
  }
  std::vector<Value> items;
  items.reserve(expr.children.size());
  for (const auto& child : expr.children)
    items.push_back(Eval(*child, frame));
  return expr.kind == ExprKind::kList ? Value::List(std::move(items))
                                      : Value::Tuple(std::move(items));
}

namespace {

// Python's slice.indices for a sequence of length n.
void SliceIndices(Renderer& renderer, const Value* bounds[3], int64_t n, int64_t& start,
                  int64_t& stop, int64_t& step) {
  auto get = [&](const Value* v, int64_t fallback) -> std::optional<int64_t> {
    if (!v || v->is_none()) return std::nullopt;
    if (v->kind() == Value::Kind::kInt) return v->as_int();
    if (v->kind() == Value::Kind::kBool) return v->as_bool() ? 1 : 0;
    (void)fallback;
    renderer.Fail("slice indices must be integers or None");
  };
  step = get(bounds[2], 1).value_or(1);
  if (step == 0) renderer.Fail("slice step cannot be zero");
  const int64_t lower = step < 0 ? -1 : 0;
  const int64_t upper = step < 0 ? n - 1 : n;
  auto clamp = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t x = *v;
    if (x < 0) {
      x += n;
      if (x < lower) x = lower;
    } else if (x > upper) {
      x = upper;
    }
    return x;
  };
  start = clamp(get(bounds[0], 0), step < 0 ? upper : lower);
  stop = clamp(get(bounds[1], 0), step < 0 ? lower : upper);
}

}  // namespace

Value Renderer::EvalSlice(const Expr& expr, const FramePtr& frame) {
  // A slice among several subscripts (`x[1:2, 0]`) has no subject of its own: Python's index
  // is then a tuple holding a slice object, which nothing here can be indexed by.
  if (!expr.children[0]) return Value::Undefined("slice");
  Value subject = Eval(*expr.children[0], frame);
  Value parts[3];
  const Value* bounds[3] = {nullptr, nullptr, nullptr};
  for (int i = 0; i < 3; ++i) {
    if (expr.children[i + 1]) {
      parts[i] = Eval(*expr.children[i + 1], frame);
      bounds[i] = &parts[i];
    }
  }
  At(expr);
  if (subject.is_undefined()) Fail("'" + subject.undefined_hint() + "' is undefined");
  // A slice is Python's subscript (not the sandbox's getitem): what cannot be sliced raises.
  if (!subject.is_string() && !subject.is_indexable()) {
    if (expr.constant_subject) return Value::Undefined("slice");
    Fail(subject.is_mapping()
             ? "unhashable type: 'slice'"
             : std::string("'").append(subject.TypeName()).append("' object is not subscriptable"));
  }
  std::vector<size_t> offsets;
  int64_t n = 0;
  if (subject.is_string()) {
    offsets = python::CodePointOffsets(subject.as_string());
    n = static_cast<int64_t>(offsets.size()) - 1;
  } else {
    n = static_cast<int64_t>(subject.items().size());
  }
  int64_t start = 0;
  int64_t stop = 0;
  int64_t step = 1;
  SliceIndices(*this, bounds, n, start, stop, step);
  std::string text;
  std::vector<Value> items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (subject.is_string()) {
      text.append(subject.as_string(), offsets[i], offsets[i + 1] - offsets[i]);
    } else {
      items.push_back(subject.items()[i]);
    }
  }
  if (subject.is_string()) return Value(std::move(text));
  if (subject.flavor() == ListFlavor::kRange) {
    const ListData& r = subject.list_data();
    return Value::Range(std::move(items), r.range_start + start * r.range_step,
                        r.range_start + stop * r.range_step, r.range_step * step);
  }
  return subject.kind() == Value::Kind::kList ? Value::List(std::move(items))
                                              : Value::Tuple(std::move(items));
}

CallArgs Renderer::EvalArgs(const Expr& expr, const FramePtr& frame) {
  CallArgs args;
  const size_t n = expr.children.size() - 1;
  const size_t keywords = expr.keyword_names.size();
  for (size_t i = 0; i < n; ++i) {
    Value v = Eval(*expr.children[i + 1], frame);
    if (i < n - keywords) {
      args.positional.push_back(std::move(v));
    } else {
      args.keyword.emplace_back(expr.keyword_names[i - (n - keywords)], std::move(v));
    }
  }
  return args;
}

Value Renderer::CallValue(const Value& callee, CallArgs& args) {
  if (callee.kind() != Value::Kind::kFunction) {
    if (callee.is_undefined()) Fail("'" + callee.undefined_hint() + "' is undefined");
    Fail(std::string("'").append(callee.TypeName()).append("' object is not callable"));
  }
  Step();
  return callee.function()->Call(*this, args);
}

Value Renderer::EvalCall(const Expr& expr, const FramePtr& frame) {
  Value callee = Eval(*expr.children[0], frame);
  CallArgs args = EvalArgs(expr, frame);
  At(expr);
  return CallValue(callee, args);
}

Value Renderer::ApplyFilter(std::string_view name, const Value& subject, CallArgs& args) {
  FilterFn fn = FindFilter(name);
  if (!fn) Fail("no filter named '" + std::string(name) + "'");
  Step();
  return fn(*this, subject, args);
}

bool Renderer::ApplyTest(std::string_view name, const Value& subject, CallArgs& args) {
  TestFn fn = FindTest(name);
  if (!fn) Fail("no test named '" + std::string(name) + "'");
  Step();
  return fn(*this, subject, args);
}

Value Renderer::EvalFilter(const Expr& expr, const FramePtr& frame) {
  Value subject = Eval(*expr.children[0], frame);
  CallArgs args = EvalArgs(expr, frame);
  At(expr);
  if (!expr.filter) Fail("no filter named '" + expr.name + "'");
  Step();
  return expr.filter(*this, subject, args);
}

Value Renderer::EvalTest(const Expr& expr, const FramePtr& frame) {
  Value subject = Eval(*expr.children[0], frame);
  CallArgs args = EvalArgs(expr, frame);
  At(expr);
  if (!expr.test) Fail("no test named '" + expr.name + "'");
  Step();
  const bool result = expr.test(*this, subject, args);
  return Value(result != expr.negated);
}

Value Renderer::EvalUnary(const Expr& expr, const FramePtr& frame) {
  Value v = Eval(*expr.children[0], frame);
  At(expr);
  if (expr.kind == ExprKind::kNot) return Value(!v.Truthy());
  if (!v.is_number()) {
    if (v.is_undefined()) Fail("'" + v.undefined_hint() + "' is undefined");
    Fail("bad operand type for unary " + std::string(expr.kind == ExprKind::kNeg ? "-" : "+") +
         ": '" + std::string(v.TypeName()) + "'");
  }
  if (expr.kind == ExprKind::kPos) {
    return v.kind() == Value::Kind::kBool ? Value(static_cast<int64_t>(v.as_bool())) : v;
  }
  if (v.kind() == Value::Kind::kFloat) return Value(-v.as_float());
  const int64_t i = v.kind() == Value::Kind::kBool ? v.as_bool() : v.as_int();
  if (i == INT64_MIN) Fail("integer overflow", ErrorCode::kLimit);
  return Value(-i);
}

bool CompareOnce(Renderer& renderer, CompareOp op, const Value& left, const Value& right) {
  switch (op) {
    case CompareOp::kEq:
      return left.Equals(right);
    case CompareOp::kNe:
      return !left.Equals(right);
    case CompareOp::kLt:
      return LessThan(renderer, left, right);
    case CompareOp::kLe:
      return !LessThan(renderer, right, left);
    case CompareOp::kGt:
      return LessThan(renderer, right, left);
    case CompareOp::kGe:
      return !LessThan(renderer, left, right);
    case CompareOp::kIn:
      return Contains(renderer, right, left);
    case CompareOp::kNotIn:
      return !Contains(renderer, right, left);
  }
  return false;
}

Value Renderer::EvalCompare(const Expr& expr, const FramePtr& frame) {
  if (recording_) {
    Value result;
    if (EvalCompareRecorded(expr, frame, result)) return result;
  }
  Value left = Eval(*expr.children[0], frame);
  for (size_t i = 0; i < expr.compare_ops.size(); ++i) {
    Value right = Eval(*expr.children[i + 1], frame);
    At(expr);
    if (!CompareOnce(*this, expr.compare_ops[i], left, right)) return Value(false);
    left = std::move(right);
  }
  return Value(true);
}

Value Renderer::GetAttr(const Value& subject, std::string_view name) {
  switch (subject.kind()) {
    case Value::Kind::kUndefined:
      Fail("'" + subject.undefined_hint() + "' is undefined");
    case Value::Kind::kDict: {
      Value method = FindMethod(subject, name);
      if (!method.is_undefined()) return method;
      if (const Value* v = subject.dict().FindKey(name)) return *v;
      return Value::Undefined(std::string(name));
    }
    case Value::Kind::kNamespace:
      if (const Value* v = subject.dict().FindKey(name)) return *v;
      return Value::Undefined(std::string(name));
    default: {
      Value method = FindMethod(subject, name);
      if (!method.is_undefined()) return method;
      return Value::Undefined(std::string(name));
    }
  }
}

Value Renderer::GetItem(const Value& subject, const Value& key) {
  switch (subject.kind()) {
    case Value::Kind::kUndefined:
      Fail("'" + subject.undefined_hint() + "' is undefined");
    case Value::Kind::kDict:
      if (const Value* v = subject.dict().Find(key)) return *v;
      break;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
    case Value::Kind::kString: {
      if (key.kind() != Value::Kind::kInt && key.kind() != Value::Kind::kBool) break;
      if (!subject.is_string() && !subject.is_indexable()) break;
      int64_t i = key.kind() == Value::Kind::kInt ? key.as_int() : key.as_bool();
      if (subject.is_string()) {
        const std::vector<size_t> offsets = python::CodePointOffsets(subject.as_string());
        const auto n = static_cast<int64_t>(offsets.size()) - 1;
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::Undefined("index");
        return Value(subject.as_string().substr(offsets[i], offsets[i + 1] - offsets[i]));
      }
      const auto n = static_cast<int64_t>(subject.items().size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::Undefined("index");
      return subject.items()[i];
    }
    default:
      break;
  }
  if (key.is_string()) {
    if (subject.kind() == Value::Kind::kNamespace) {
      if (const Value* v = subject.dict().FindKey(key.as_string())) return *v;
    }
    Value method = FindMethod(subject, key.as_string());
    if (!method.is_undefined()) return method;
  }
  return Value::Undefined(key.is_string() ? key.as_string() : key.Repr());
}

}  // namespace crux::chat_template
