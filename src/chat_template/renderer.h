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

 private:
  const Stmt* stmt_;
  FramePtr closure_;
  std::string name_;
};

class Renderer {
 public:
  Renderer(const Value& context, const RenderOptions& options)
      : context_(context), options_(options) {}

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
  Value EvalContainer(const Expr& expr, const FramePtr& frame);
  Value EvalSlice(const Expr& expr, const FramePtr& frame);
  Value EvalCall(const Expr& expr, const FramePtr& frame);
  Value EvalFilter(const Expr& expr, const FramePtr& frame);
  Value EvalTest(const Expr& expr, const FramePtr& frame);
  Value EvalUnary(const Expr& expr, const FramePtr& frame);
  Value EvalCompare(const Expr& expr, const FramePtr& frame);
  CallArgs EvalArgs(const Expr& expr, const FramePtr& frame);
  void At(const Expr& expr) { site_ = {expr.line, expr.column}; }
  void At(const Stmt& stmt) { site_ = {stmt.line, stmt.column}; }

  const Value& context_;
  const RenderOptions& options_;
  FramePtr root_;
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

}  // namespace crux::chat_template
