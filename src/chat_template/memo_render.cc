// The renderer's side of the loop memo (loop_memo.h): recording what an iteration of a
// top-level loop reads and writes, and replaying it in a later render where all of that holds.
#include <algorithm>
#include <unordered_map>

#include "chat_template/builtins.h"
#include "chat_template/renderer.h"

namespace crux::chat_template {
namespace {

// Loops shorter than this are run: what a replay saves would not pay for the bookkeeping.
constexpr size_t kMinMemoItems = 8;

bool IsNamespace(const Value& v) {
  return v.kind() == Value::Kind::kNamespace;
}

// Whether a value written to a top-level namespace can be kept for a later render: not a
// namespace or a callable (objects of this render), at any depth.
bool Keepable(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNamespace:
    case Value::Kind::kFunction:
      return false;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return std::all_of(v.items().begin(), v.items().end(), Keepable);
    case Value::Kind::kDict:
      return std::all_of(v.dict().entries.begin(), v.dict().entries.end(),
                         [](const auto& e) { return Keepable(e.first) && Keepable(e.second); });
    default:
      return true;
  }
}

// An expression that calls no macro, filter or function: evaluating it writes nothing.
bool CallsNothing(const Expr& e) {
  if (e.kind == ExprKind::kCall || e.kind == ExprKind::kFilter || e.kind == ExprKind::kTest ||
      e.kind == ExprKind::kBlockValue) {
    return false;
  }
  return std::all_of(e.children.begin(), e.children.end(),
                     [](const auto& c) { return c == nullptr || CallsNothing(*c); });
}

// A value too large to compare or keep on every iteration: an iteration that reads or writes
// one in a namespace (a template building its whole output in `ns.out`) is run, not recorded,
// so that the text keeps growing in place.
bool Large(const Value& v) {
  constexpr size_t kLargeText = 4096;
  constexpr size_t kLargeCount = 256;
  switch (v.kind()) {
    case Value::Kind::kString:
      return v.as_string().size() > kLargeText;
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return v.items().size() > kLargeCount;
    case Value::Kind::kDict:
    case Value::Kind::kNamespace:
      return v.dict().entries.size() > kLargeCount;
    default:
      return false;
  }
}

bool AnyLarge(const std::vector<std::pair<Value, Value>>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const auto& e) { return Large(e.second); });
}

bool IndexedList(const Value& v) {
  return v.kind() == Value::Kind::kList || v.kind() == Value::Kind::kTuple;
}

// Python's index into a sequence of n items: the position, or -1 outside it.
int64_t Position(int64_t index, size_t n) {
  const auto size = static_cast<int64_t>(n);
  const int64_t k = index < 0 ? index + size : index;
  return k >= 0 && k < size ? k : -1;
}

}  // namespace

// What one iteration being recorded has read and written so far.
struct Renderer::Recorder {
  LoopMemo* memo = nullptr;
  const DictData* loop = nullptr;  // the loop object this iteration set
  IterationRecord record;
  bool ok = true;
  // Top-level namespaces this iteration wrote, as they were before its first write.
  std::vector<std::pair<const DictData*, std::vector<std::pair<Value, Value>>>> before;
  std::vector<std::pair<const DictData*, std::string>> written;

  const std::vector<std::pair<Value, Value>>& EntriesAtStart(const DictData& ns) const {
    for (const auto& [d, entries] : before) {
      if (d == &ns) return entries;
    }
    return ns.entries;
  }
  bool Wrote(const DictData& ns) const {
    return std::any_of(before.begin(), before.end(), [&](const auto& b) { return b.first == &ns; });
  }
  Dep* Find(DepKind kind, std::string_view name, std::string_view attr = {}, int64_t index = 0) {
    for (Dep& d : record.deps) {
      if (d.kind == kind && d.name == name && d.attr == attr && d.index == index) return &d;
    }
    return nullptr;
  }
  void Use(LoopUse use) { record.loop_use = std::max(record.loop_use, use); }
};

// What this render found out about the top-level names an earlier render's memo names.
struct Renderer::ReplayCache {
  std::vector<std::pair<std::string, bool>> same_top;
  std::unordered_map<std::string, std::vector<int8_t>> same_items;  // -1 unknown, 0, 1
};

bool Renderer::Memoizable(const FramePtr& frame, size_t items) const {
  return memo_store_ != nullptr && recorder_ == nullptr && frame.get() == root_.get() &&
         sink_ == output_ && items >= kMinMemoItems;
}

// The top-level names bound to namespaces, each with the first name bound to the same one.
std::vector<std::pair<std::string, size_t>> Renderer::TopAliases() const {
  std::vector<std::pair<std::string, size_t>> aliases;
  for (size_t i = 0; i < root_->vars.size(); ++i) {
    const auto& [name, value] = root_->vars[i];
    if (!IsNamespace(value)) continue;
    size_t first = i;
    for (size_t j = 0; j < i; ++j) {
      if (IsNamespace(root_->vars[j].second) && &root_->vars[j].second.dict() == &value.dict()) {
        first = j;
        break;
      }
    }
    aliases.emplace_back(name, first);
  }
  return aliases;
}

// The earlier render's memo of this loop most alike to this one (by a few sampled items), or
// null. Replaying checks every iteration in full; the choice only decides how many replay.
const LoopMemo* Renderer::PickMemo(const LoopMemo& memo) const {
  const LoopMemo* best = nullptr;
  int best_score = -1;
  for (const auto& old : old_memos_) {
    if (old->stmt != memo.stmt || old->aliases != memo.aliases) continue;
    const size_t m = std::min(old->items.size(), memo.items.size());
    int score = 0;
    for (const size_t k : {size_t{0}, m / 2, m - 1, m > 1 ? m - 2 : 0}) {
      score += k < m && SameValue(old->items[k], memo.items[k]) ? 1 : 0;
    }
    if (score > best_score) {
      best = old.get();
      best_score = score;
    }
  }
  return best;
}

// A for at the top level over enough items: each iteration is replayed from the memo of an
// earlier render where it can be, else run and recorded for the next render.
void Renderer::ExecForMemo(const Stmt& stmt, const std::vector<Value>& items) {
  auto memo = std::make_shared<LoopMemo>();
  memo->stmt = &stmt;
  memo->items = items;
  memo->aliases = TopAliases();
  memo->records.resize(items.size());
  const LoopMemo* old = PickMemo(*memo);
  // The text to replay, in one allocation rather than by doubling.
  if (old != nullptr) output_->reserve(output_->size() + old->bytes + old->bytes / 8);
  ReplayCache cache;
  bool completed = false;
  FramePtr scope;
  Value loop;
  size_t dropped = 0;  // iterations in a row that could not be recorded
  for (size_t i = 0; i < items.size(); ++i) {
    Step();
    Flow flow = Flow::kNormal;
    if (old != nullptr && Replayable(*old, *memo, i, cache)) {
      flow = Replay(old->records[i], *memo, i);
      ++memo->hits;
    } else if (dropped >= kMinMemoItems) {
      // The last iterations could not be kept: neither will the rest (they read the whole
      // conversation, or the output built so far). Run them without the bookkeeping.
      flow = RunIteration(stmt, items, i, root_, scope, loop);
    } else {
      flow = RecordIteration(stmt, *memo, i, scope, loop);
      dropped = memo->records[i] != nullptr ? 0 : dropped + 1;
    }
    if (flow == Flow::kNormal) completed = true;
    if (flow == Flow::kBreak) break;
  }
  if (memo->kept > 0) new_memos_.push_back(std::move(memo));
  if (!completed && !stmt.else_body.empty()) {
    auto else_frame = std::make_shared<Frame>();
    else_frame->parent = root_;
    Exec(stmt.else_body, else_frame);
    else_frame->vars.clear();
  }
}

Renderer::Flow Renderer::RecordIteration(const Stmt& stmt, LoopMemo& memo, size_t i,
                                         FramePtr& scope, Value& loop) {
  if (!scope || scope.use_count() != 1) {
    scope = std::make_shared<Frame>();
    scope->parent = root_;
  }
  Recorder recorder;
  recorder.memo = &memo;
  const size_t begin = output_->size();
  struct Guard {
    Renderer& r;
    Frame& frame;
    ~Guard() {
      r.recorder_ = nullptr;
      r.recording_ = false;
      frame.vars.clear();
    }
  } guard{*this, *scope};
  At(stmt);
  Assign(*stmt.target, memo.items[i], scope);
  if (stmt.uses_loop) {
    SetLoopObject(loop, memo.items, i);
    scope->Set("loop", loop);
    recorder.loop = &loop.dict();
  }
  recorder_ = &recorder;
  recording_ = true;
  const Flow flow = Exec(stmt.body, scope);
  recorder_ = nullptr;
  recording_ = false;
  if (flow == Flow::kBreak) recorder.ok = false;
  recorder.record.continued = flow == Flow::kContinue;
  recorder.record.output = std::make_shared<const std::string>(output_->substr(begin));
  FinishRecord(recorder, memo, i);
  return flow;
}

void Renderer::FinishRecord(Recorder& recorder, LoopMemo& memo, size_t i) {
  IterationRecord& record = recorder.record;
  for (const auto& write : recorder.written) {
    const DictData* ns = write.first;
    const std::string& attr = write.second;
    const auto it = std::find_if(root_->vars.begin(), root_->vars.end(), [ns](const auto& v) {
      return IsNamespace(v.second) && &v.second.dict() == ns;
    });
    const Value* value = ns->FindKey(attr);
    if (it == root_->vars.end() || value == nullptr || Large(*value) || !Keepable(*value)) {
      recorder.ok = false;
      break;
    }
    record.writes.push_back({it->first, attr, *value});
  }
  if (!recorder.ok) return;
  record.valid = true;
  record.last = i + 1 == memo.items.size();
  record.length = memo.items.size();
  memo.bytes += record.output->size();
  ++memo.kept;
  memo.records[i] = std::make_shared<const IterationRecord>(std::move(record));
}

Renderer::Flow Renderer::Replay(const std::shared_ptr<const IterationRecord>& record,
                                LoopMemo& memo, size_t i) {
  EmitText(*record->output);
  for (const NamespaceWrite& w : record->writes) {
    TopNamespace(w.name)->mutable_dict().Set(Value(w.attr), w.value);
  }
  memo.records[i] = record;
  memo.bytes += record->output->size();
  ++memo.kept;
  return record->continued ? Flow::kContinue : Flow::kNormal;
}

bool Renderer::Replayable(const LoopMemo& old, LoopMemo& memo, size_t i, ReplayCache& cache) {
  if (i >= old.records.size() || !old.records[i]) return false;
  const IterationRecord& record = *old.records[i];
  const size_t n = memo.items.size();
  if (record.loop_use == LoopUse::kLast && record.last != (i + 1 == n)) return false;
  if (record.loop_use == LoopUse::kLength && record.length != n) return false;
  if (!SameValue(old.items[i], memo.items[i])) return false;
  try {
    for (const Dep& dep : record.deps) {
      if (!DepHolds(dep, old, memo, cache)) return false;
    }
  } catch (const RenderError&) {
    return false;  // a comparison that now raises: running the iteration raises it properly
  }
  return true;
}

bool Renderer::DepHolds(const Dep& dep, const LoopMemo& old, LoopMemo& memo, ReplayCache& cache) {
  Where where = Where::kLocal;
  switch (dep.kind) {
    case DepKind::kGlobal:
      Resolve(dep.name, root_, where);
      return where == Where::kGlobal;
    case DepKind::kRoot: {
      for (const auto& [name, same] : cache.same_top) {
        if (name == dep.name) return same;
      }
      const auto it = std::find_if(old.roots.begin(), old.roots.end(),
                                   [&](const auto& r) { return r.first == dep.name; });
      const bool same = it != old.roots.end() && SameValue(it->second, TopValue(dep.name, memo));
      cache.same_top.emplace_back(dep.name, same);
      return same;
    }
    case DepKind::kElement:
      return ElementHolds(dep, old, memo, cache);
    case DepKind::kAttr:
    case DepKind::kCompare: {
      const Value* ns = TopNamespace(dep.name);
      if (ns == nullptr) return false;
      const Value* attr = ns->dict().FindKey(dep.attr);
      if ((attr != nullptr) != dep.present) return false;
      if (dep.kind == DepKind::kAttr) return attr == nullptr || SameValue(*attr, dep.value);
      if (attr == nullptr) return true;  // the same undefined, against the same operand
      return CompareOnce(*this, dep.op, dep.attr_left ? *attr : dep.value,
                         dep.attr_left ? dep.value : *attr) == dep.result;
    }
    case DepKind::kNamespace: {
      const Value* ns = TopNamespace(dep.name);
      if (ns == nullptr || ns->dict().entries.size() != dep.entries.size()) return false;
      for (size_t k = 0; k < dep.entries.size(); ++k) {
        if (!SameValue(ns->dict().entries[k].first, dep.entries[k].first) ||
            !SameValue(ns->dict().entries[k].second, dep.entries[k].second)) {
          return false;
        }
      }
      return true;
    }
  }
  return false;
}

// Item `dep.index` of a top-level list: the same item in both renders, or outside both.
bool Renderer::ElementHolds(const Dep& dep, const LoopMemo& old, LoopMemo& memo,
                            ReplayCache& cache) {
  const auto it = std::find_if(old.roots.begin(), old.roots.end(),
                               [&](const auto& r) { return r.first == dep.name; });
  if (it == old.roots.end()) return false;
  const Value& now = TopValue(dep.name, memo);
  const Value& before = it->second;
  if (!IndexedList(now) || !IndexedList(before) || now.kind() != before.kind()) return false;
  const int64_t k = Position(dep.index, now.items().size());
  if (k != Position(dep.index, before.items().size())) return false;
  if (k < 0) return true;
  std::vector<int8_t>& same = cache.same_items[dep.name];
  if (same.size() < now.items().size()) same.resize(now.items().size(), -1);
  auto& known = same[static_cast<size_t>(k)];
  if (known < 0) {
    known = SameValue(before.items()[static_cast<size_t>(k)], now.items()[static_cast<size_t>(k)])
                ? 1
                : 0;
  }
  return known == 1;
}

// A name as EvalName finds it from `frame`, and where it was found.
Value Renderer::Resolve(std::string_view name, const FramePtr& frame, Where& where) const {
  if (const Value* v = frame->Find(name)) {
    const auto& vars = root_->vars;
    const bool top = !vars.empty() && v >= &vars.front().second && v <= &vars.back().second;
    where = top ? Where::kTop : Where::kLocal;
    return *v;
  }
  where = Where::kTop;
  if (context_.is_mapping()) {
    if (const Value* v = context_.dict().FindKey(name)) return *v;
  }
  Value global = FindGlobal(name);
  if (!global.is_undefined()) {
    where = Where::kGlobal;
    return global;
  }
  return Value::Undefined(std::string(name));
}

// The value of top-level name `name` in this render, kept in `memo` for the next one.
const Value& Renderer::TopValue(std::string_view name, LoopMemo& memo) {
  for (const auto& [n, v] : memo.roots) {
    if (n == name) return v;
  }
  Where where = Where::kLocal;
  Value value = Resolve(name, root_, where);
  memo.roots.emplace_back(std::string(name), std::move(value));
  return memo.roots.back().second;
}

Value* Renderer::TopNamespace(std::string_view name) const {
  for (auto& [n, v] : root_->vars) {
    if (n == name) return IsNamespace(v) ? &v : nullptr;
  }
  return nullptr;
}

// Records a read of `name` that found `value` outside the iteration.
void Renderer::NoteName(std::string_view name, const Value& value, Where where) {
  Recorder& r = *recorder_;
  if (where == Where::kLocal) {
    if (r.loop != nullptr && value.kind() == Value::Kind::kDict && &value.dict() == r.loop) {
      // The whole loop object: anything may be read from it, the items around this one too
      // (previtem, nextitem), which the record does not compare.
      StopRecording();
    }
    return;
  }
  if (where == Where::kGlobal) {
    if (r.Find(DepKind::kGlobal, name) == nullptr) {
      r.record.deps.emplace_back(DepKind::kGlobal, name);
    }
    return;
  }
  if (IsNamespace(value)) {
    if (r.Find(DepKind::kNamespace, name) != nullptr) return;
    if (AnyLarge(r.EntriesAtStart(value.dict()))) {
      StopRecording();
      return;
    }
    Dep dep(DepKind::kNamespace, name);
    dep.entries = r.EntriesAtStart(value.dict());
    r.record.deps.push_back(std::move(dep));
    return;
  }
  if (r.Find(DepKind::kRoot, name) != nullptr) return;
  if (IndexedList(value) && value.items().size() == r.memo->items.size()) {
    // The whole of what the loop walks (`messages|length` in a loop over `messages[::-1]`):
    // such an iteration replays only for the very same conversation, never for a longer one.
    StopRecording();
    return;
  }
  r.record.deps.emplace_back(DepKind::kRoot, name);
  TopValue(name, *r.memo);
}

}  // namespace crux::chat_template

namespace crux::chat_template {

// `name.attr` while recording: an attribute of the loop object or of a top-level namespace is
// a read of that attribute alone.
Value Renderer::EvalAttrRecorded(const Expr& expr, const FramePtr& frame) {
  const std::string& name = expr.children[0]->name;
  Where where = Where::kLocal;
  Value subject = Resolve(name, frame, where);
  Recorder& r = *recorder_;
  if (where == Where::kLocal && r.loop != nullptr && subject.kind() == Value::Kind::kDict &&
      &subject.dict() == r.loop) {
    const std::string& attr = expr.name;
    if (attr == "last") {
      r.Use(LoopUse::kLast);
    } else if (attr == "previtem" || attr == "nextitem") {
      StopRecording();  // the items around this one: not compared by the record
    } else if (attr != "index" && attr != "index0" && attr != "first" && attr != "cycle" &&
               attr != "depth" && attr != "depth0") {
      r.Use(LoopUse::kLength);
    }
  } else if (where == Where::kTop && IsNamespace(subject)) {
    if (r.Find(DepKind::kAttr, name, expr.name) == nullptr) {
      const auto& entries = r.EntriesAtStart(subject.dict());
      Dep dep(DepKind::kAttr, name, expr.name);
      for (const auto& [key, value] : entries) {
        if (key.is_string() && key.as_string() == expr.name) {
          dep.present = true;
          dep.value = value;
        }
      }
      if (Large(dep.value)) {
        dep.value = Value();
        StopRecording();
      } else {
        r.record.deps.push_back(std::move(dep));
      }
    }
  } else {
    NoteName(name, subject, where);
  }
  At(expr);
  return GetAttr(subject, expr.name);
}

// `name[key]` while recording: an int key into a top-level list is a read of that item alone.
Value Renderer::EvalItemRecorded(const Expr& expr, const FramePtr& frame) {
  const std::string& name = expr.children[0]->name;
  Where where = Where::kLocal;
  Value subject = Resolve(name, frame, where);
  const bool item = where == Where::kTop && IndexedList(subject);
  if (!item) NoteName(name, subject, where);
  Value key = Eval(*expr.children[1], frame);
  if (item) {
    if (key.kind() == Value::Kind::kInt) {
      Recorder& r = *recorder_;
      if (r.Find(DepKind::kElement, name, {}, key.as_int()) == nullptr) {
        r.record.deps.emplace_back(DepKind::kElement, name, std::string_view(), key.as_int());
        TopValue(name, *r.memo);
      }
    } else {
      NoteName(name, subject, where);
    }
  }
  At(expr);
  return GetItem(subject, key);
}

// `a <op> b` while recording, where one side is an attribute of a top-level namespace that
// this iteration has not written and the other calls nothing (so cannot write it): a read of
// whether the comparison holds. False (nothing evaluated) for any other comparison.
bool Renderer::EvalCompareRecorded(const Expr& expr, const FramePtr& frame, Value& result) {
  if (expr.compare_ops.size() != 1) return false;
  size_t side = 2;
  const Value* ns = nullptr;
  for (size_t k = 0; k < 2 && side == 2; ++k) {
    const Expr& e = *expr.children[k];
    if (e.kind != ExprKind::kGetAttr || e.children[0]->kind != ExprKind::kName ||
        !CallsNothing(*expr.children[1 - k])) {
      continue;
    }
    Where where = Where::kLocal;
    const Value subject = Resolve(e.children[0]->name, frame, where);
    if (where != Where::kTop || !IsNamespace(subject) || recorder_->Wrote(subject.dict())) continue;
    ns = TopNamespace(e.children[0]->name);
    if (ns != nullptr && &ns->dict() == &subject.dict()) side = k;
  }
  if (side == 2) return false;
  const Expr& attr_expr = *expr.children[side];
  Value other = Eval(*expr.children[1 - side], frame);
  const Value* attr = ns->dict().FindKey(attr_expr.name);
  At(attr_expr);
  const Value attr_value = attr != nullptr ? *attr : GetAttr(*ns, attr_expr.name);
  At(expr);
  const CompareOp op = expr.compare_ops[0];
  const bool holds = side == 0 ? CompareOnce(*this, op, attr_value, other)
                               : CompareOnce(*this, op, other, attr_value);
  Dep dep(DepKind::kCompare, attr_expr.children[0]->name, attr_expr.name);
  dep.present = attr != nullptr;
  dep.value = std::move(other);
  dep.op = op;
  dep.attr_left = side == 0;
  dep.result = holds;
  recorder_->record.deps.push_back(std::move(dep));
  result = Value(holds);
  return true;
}

void Renderer::StopRecording() const {
  recorder_->ok = false;
  recording_ = false;
}

// Before `ns.attr` is written while recording. A top-level namespace is kept as it was before
// this iteration's first write to it. Any other namespace was made by this iteration (and goes
// with it), or was reached through a value that no later render can match (SameValue refuses
// namespaces inside values), so the record is never replayed: it needs no note.
void Renderer::NoteWrite(const Value& ns, std::string_view attr) {
  Recorder& r = *recorder_;
  const bool top = std::any_of(root_->vars.begin(), root_->vars.end(), [&](const auto& v) {
    return IsNamespace(v.second) && &v.second.dict() == &ns.dict();
  });
  if (!top) return;
  if (!r.Wrote(ns.dict())) {
    if (AnyLarge(ns.dict().entries)) {
      StopRecording();
      return;
    }
    r.before.emplace_back(&ns.dict(), ns.dict().entries);
  }
  const bool known = std::any_of(r.written.begin(), r.written.end(), [&](const auto& w) {
    return w.first == &ns.dict() && w.second == attr;
  });
  if (!known) r.written.emplace_back(&ns.dict(), std::string(attr));
}

}  // namespace crux::chat_template
