// The tree-walking renderer: one per Render call, over an immutable tree.
//
// Scopes follow Jinja2: the template's top level is one frame; each loop iteration, macro
// call and captured block ({% set %}…{% endset %}, {% filter %}) gets a child frame, so
// assignments inside them do not leak out; `if` bodies share their frame. Names resolve
// through the frames, then the context, then the globals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat_template/ast.h"
#include "chat_template/function.h"
#include "chat_template/loop_memo.h"
#include "crux/chat_template/template.h"

namespace crux::chat_template {

struct Frame {
  std::vector<std::pair<std::string, Value>> vars;
  std::shared_ptr<Frame> parent;

  const Value* Find(std::string_view name) const;
  void Set(std::string_view name, Value value);
};
using FramePtr = std::shared_ptr<Frame>;

class Renderer;

// A macro, or the body of a {% call %} block passed to one as `caller`.
class Macro final : public Function {
 public:
  Macro(const Stmt* stmt, FramePtr closure, std::string name)
      : stmt_(stmt), closure_(std::move(closure)), name_(std::move(name)) {}
  Value Call(Renderer& renderer, CallArgs& args) const override;
  std::string_view name() const override { return name_; }
  // A macro defined at the top level reads the top-level frame of the render that calls it,
  // which the loop memo checks by name: the same statement is the same function.
  const void* definition() const override { return stmt_; }

 private:
  const Stmt* stmt_;
  FramePtr closure_;
  std::string name_;
};

class Renderer {
 public:
  // `memo`, when given, holds the top-level loops of earlier renders of this template, which
  // this render replays where it can and adds to (loop_memo.h).
  Renderer(const Value& context, const RenderOptions& options, LoopMemoStore* memo = nullptr)
      : context_(context),
        options_(options),
        size_cap_(options.limits.max_output_bytes),
        memo_store_(memo) {}

  // Renders the template; throws RenderError.
  std::string Run(const std::vector<Stmt>& body);

  // For builtins.
  [[noreturn]] void Fail(std::string message, ErrorCode code = ErrorCode::kInvalidArgument) const;
  void Step();
  Value CallValue(const Value& callee, CallArgs& args);
  Value ApplyFilter(std::string_view name, const Value& subject, CallArgs& args);
  bool ApplyTest(std::string_view name, const Value& subject, CallArgs& args);
  Value GetAttr(const Value& subject, std::string_view name);
  Value GetItem(const Value& subject, const Value& key);
  // The values `for` walks: list and tuple items, dict keys, a string's characters; undefined
  // is empty; anything else raises.
  std::vector<Value> Iterate(const Value& value) const;
  // The wall clock (which an iteration being recorded for the loop memo must not read).
  int64_t NowSeconds() const;
  // Raises Python's TypeError for a value that cannot be a dict key or set member (lists,
  // dicts, dict key and item views, tuples holding one).
  void RequireHashable(const Value& value) const;
  const RenderOptions& options() const { return options_; }
  Value CallMacro(const Stmt& stmt, const FramePtr& closure, std::string_view name, CallArgs& args);

 private:
  enum class Flow : uint8_t { kNormal, kBreak, kContinue };
  struct Site {
    int line;
    int column;
  };

  Flow Exec(const std::vector<Stmt>& body, const FramePtr& frame);
  Flow ExecOne(const Stmt& stmt, const FramePtr& frame);
  void ExecIf(const Stmt& stmt, const FramePtr& frame, Flow& flow);
  void ExecFor(const Stmt& stmt, const FramePtr& frame);
  // Iteration `i` of a for: its frame (`scope`, reused where nothing holds it) and `loop`.
  Flow RunIteration(const Stmt& stmt, const std::vector<Value>& items, size_t i,
                    const FramePtr& frame, FramePtr& scope, Value& loop);
  std::vector<Value> LoopItems(const Stmt& stmt, const FramePtr& frame);
  void ExecSet(const Stmt& stmt, const FramePtr& frame);
  void Assign(const Expr& target, Value value, const FramePtr& frame);
  std::string Capture(const std::vector<Stmt>& body, const FramePtr& frame);
  void ExecCallBlock(const Stmt& stmt, const FramePtr& frame);
  void BindMacroArgs(const Stmt& stmt, std::string_view name, CallArgs& args,
                     const FramePtr& frame);
  void EmitText(std::string_view text);
  void Emit(const Value& value);
  bool EvalConcat(const Stmt& stmt, const FramePtr& frame, std::vector<Value>& parts,
                  Value& folded);
  Value* AppendTarget(const Expr& target, const FramePtr& frame);
  void SetConcat(const Stmt& stmt, std::vector<Value>& parts, const FramePtr& frame);

  Value Eval(const Expr& expr, const FramePtr& frame);
  Value EvalName(const Expr& expr, const FramePtr& frame);
  Value EvalAttr(const Expr& expr, const FramePtr& frame);
  Value EvalItem(const Expr& expr, const FramePtr& frame);
  Value EvalContainer(const Expr& expr, const FramePtr& frame);
  Value EvalSlice(const Expr& expr, const FramePtr& frame);
  Value EvalCall(const Expr& expr, const FramePtr& frame);
  Value EvalFilter(const Expr& expr, const FramePtr& frame);
  Value EvalTest(const Expr& expr, const FramePtr& frame);
  Value EvalUnary(const Expr& expr, const FramePtr& frame);
  Value EvalCompare(const Expr& expr, const FramePtr& frame);
  CallArgs EvalArgs(const Expr& expr, const FramePtr& frame);
  // The loop memo (memo_render.cc).
  struct Recorder;
  struct ReplayCache;
  enum class Where : uint8_t { kLocal, kTop, kGlobal };
  bool Memoizable(const FramePtr& frame, size_t items) const;
  void ExecForMemo(const Stmt& stmt, const std::vector<Value>& items);
  const LoopMemo* PickMemo(const LoopMemo& memo) const;
  std::vector<std::pair<std::string, size_t>> TopAliases() const;
  Flow RecordIteration(const Stmt& stmt, LoopMemo& memo, size_t i, FramePtr& scope, Value& loop);
  void FinishRecord(Recorder& recorder, LoopMemo& memo, size_t i);
  bool Replayable(const LoopMemo& old, LoopMemo& memo, size_t i, ReplayCache& cache);
  bool DepHolds(const Dep& dep, const LoopMemo& old, LoopMemo& memo, ReplayCache& cache);
  bool ElementHolds(const Dep& dep, const LoopMemo& old, LoopMemo& memo, ReplayCache& cache);
  Flow Replay(const std::shared_ptr<const IterationRecord>& record, LoopMemo& memo, size_t i);
  Value Resolve(std::string_view name, const FramePtr& frame, Where& where) const;
  const Value& TopValue(std::string_view name, LoopMemo& memo);
  Value* TopNamespace(std::string_view name) const;
  void NoteName(std::string_view name, const Value& value, Where where);
  Value EvalAttrRecorded(const Expr& expr, const FramePtr& frame);
  Value EvalItemRecorded(const Expr& expr, const FramePtr& frame);
  bool EvalCompareRecorded(const Expr& expr, const FramePtr& frame, Value& result);
  void NoteWrite(const Value& ns, std::string_view attr);
  void StopRecording() const;

  void At(const Expr& expr) { site_ = {expr.line, expr.column}; }
  void At(const Stmt& stmt) { site_ = {stmt.line, stmt.column}; }

  const Value& context_;
  const RenderOptions& options_;
  SizeCap size_cap_;
  LoopMemoStore* memo_store_;
  std::vector<std::shared_ptr<const LoopMemo>> old_memos_;
  std::vector<std::shared_ptr<const LoopMemo>> new_memos_;
  Recorder* recorder_ = nullptr;    // the iteration being recorded, if any
  mutable bool recording_ = false;  // recorder_ is set and its record can still be kept
  FramePtr root_;
  std::string* output_ = nullptr;  // the render's output (sink_ points elsewhere in a capture)
  std::string* sink_ = nullptr;
  std::string block_value_;
  Site site_{1, 1};
  uint64_t steps_ = 0;
  int call_depth_ = 0;
  int depth_ = 0;  // nested Eval and ExecOne calls: bounds the C++ stack

  struct DepthGuard {
    explicit DepthGuard(Renderer& r) : renderer(r) {
      if (++renderer.depth_ > kMaxDepth) {
        --renderer.depth_;
        renderer.Fail("the template nests too deeply", ErrorCode::kLimit);
      }
    }
    ~DepthGuard() { --renderer.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    Renderer& renderer;
  };
  static constexpr int kMaxDepth = 1500;
};

// Python's binary operators and comparisons over values; raise through `renderer`.
Value BinaryOp(Renderer& renderer, std::string_view op, const Value& a, const Value& b);
// a < b (Python ordering: numbers, strings, lists/tuples of the same kind).
bool LessThan(Renderer& renderer, const Value& a, const Value& b);
bool Contains(Renderer& renderer, const Value& container, const Value& item);
// One comparison of a chain: `left <op> right`.
bool CompareOnce(Renderer& renderer, CompareOp op, const Value& left, const Value& right);
// Sets `loop` to iteration `i` of `items`, building the loop object on the first call.
void SetLoopObject(Value& loop, const std::vector<Value>& items, size_t i);

}  // namespace crux::chat_template
