// Reuse of a top-level loop's iterations between renders of one template.
//
// Agents send the whole conversation again every turn, and a chat template renders it with one
// top-level `{% for message in messages %}`: each render repeats the work of the last one for
// every message that was already there. While one iteration runs, the renderer writes down
// everything it reads from outside the iteration: the loop item, which `loop` attributes it
// reads, the top-level variables and context keys it names (an item of a list when it indexes
// one, an attribute of a namespace when it reads one, or only whether a comparison with that
// attribute holds), and what it writes to top-level namespaces. The next render of the same
// loop replays an iteration, its text and its writes, only where every one of those reads gives
// the same value again (the same result, for a comparison), compared by content. An iteration
// that reads the clock, leaves by `break`, reads the whole list its loop walks (`messages|length`
// in a loop over `messages[::-1]`), or reads or writes a large value in a namespace (a
// template building its output in `ns.out`) is run every time; a loop whose first iterations
// all are is run without recording.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "chat_template/ast.h"
#include "crux/chat_template/value.h"

namespace crux::chat_template {

// a and b hold the same content, and so render, compare and print alike: the same kind, the
// same text, the same items in the same order, floats bit for bit, macros by definition. False
// for a namespace anywhere inside (its content can change after the comparison) and for other
// callables that are not the same object.
bool SameValue(const Value& a, const Value& b);

enum class DepKind : uint8_t {
  kRoot,       // the whole value of a top-level name (or context key)
  kGlobal,     // a name that resolved to a builtin global (no top-level name shadows it)
  kElement,    // item `index` of the list a top-level name holds
  kAttr,       // attribute `attr` of the namespace a top-level name holds, as the iteration began
  kCompare,    // `ns.attr <op> value` (or `value <op> ns.attr`) gave `result`
  kNamespace,  // every attribute of the namespace a top-level name holds, as the iteration began
};

struct Dep {
  Dep(DepKind k, std::string_view n, std::string_view a = {}, int64_t i = 0)
      : kind(k), name(n), attr(a), index(i) {}

  DepKind kind = DepKind::kRoot;
  std::string name;
  std::string attr;
  int64_t index = 0;
  bool present = false;  // kAttr, kCompare: the namespace had the attribute
  Value value;           // kAttr: the attribute; kCompare: the other operand
  CompareOp op = CompareOp::kEq;
  bool attr_left = false;  // kCompare: the attribute is the left operand
  bool result = false;
  std::vector<std::pair<Value, Value>> entries;  // kNamespace
};

// What an iteration read of its `loop` object, beyond its index.
enum class LoopUse : uint8_t { kIndex, kLast, kLength };

struct NamespaceWrite {
  std::string name;
  std::string attr;
  Value value;
};

struct IterationRecord {
  bool valid = false;
  bool continued = false;  // the iteration ended with `continue`
  LoopUse loop_use = LoopUse::kIndex;
  bool last = false;
  size_t length = 0;
  std::vector<Dep> deps;
  std::vector<NamespaceWrite> writes;
  std::shared_ptr<const std::string> output;
};

// One render of one top-level loop.
struct LoopMemo {
  const Stmt* stmt = nullptr;
  std::vector<Value> items;
  // The top-level names the iterations read, with their values during the loop (fixed: nothing
  // inside a loop can bind a top-level name).
  std::vector<std::pair<std::string, Value>> roots;
  // The top-level names bound to namespaces, each with the index of the first name bound to
  // the same namespace: writes and reads by name mean the same objects only where this agrees.
  std::vector<std::pair<std::string, size_t>> aliases;
  std::vector<std::shared_ptr<const IterationRecord>> records;  // null: not recorded
  size_t kept = 0;   // iterations recorded or replayed (a memo without any is not kept)
  size_t hits = 0;   // iterations replayed
  size_t bytes = 0;  // the recorded text, for the store's bound
};

// The loops of a template's recent renders. Thread-safe.
class LoopMemoStore {
 public:
  // The memos a render may reuse.
  std::vector<std::shared_ptr<const LoopMemo>> Snapshot() const;
  // Keeps the memos a render made (the most recent first), within kMaxMemos and kMaxBytes.
  void Publish(std::vector<std::shared_ptr<const LoopMemo>> memos);

  static constexpr size_t kMaxMemos = 16;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const LoopMemo>> memos_;
};

}  // namespace crux::chat_template
