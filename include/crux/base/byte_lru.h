// A thread-safe map whose entries stay within a byte budget, the least recently used leaving
// first: the process-wide caches of constrain/ (automata, the tokens inside string states)
// and of the server's compiled tool-call grammars (one "byte" an entry: a count bound).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace crux {

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class ByteLru {
 public:
  struct Stats {
    size_t entries = 0;
    size_t bytes = 0;  // as the inserts counted them
    size_t hits = 0;
    size_t misses = 0;
  };

  explicit ByteLru(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The value of `key`, now the most recently used; nullopt on a miss.
  std::optional<Value> Find(const Key& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = index_.find(key);
    if (found == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    ++stats_.hits;
    entries_.splice(entries_.begin(), entries_, found->second);
    return found->second->value;
  }

  // Keeps `value` under `key`, counted as `bytes`, the least recently used leaving to make
  // room. Nothing is kept for a key already there or past the whole budget.
  void Insert(Key key, Value value, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > max_bytes_ || index_.contains(key)) return;
    while (stats_.bytes + bytes > max_bytes_) {
      stats_.bytes -= entries_.back().bytes;
      index_.erase(entries_.back().key);
      entries_.pop_back();
    }
    entries_.push_front({std::move(key), std::move(value), bytes});
    index_.emplace(entries_.front().key, entries_.begin());
    stats_.bytes += bytes;
  }

  // Empties the map and zeroes its counters.
  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    entries_.clear();
    stats_ = {};
  }

  Stats GetStats() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.entries = entries_.size();
    return stats_;
  }

 private:
  struct Entry {
    Key key;
    Value value;
    size_t bytes;
  };
  const size_t max_bytes_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<Key, typename std::list<Entry>::iterator, Hash> index_;
  Stats stats_;
};

}  // namespace crux
