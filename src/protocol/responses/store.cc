#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "crux/protocol/response_store.h"
#include "protocol/json.h"

namespace crux::protocol {
namespace {

using internal::Json;
using Clock = std::chrono::steady_clock;

// What one response costs beyond its texts (the entry, its index rows), in bytes.
constexpr size_t kEntryOverhead = 256;

// One stored response. Immutable once made; shared with the newer responses that continue
// it. Its bytes leave `live` when the last owner lets go.
struct Entry {
  std::string id;
  std::string response_json;
  std::vector<std::string> items;                        // input items, then output items
  std::vector<std::pair<std::string, size_t>> item_ids;  // (id, position in items)
  std::shared_ptr<const Entry> previous;
  Clock::time_point expires;
  size_t bytes = 0;
  std::shared_ptr<std::atomic<size_t>> live;

  ~Entry() { live->fetch_sub(bytes); }
};

// Splits a JSON array text into its elements' texts (and their "id"s where they have one).
bool SplitItems(const Json& array, Entry& entry) {
  if (!array.is_array()) return false;
  for (const Json& item : array) {
    if (!item.is_object()) return false;
    if (auto it = item.find("id"); it != item.end() && it->is_string()) {
      entry.item_ids.emplace_back(it->get<std::string>(), entry.items.size());
    }
    entry.items.push_back(internal::Dump(item));
  }
  return true;
}

}  // namespace

struct ResponseStore::Impl {
  ResponseStoreOptions options;
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> by_id;
  std::unordered_map<std::string, std::pair<std::weak_ptr<const Entry>, size_t>> items;
  std::deque<std::string> order;  // ids by creation (= expiry) time, oldest first
  std::shared_ptr<std::atomic<size_t>> live = std::make_shared<std::atomic<size_t>>(0);

  void Forget(const std::string& id) {
    auto it = by_id.find(id);
    if (it == by_id.end()) return;
    const std::shared_ptr<const Entry> entry = std::move(it->second);
    by_id.erase(it);
    for (const auto& [item_id, position] : entry->item_ids) {
      auto row = items.find(item_id);
      if (row != items.end() && row->second.first.lock() == entry) items.erase(row);
    }
  }

  // Drops expired responses, then the oldest until the bytes fit.
  void Trim() {
    const Clock::time_point now = options.now();
    while (!order.empty()) {
      auto it = by_id.find(order.front());
      const bool gone = it == by_id.end();
      if (!gone && it->second->expires > now && live->load() <= options.max_bytes) break;
      if (!gone) Forget(order.front());
      order.pop_front();
    }
  }

  std::shared_ptr<const Entry> Find(std::string_view id) {
    Trim();
    auto it = by_id.find(std::string(id));
    return it == by_id.end() ? nullptr : it->second;
  }
};

ResponseStore::ResponseStore(ResponseStoreOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

bool ResponseStore::enabled() const {
  return impl_->options.max_bytes > 0;
}

ResponseStore::~ResponseStore() = default;

bool ResponseStore::Put(StoredResponse response) {
  if (!enabled()) return false;
  const Json body = Json::parse(response.response_json, nullptr, /*allow_exceptions=*/false);
  const Json input = Json::parse(response.input_json, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("output")) return false;
  auto entry = std::make_shared<Entry>();
  entry->live = impl_->live;
  if (!SplitItems(input, *entry) || !SplitItems(body["output"], *entry)) return false;
  entry->id = std::move(response.id);
  entry->response_json = std::move(response.response_json);
  entry->bytes = kEntryOverhead + entry->id.size() + entry->response_json.size();
  for (const std::string& item : entry->items)
    entry->bytes += item.size();
  for (const auto& [id, position] : entry->item_ids)
    entry->bytes += id.size() + kEntryOverhead / 4;
  if (entry->bytes > impl_->options.max_bytes) return false;

  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!response.previous_id.empty()) {
    entry->previous = impl_->Find(response.previous_id);
    // The response it continued was evicted meanwhile: storing this one would cut the
    // conversation short without saying so, so it is not stored (continuing it is a 404).
    if (entry->previous == nullptr) return false;
  }
  entry->expires = impl_->options.now() + impl_->options.ttl;
  impl_->live->fetch_add(entry->bytes);
  for (const auto& [item_id, position] : entry->item_ids)
    impl_->items[item_id] = {entry, position};
  impl_->order.push_back(entry->id);
  impl_->by_id[entry->id] = entry;
  impl_->Trim();
  return impl_->by_id.contains(entry->id);
}

std::optional<std::string> ResponseStore::Get(std::string_view id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto entry = impl_->Find(id);
  if (entry == nullptr) return std::nullopt;
  return entry->response_json;
}

bool ResponseStore::Delete(std::string_view id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->Find(id) == nullptr) return false;
  impl_->Forget(std::string(id));
  return true;
}

std::optional<std::vector<std::string>> ResponseStore::Conversation(std::string_view id) {
  std::shared_ptr<const Entry> entry;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    entry = impl_->Find(id);
  }
  if (entry == nullptr) return std::nullopt;
  std::vector<const Entry*> chain;
  for (const Entry* e = entry.get(); e != nullptr; e = e->previous.get())
    chain.push_back(e);
  std::vector<std::string> items;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    items.insert(items.end(), (*it)->items.begin(), (*it)->items.end());
  }
  return items;
}

std::optional<std::string> ResponseStore::Item(std::string_view item_id) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->Trim();
  auto row = impl_->items.find(std::string(item_id));
  if (row == impl_->items.end()) return std::nullopt;
  auto entry = row->second.first.lock();
  if (entry == nullptr) return std::nullopt;
  return entry->items[row->second.second];
}

size_t ResponseStore::size() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->Trim();
  return impl_->by_id.size();
}

size_t ResponseStore::bytes() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->Trim();
  return impl_->live->load();
}

}  // namespace crux::protocol
