#include "chat_template/loop_memo.h"

#include <algorithm>
#include <cstring>

#include "chat_template/function.h"

namespace crux::chat_template {
namespace {

bool SameItems(const Value& a, const Value& b) {
  const ListData& x = a.list_data();
  const ListData& y = b.list_data();
  if (&x == &y) return true;
  if (x.flavor != y.flavor || x.range_start != y.range_start || x.range_stop != y.range_stop ||
      x.range_step != y.range_step || x.deferred_error != y.deferred_error ||
      x.items.size() != y.items.size()) {
    return false;
  }
  for (size_t i = 0; i < x.items.size(); ++i) {
    if (!SameValue(x.items[i], y.items[i])) return false;
  }
  return true;
}

bool SameEntries(const std::vector<std::pair<Value, Value>>& x,
                 const std::vector<std::pair<Value, Value>>& y) {
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!SameValue(x[i].first, y[i].first) || !SameValue(x[i].second, y[i].second)) return false;
  }
  return true;
}

}  // namespace

bool SameValue(const Value& a, const Value& b) {
  if (a.kind() != b.kind() || a.is_markup() != b.is_markup()) return false;
  switch (a.kind()) {
    case Value::Kind::kUndefined:
      return a.undefined_hint() == b.undefined_hint();
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kBool:
      return a.as_bool() == b.as_bool();
    case Value::Kind::kInt:
      return a.as_int() == b.as_int();
    case Value::Kind::kFloat: {
      const double x = a.as_float();
      const double y = b.as_float();
      return std::memcmp(&x, &y, sizeof(x)) == 0;
    }
    case Value::Kind::kString: {
      const std::string& x = a.as_string();
      const std::string& y = b.as_string();
      return &x == &y || x == y;
    }
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return SameItems(a, b);
    case Value::Kind::kDict:
      return &a.dict() == &b.dict() || SameEntries(a.dict().entries, b.dict().entries);
    case Value::Kind::kNamespace:
      return false;
    case Value::Kind::kFunction:
      return a.function()->definition() == b.function()->definition();
  }
  return false;
}

std::vector<std::shared_ptr<const LoopMemo>> LoopMemoStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memos_;
}

void LoopMemoStore::Publish(std::vector<std::shared_ptr<const LoopMemo>> memos) {
  std::lock_guard<std::mutex> lock(mutex_);
  memos.insert(memos.end(), memos_.begin(), memos_.end());
  size_t bytes = 0;
  size_t kept = 0;
  while (kept < memos.size() && kept < kMaxMemos && bytes + memos[kept]->bytes <= kMaxBytes) {
    bytes += memos[kept]->bytes;
    ++kept;
  }
  memos.resize(kept);
  memos_ = std::move(memos);
}

}  // namespace crux::chat_template
