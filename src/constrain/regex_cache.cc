// The automaton cache behind CompileRegexes: least recently used out, keyed by the sources.
#include <string>
#include <utility>

#include "crux/base/byte_lru.h"
#include "crux/constrain/automaton_cache.h"
#include "grammar_specs.h"
#include "regex_internal.h"

namespace crux::constrain::regex {
namespace {

using AutomatonCache = ByteLru<std::string, Expected<ByteDfa>>;

AutomatonCache& Cache() {
  static AutomatonCache cache(kAutomatonCacheBytes);  // never destroyed before its last user
  return cache;
}

}  // namespace

std::optional<Expected<ByteDfa>> CachedAutomaton(const std::string& key) {
  return Cache().Find(key);
}

void CacheAutomaton(std::string key, const Expected<ByteDfa>& automaton) {
  const size_t bytes = key.size() + (automaton.ok() ? automaton->memory_bytes() : 0);
  Cache().Insert(std::move(key), automaton, bytes);
}

}  // namespace crux::constrain::regex

namespace crux::constrain {

void ClearAutomatonCache() {
  regex::Cache().Clear();
  grammar::ClearSharedStringInsides();
}

AutomatonCacheStats GetAutomatonCacheStats() {
  const auto stats = regex::Cache().GetStats();
  return {stats.entries, stats.bytes, stats.hits, stats.misses};
}

}  // namespace crux::constrain
