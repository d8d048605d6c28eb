// The automaton cache behind CompileRegexes: least recently used out, keyed by the sources.
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "crux/constrain/automaton_cache.h"
#include "regex_internal.h"

namespace crux::constrain::regex {
namespace {

struct Entry {
  std::string key;
  Expected<ByteDfa> automaton;
  size_t bytes = 0;
};

class AutomatonCache {
 public:
  std::optional<Expected<ByteDfa>> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = index_.find(key);
    if (found == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    ++stats_.hits;
    entries_.splice(entries_.begin(), entries_, found->second);
    return found->second->automaton;
  }

  void Insert(std::string key, const Expected<ByteDfa>& automaton) {
    const size_t bytes = key.size() + (automaton.ok() ? automaton->memory_bytes() : 0);
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes > kAutomatonCacheBytes || index_.contains(key)) return;
    while (stats_.bytes + bytes > kAutomatonCacheBytes) {
      stats_.bytes -= entries_.back().bytes;
      index_.erase(entries_.back().key);
      entries_.pop_back();
    }
    entries_.push_front({std::move(key), automaton, bytes});
    index_.emplace(entries_.front().key, entries_.begin());
    stats_.bytes += bytes;
    stats_.entries = entries_.size();
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    index_.clear();
    entries_.clear();
    stats_ = {};
  }

  AutomatonCacheStats Stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.entries = entries_.size();
    return stats_;
  }

 private:
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  AutomatonCacheStats stats_;
};

AutomatonCache& Cache() {
  static AutomatonCache cache;  // never destroyed before its last user: built on first use
  return cache;
}

}  // namespace

std::optional<Expected<ByteDfa>> CachedAutomaton(const std::string& key) {
  return Cache().Find(key);
}

void CacheAutomaton(std::string key, const Expected<ByteDfa>& automaton) {
  Cache().Insert(std::move(key), automaton);
}

}  // namespace crux::constrain::regex

namespace crux::constrain {

void ClearAutomatonCache() {
  regex::Cache().Clear();
}

AutomatonCacheStats GetAutomatonCacheStats() {
  return regex::Cache().Stats();
}

}  // namespace crux::constrain
