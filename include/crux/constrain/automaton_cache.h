// The process-wide cache of compiled pattern and format automata. CompileSchema and
// CompiledGrammar::Compile build a byte automaton for every `pattern`, `patternProperties`
// and `format` they meet; the same sources (a format such as date-time, a pattern repeated
// on many properties) are built once and shared, the automaton being immutable.
//
// Thread-safety: every function may be called from any thread. Cost: a lookup hashes the
// sources' text under one mutex; a compile runs outside it, so two threads may build the same
// automaton once each. Bounded: least recently used entries leave past kAutomatonCacheBytes
// of tables (an automaton still held by a grammar stays alive with it).
#pragma once

#include <cstddef>

namespace crux::constrain {

inline constexpr size_t kAutomatonCacheBytes = size_t{64} << 20;

struct AutomatonCacheStats {
  size_t entries = 0;
  size_t bytes = 0;  // tables held, as counted against kAutomatonCacheBytes
  size_t hits = 0;
  size_t misses = 0;
};

// Empties the cache and zeroes its counters, with the token sets kept for its automata's
// states (made by mask steps and by compiles), e.g. to measure compile time cold.
void ClearAutomatonCache();
AutomatonCacheStats GetAutomatonCacheStats();

}  // namespace crux::constrain
