#include "chat_template/renderer.h"

#include <algorithm>
#include <chrono>

#include "chat_template/builtins.h"
#include "chat_template/python.h"

namespace crux::chat_template {

const Value* Frame::Find(std::string_view name) const {
  for (const Frame* f = this; f; f = f->parent.get()) {
    for (const auto& [key, value] : f->vars) {
      if (key == name) return &value;
    }
  }
  return nullptr;
}

void Frame::Set(std::string_view name, Value value) {
  for (auto& [key, existing] : vars) {
    if (key == name) {
      existing = std::move(value);
      return;
    }
  }
  vars.emplace_back(std::string(name), std::move(value));
}

namespace {

// Clears a frame's variables when its scope ends, so that a macro stored in it (which holds
// the frame) does not keep it alive in a cycle.
struct FrameScope {
  explicit FrameScope(FramePtr parent) : frame(std::make_shared<Frame>()) {
    frame->parent = std::move(parent);
  }
  ~FrameScope() { frame->vars.clear(); }
  FrameScope(const FrameScope&) = delete;
  FrameScope& operator=(const FrameScope&) = delete;
  FramePtr frame;
};

// Why `value` cannot be stored in a namespace's attribute, or empty. A namespace is the only
// value a template can change, so the only way a value carries over from one iteration to the
// next: bounding what it may hold bounds what a loop can build. Not a namespace at any depth
// (one namespace in another could come to hold itself, which printing would follow without end
// and shared ownership never free), nor nesting past kMaxStoredDepth, nor more than
// kMaxStoredItems items counted with repeats (`{% set ns.l = [ns.l, ns.l] %}` doubles them).
std::string Unstorable(const Value& value, int depth, size_t& items) {
  constexpr int kMaxStoredDepth = 256;
  constexpr size_t kMaxStoredItems = size_t{1} << 18;
  if (++items > kMaxStoredItems) {
    return "the value holds more than " + std::to_string(kMaxStoredItems) +
           " items, counted with repeats";
  }
  const bool container = value.kind() == Value::Kind::kList ||
                         value.kind() == Value::Kind::kTuple || value.kind() == Value::Kind::kDict;
  if (container && depth == kMaxStoredDepth) {
    return "the value nests more than " + std::to_string(kMaxStoredDepth) + " levels deep";
  }
  std::string why;
  switch (value.kind()) {
    case Value::Kind::kNamespace:
      return "a namespace cannot be stored in a namespace";
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      for (const Value& item : value.items()) {
        if (!(why = Unstorable(item, depth + 1, items)).empty()) return why;
      }
      return why;
    case Value::Kind::kDict:
      for (const auto& [key, item] : value.dict().entries) {
        if (!(why = Unstorable(key, depth + 1, items)).empty()) return why;
        if (!(why = Unstorable(item, depth + 1, items)).empty()) return why;
      }
      return why;
    default:
      return why;
  }
}

// Clears a reused frame's variables when an iteration ends (as FrameScope does).
struct IterationScope {
  explicit IterationScope(Frame& f) : frame(f) {}
  ~IterationScope() { frame.vars.clear(); }
  IterationScope(const IterationScope&) = delete;
  IterationScope& operator=(const IterationScope&) = delete;
  Frame& frame;
};

}  // namespace

Value Macro::Call(Renderer& renderer, CallArgs& args) const {
  return renderer.CallMacro(*stmt_, closure_, name_, args);
}

void Renderer::Fail(std::string message, ErrorCode code) const {
  throw RenderError(code, std::move(message), site_.line, site_.column);
}

void Renderer::Step() {
  if (++steps_ > options_.limits.max_steps) {
    Fail("the template ran more than " + std::to_string(options_.limits.max_steps) + " steps",
         ErrorCode::kLimit);
  }
}

void Renderer::RequireHashable(const Value& value) const {
  const ListFlavor flavor = value.flavor();
  const bool unhashable = value.kind() == Value::Kind::kDict ||
                          (value.kind() == Value::Kind::kList &&
                           (flavor == ListFlavor::kList || flavor == ListFlavor::kDictKeys ||
                            flavor == ListFlavor::kDictItems));
  if (unhashable) Fail("unhashable type: '" + std::string(value.TypeName()) + "'");
  if (value.kind() == Value::Kind::kTuple) {
    for (const Value& item : value.items())
      RequireHashable(item);
  }
}

int64_t Renderer::NowSeconds() const {
  if (recording_) StopRecording();  // an iteration that reads the clock is run every time
  if (options_.now_seconds) return options_.now_seconds();
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Renderer::Run(const std::vector<Stmt>& body) {
  FrameScope scope(nullptr);
  root_ = scope.frame;
  std::string out;
  sink_ = &out;
  output_ = &out;
  if (memo_store_ != nullptr) old_memos_ = memo_store_->Snapshot();
  try {
    Exec(body, root_);
  } catch (RenderError& e) {
    if (e.line == 0) {  // raised below the renderer (SizeCap): where the renderer was
      e.line = site_.line;
      e.column = site_.column;
    }
    throw;
  }
  root_.reset();
  if (memo_store_ != nullptr && !new_memos_.empty()) memo_store_->Publish(std::move(new_memos_));
  return out;
}

void Renderer::EmitText(std::string_view text) {
  sink_->append(text);
  if (sink_->size() > options_.limits.max_output_bytes) {
    Fail("the output is larger than " + std::to_string(options_.limits.max_output_bytes) + " bytes",
         ErrorCode::kLimit);
  }
}

void Renderer::Emit(const Value& value) {
  if (value.is_string()) return EmitText(value.as_string());
  value.AppendStr(*sink_);
  EmitText(std::string_view());
}

Renderer::Flow Renderer::Exec(const std::vector<Stmt>& body, const FramePtr& frame) {
  for (const Stmt& stmt : body) {
    const Flow flow = ExecOne(stmt, frame);
    if (flow != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

Renderer::Flow Renderer::ExecOne(const Stmt& stmt, const FramePtr& frame) {
  DepthGuard guard(*this);
  Flow flow = Flow::kNormal;
  switch (stmt.kind) {
    case StmtKind::kData:
      EmitText(stmt.text);
      break;
    case StmtKind::kOutput: {
      // `{{ a + b + c }}` over strings prints each part: no intermediate strings.
      std::vector<Value> parts;
      Value folded;
      if (!EvalConcat(stmt, frame, parts, folded)) {
        Emit(folded);
        break;
      }
      for (const Value& part : parts)
        Emit(part);
      break;
    }
    case StmtKind::kIf:
      ExecIf(stmt, frame, flow);
      break;
    case StmtKind::kFor:
      ExecFor(stmt, frame);
      break;
    case StmtKind::kSet:
    case StmtKind::kSetBlock:
      ExecSet(stmt, frame);
      break;
    case StmtKind::kMacro:
      frame->Set(stmt.text, Value::Callable(std::make_shared<Macro>(&stmt, frame, stmt.text)));
      break;
    case StmtKind::kCallBlock:
      ExecCallBlock(stmt, frame);
      break;
    case StmtKind::kFilterBlock: {
      std::string text = Capture(stmt.body, frame);
      std::swap(text, block_value_);
      const Value filtered = Eval(*stmt.expr, frame);
      Emit(filtered);
      break;
    }
    case StmtKind::kScope:
      EmitText(Capture(stmt.body, frame));
      break;
    case StmtKind::kBreak:
      return Flow::kBreak;
    case StmtKind::kContinue:
      return Flow::kContinue;
  }
  return flow;
}

void Renderer::ExecIf(const Stmt& stmt, const FramePtr& frame, Flow& flow) {
  At(stmt);
  Step();
  const bool taken = Eval(*stmt.expr, frame).Truthy();
  flow = Exec(taken ? stmt.body : stmt.else_body, frame);
}

std::vector<Value> Renderer::Iterate(const Value& value) const {
  switch (value.kind()) {
    case Value::Kind::kUndefined:
      return {};
    case Value::Kind::kList:
      if (!value.list_data().deferred_error.empty()) Fail(value.list_data().deferred_error);
      return value.items();
    case Value::Kind::kTuple:
      return value.items();
    case Value::Kind::kDict: {
      std::vector<Value> keys;
      keys.reserve(value.dict().entries.size());
      for (const auto& entry : value.dict().entries)
        keys.push_back(entry.first);
      return keys;
    }
    case Value::Kind::kString: {
      const std::string& s = value.as_string();
      SizeCap::Items(s.size());  // a character for each byte at most
      const std::vector<size_t> offsets = python::CodePointOffsets(s);
      std::vector<Value> chars;
      chars.reserve(offsets.size());
      for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        chars.emplace_back(s.substr(offsets[i], offsets[i + 1] - offsets[i]));
      }
      return chars;
    }
    default:
      Fail("'" + std::string(value.TypeName()) + "' object is not iterable");
  }
}

std::vector<Value> Renderer::LoopItems(const Stmt& stmt, const FramePtr& frame) {
  At(stmt);
  std::vector<Value> items = Iterate(Eval(*stmt.expr, frame));
  if (!stmt.condition) return items;
  std::vector<Value> kept;
  for (Value& item : items) {
    Step();
    FrameScope scope(frame);
    Assign(*stmt.target, item, scope.frame);
    if (Eval(*stmt.condition, scope.frame).Truthy()) kept.push_back(std::move(item));
  }
  return kept;
}

namespace {

// `loop.cycle(a, b, …)`: the argument at the current iteration's index, cycling through them.
class LoopCycle final : public Function {
 public:
  Value Call(Renderer& renderer, CallArgs& args) const override {
    if (args.positional.empty()) renderer.Fail("no items for cycling given");
    return args.positional[static_cast<size_t>(index_) % args.positional.size()];
  }
  std::string_view name() const override { return "loop.cycle"; }
  // The loop moves it to each iteration in turn, as it does its `loop` object.
  void MoveTo(int64_t index) const { index_ = index; }

 private:
  mutable int64_t index_ = 0;
};

}  // namespace

// Sets `loop` to iteration `i` of `items`. As Jinja2 has one loop object per for, updated
// in place, so does this: a `loop` (or `loop.cycle`) stored away reads the current iteration,
// and after the for, the last one.
void SetLoopObject(Value& loop, const std::vector<Value>& items, size_t i) {
  const auto n = static_cast<int64_t>(items.size());
  const auto k = static_cast<int64_t>(i);
  if (loop.is_undefined()) {
    auto dict = std::make_shared<DictData>();
    auto& e = dict->entries;
    e.reserve(12);
    for (const char* key : {"index", "index0", "revindex", "revindex0", "first", "last", "length",
                            "depth", "depth0", "previtem", "nextitem"}) {
      e.emplace_back(key, Value());
    }
    e.emplace_back("cycle", Value::Callable(std::make_shared<LoopCycle>()));
    e[6].second = n;
    e[7].second = 1;
    e[8].second = 0;
    loop = Value::Dict(std::move(dict));
  }
  auto& e = loop.mutable_dict().entries;
  e[0].second = k + 1;
  e[1].second = k;
  e[2].second = n - k;
  e[3].second = n - k - 1;
  e[4].second = k == 0;
  e[5].second = k == n - 1;
  e[9].second = i > 0 ? items[i - 1] : Value::Undefined("there is no previous item");
  e[10].second = k + 1 < n ? items[i + 1] : Value::Undefined("there is no next item");
  static_cast<const LoopCycle&>(*e[11].second.function()).MoveTo(k);
}

// Jinja2 runs the else block unless some iteration ran its body to the end: an iteration
// left by `continue` or `break` does not count.
void Renderer::ExecFor(const Stmt& stmt, const FramePtr& frame) {
  const std::vector<Value> items = LoopItems(stmt, frame);
  if (Memoizable(frame, items.size())) {
    ExecForMemo(stmt, items);
    return;
  }
  bool completed = false;
  // One frame for every iteration, made anew only where something (a macro defined in the
  // body) still holds the previous one; one `loop` object for the whole for.
  FramePtr scope;
  Value loop;
  for (size_t i = 0; i < items.size(); ++i) {
    Step();
    const Flow flow = RunIteration(stmt, items, i, frame, scope, loop);
    if (flow == Flow::kNormal) completed = true;
    if (flow == Flow::kBreak) break;
  }
  if (!completed && !stmt.else_body.empty()) {
    FrameScope else_scope(frame);
    Exec(stmt.else_body, else_scope.frame);
  }
}

Renderer::Flow Renderer::RunIteration(const Stmt& stmt, const std::vector<Value>& items, size_t i,
                                      const FramePtr& frame, FramePtr& scope, Value& loop) {
  if (!scope || scope.use_count() != 1) {
    scope = std::make_shared<Frame>();
    scope->parent = frame;
  }
  IterationScope cleared(*scope);
  At(stmt);
  Assign(*stmt.target, items[i], scope);
  if (stmt.uses_loop) {
    SetLoopObject(loop, items, i);
    scope->Set("loop", loop);
  }
  return Exec(stmt.body, scope);
}

void Renderer::Assign(const Expr& target, Value value, const FramePtr& frame) {
  if (target.kind == ExprKind::kName) {
    frame->Set(target.name, std::move(value));
    return;
  }
  if (target.kind == ExprKind::kGetAttr) {
    const Value* ns = frame->Find(target.children[0]->name);
    if (!ns) {
      if (const Value* v = context_.dict().FindKey(target.children[0]->name)) ns = v;
    }
    if (!ns || ns->kind() != Value::Kind::kNamespace) {
      At(target);
      Fail("cannot assign attribute on non-namespace object");
    }
    size_t items = 0;
    if (const std::string why = Unstorable(value, 0, items); !why.empty()) {
      At(target);
      Fail("cannot assign " + target.children[0]->name + "." + target.name + ": " + why,
           ErrorCode::kLimit);
    }
    if (recording_) NoteWrite(*ns, target.name);
    ns->mutable_dict().Set(Value(target.name), std::move(value));
    return;
  }
  const std::vector<Value> items = Iterate(value);
  const size_t n = target.children.size();
  if (items.size() != n) {
    At(target);
    Fail(items.size() > n ? "too many values to unpack (expected " + std::to_string(n) + ")"
                          : "not enough values to unpack (expected " + std::to_string(n) +
                                ", got " + std::to_string(items.size()) + ")");
  }
  for (size_t i = 0; i < n; ++i)
    Assign(*target.children[i], items[i], frame);
}

std::string Renderer::Capture(const std::vector<Stmt>& body, const FramePtr& frame) {
  std::string text;
  std::string* saved = sink_;
  sink_ = &text;
  FrameScope scope(frame);
  try {
    Exec(body, scope.frame);
  } catch (...) {
    sink_ = saved;
    throw;
  }
  sink_ = saved;
  return text;
}

void Renderer::ExecSet(const Stmt& stmt, const FramePtr& frame) {
  At(stmt);
  Step();
  if (stmt.kind == StmtKind::kSet) {
    std::vector<Value> parts;
    Value folded;
    if (!EvalConcat(stmt, frame, parts, folded)) {
      Assign(*stmt.target, std::move(folded), frame);
      return;
    }
    SetConcat(stmt, parts, frame);
    return;
  }
  std::string text = Capture(stmt.body, frame);
  if (!stmt.expr) {
    Assign(*stmt.target, Value(std::move(text)), frame);
    return;
  }
  std::swap(text, block_value_);
  Value filtered = Eval(*stmt.expr, frame);
  Assign(*stmt.target, std::move(filtered), frame);
}

namespace {

bool PlainString(const Value& v) {
  return v.is_string() && !v.is_markup();
}

// The text of a concatenation whose parts EvalConcat returned.
std::string Joined(const std::vector<Value>& parts, size_t from) {
  size_t size = 0;
  for (size_t i = from; i < parts.size(); ++i)
    size += parts[i].is_string() ? parts[i].as_string().size() : 0;
  SizeCap::Bytes(size);
  std::string out;
  out.reserve(size);
  for (size_t i = from; i < parts.size(); ++i) {
    parts[i].AppendStr(out);
    SizeCap::Bytes(out.size());
  }
  return out;
}

}  // namespace

// Evaluates `expr`. Where it is a chain of `~`, or of `+` over plain strings, returns true with
// the operands' values in `parts`, in order, for the caller to join or print without building
// each intermediate string; else returns false with the value in `folded`. Operands are
// evaluated in Jinja2's order and the first `+` that is not a string concatenation is applied
// right after its right operand, as Eval would, so errors and results are the same.
bool Renderer::EvalConcat(const Stmt& stmt, const FramePtr& frame, std::vector<Value>& parts,
                          Value& folded) {
  const Expr& expr = *stmt.expr;
  if (stmt.chain.empty()) {
    folded = Eval(expr, frame);
    return false;
  }
  DepthGuard guard(*this);
  const std::vector<const Expr*>& operands = stmt.chain;
  const std::vector<const Expr*>& ops = stmt.chain_ops;
  parts.reserve(operands.size());
  const bool concat = expr.name == "~";
  size_t i = 0;
  for (; i < operands.size(); ++i) {
    parts.push_back(Eval(*operands[i], frame));
    if (!concat && !PlainString(parts.back())) break;
  }
  if (i == operands.size()) return true;
  folded = parts[0];
  for (size_t j = 1; j < operands.size(); ++j) {
    Value right = j < parts.size() ? std::move(parts[j]) : Eval(*operands[j], frame);
    At(*ops[j]);
    folded = BinaryOp(*this, expr.name, folded, right);
  }
  parts.clear();
  return false;
}

// Where `{% set target = target ~ … %}` can append in place: the value `target` names, when
// it is a variable of this very frame or an attribute of a namespace.
Value* Renderer::AppendTarget(const Expr& target, const FramePtr& frame) {
  if (target.kind == ExprKind::kName) {
    for (auto& [key, value] : frame->vars) {
      if (key == target.name) return &value;
    }
    return nullptr;
  }
  if (target.kind != ExprKind::kGetAttr) return nullptr;
  const Value* ns = frame->Find(target.children[0]->name);
  if (!ns && context_.is_mapping()) ns = context_.dict().FindKey(target.children[0]->name);
  if (!ns || ns->kind() != Value::Kind::kNamespace) return nullptr;
  if (recording_) NoteWrite(*ns, target.name);
  return ns->mutable_dict().FindKey(target.name);
}

namespace {

// Whether `a` and `b` are the same expression: a name, or a name's attribute.
bool SameReference(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.name != b.name) return false;
  if (a.kind == ExprKind::kName) return true;
  return a.kind == ExprKind::kGetAttr && SameReference(*a.children[0], *b.children[0]);
}

}  // namespace

// Assigns the concatenation of `parts` to the target of `stmt`. `{% set ns.text = ns.text ~
// more %}` appends `more` to the stored text in place where nothing else shares it and the
// target still holds the text the first operand read (else the whole text is built, as
// Python does).
void Renderer::SetConcat(const Stmt& stmt, std::vector<Value>& parts, const FramePtr& frame) {
  const Expr& target = *stmt.target;
  Value* slot = SameReference(target, *stmt.chain[0]) ? AppendTarget(target, frame) : nullptr;
  const bool same =
      slot && PlainString(*slot) && PlainString(parts[0]) &&
      (&slot->as_string() == &parts[0].as_string() || slot->as_string() == parts[0].as_string());
  if (same) {
    parts[0] = Value();  // the slot's text is then unshared, unless stored elsewhere too
    const std::string tail = Joined(parts, 1);
    SizeCap::Bytes(slot->as_string().size() + tail.size());
    if (slot->AppendInPlace(tail)) return;
    parts[0] = *slot;
  }
  Assign(target, Value(Joined(parts, 0)), frame);
}

void Renderer::ExecCallBlock(const Stmt& stmt, const FramePtr& frame) {
  At(stmt);
  const Expr& call = *stmt.expr;
  Value callee = Eval(*call.children[0], frame);
  CallArgs args = EvalArgs(call, frame);
  args.keyword.emplace_back("caller",
                            Value::Callable(std::make_shared<Macro>(&stmt, frame, "caller")));
  At(stmt);
  Emit(CallValue(callee, args));
}

Value Renderer::CallMacro(const Stmt& stmt, const FramePtr& closure, std::string_view name,
                          CallArgs& args) {
  if (call_depth_ >= options_.limits.max_call_depth) {
    Fail("maximum recursion depth exceeded", ErrorCode::kLimit);
  }
  Step();
  ++call_depth_;
  FrameScope scope(closure);
  std::string text;
  std::string* saved = sink_;
  const Site saved_site = site_;
  try {
    BindMacroArgs(stmt, name, args, scope.frame);
    sink_ = &text;
    Exec(stmt.body, scope.frame);
  } catch (...) {
    sink_ = saved;
    --call_depth_;
    throw;
  }
  sink_ = saved;
  site_ = saved_site;
  --call_depth_;
  return Value(std::move(text));
}

void Renderer::BindMacroArgs(const Stmt& stmt, std::string_view name, CallArgs& args,
                             const FramePtr& frame) {
  const std::string label = "macro '" + std::string(name) + "'";
  for (size_t i = 0; i < stmt.params.size(); ++i) {
    const std::string& param = stmt.params[i];
    if (args.Has(i, param)) {
      frame->Set(param, args.Take(i, param));
    } else if (stmt.defaults[i]) {
      frame->Set(param, Eval(*stmt.defaults[i], frame));
    } else {
      frame->Set(param, Value::Undefined("parameter '" + param + "' was not provided"));
    }
  }
  if (args.positional.size() > stmt.params.size() && !stmt.uses_varargs) {
    Fail(label + " takes not more than " + std::to_string(stmt.params.size()) + " argument(s)");
  }
  std::vector<Value> varargs;
  for (size_t i = stmt.params.size(); i < args.positional.size(); ++i) {
    varargs.push_back(args.positional[i]);
  }
  auto kwargs = std::make_shared<DictData>();
  Value caller;
  for (size_t i = 0; i < args.keyword.size(); ++i) {
    if (!args.keyword_taken(i)) {
      const auto& [key, value] = args.keyword[i];
      if (key == "caller" && stmt.uses_caller) {
        caller = value;
      } else if (stmt.uses_kwargs) {
        kwargs->Set(Value(key), value);
      } else {
        Fail(label + " takes no keyword argument '" + key + "'");
      }
    }
  }
  if (stmt.uses_caller) frame->Set("caller", caller);
  if (stmt.uses_varargs) frame->Set("varargs", Value::Tuple(std::move(varargs)));
  if (stmt.uses_kwargs) frame->Set("kwargs", Value::Dict(std::move(kwargs)));
}

}  // namespace crux::chat_template
