// How far each state of a string automaton is from refusing: the mask's shortcut for strings
// whose automaton cannot refuse anything a token could write (an unanchored pattern before
// its match, a pattern already matched).
#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "grammar_specs.h"

namespace crux::constrain::grammar {
namespace {

// Where a well-formed UTF-8 sequence stands: at a character boundary, or owing continuation
// bytes (the first one restricted after E0, ED, F0 and F4).
enum Utf8Phase : uint8_t {
  kBoundary,
  kCont1,
  kCont2,
  kCont3,
  kAfterE0,
  kAfterED,
  kAfterF0,
  kAfterF4,
  kNoPhase = 0xFF,
};

uint8_t NextPhase(uint8_t phase, uint8_t byte);

// NextPhase per (phase, byte class) of `dfa`, at phase * class_count + class: UTF-8 treats all
// the bytes of a class alike (ByteDfa::ClassOf), so any byte of the class stands for them all.
struct PhaseTable {
  size_t classes = 0;
  std::vector<uint8_t> next;
  uint8_t Next(uint8_t phase, size_t byte_class) const {
    return phase == kNoPhase ? uint8_t{kNoPhase} : next[phase * classes + byte_class];
  }
};

PhaseTable MakePhaseTable(const ByteDfa& dfa) {
  PhaseTable table;
  table.classes = dfa.class_count();
  table.next.resize(size_t{kAfterF4 + 1} * table.classes);
  for (uint8_t phase = kBoundary; phase <= kAfterF4; ++phase) {
    for (int byte = 0; byte < 256; ++byte) {
      table.next[phase * table.classes + dfa.ClassOf(static_cast<uint8_t>(byte))] =
          NextPhase(phase, static_cast<uint8_t>(byte));
    }
  }
  return table;
}

// The phase after `byte`, or kNoPhase when UTF-8 does not allow it there.
uint8_t NextPhase(uint8_t phase, uint8_t byte) {
  const bool cont = byte >= 0x80 && byte <= 0xBF;
  switch (phase) {
    case kBoundary:
      if (byte < 0x80) return kBoundary;
      if (byte >= 0xC2 && byte <= 0xDF) return kCont1;
      if (byte == 0xE0) return kAfterE0;
      if (byte == 0xED) return kAfterED;
      if (byte >= 0xE1 && byte <= 0xEF) return kCont2;
      if (byte == 0xF0) return kAfterF0;
      if (byte >= 0xF1 && byte <= 0xF3) return kCont3;
      if (byte == 0xF4) return kAfterF4;
      return kNoPhase;
    case kCont1:
      return cont ? kBoundary : kNoPhase;
    case kCont2:
      return cont ? kCont1 : kNoPhase;
    case kCont3:
      return cont ? kCont2 : kNoPhase;
    case kAfterE0:
      return byte >= 0xA0 && byte <= 0xBF ? kCont1 : kNoPhase;
    case kAfterED:
      return byte >= 0x80 && byte <= 0x9F ? kCont1 : kNoPhase;
    case kAfterF0:
      return byte >= 0x90 && byte <= 0xBF ? kCont2 : kNoPhase;
    case kAfterF4:
      return byte >= 0x80 && byte <= 0x8F ? kCont2 : kNoPhase;
    default:
      return kNoPhase;
  }
}

// Each state's phase, from the start over live transitions; kNoPhase where two paths
// disagree (not expected of a UTF-8 automaton; such a state gets no shortcut).
std::vector<uint8_t> Phases(const ByteDfa& dfa, const PhaseTable& table) {
  std::vector<uint8_t> phase(dfa.state_count(), kNoPhase);
  std::vector<uint8_t> conflict(dfa.state_count(), 0);
  if (dfa.start() == kDeadState) return phase;
  std::vector<uint32_t> queue = {dfa.start()};
  phase[dfa.start()] = kBoundary;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t q = queue[head];
    for (size_t c = 0; c < table.classes; ++c) {
      const uint32_t to = dfa.StepClass(q, c);
      const uint8_t next = table.Next(phase[q], c);
      if (to == kDeadState || next == kNoPhase) continue;
      if (phase[to] == kNoPhase && !conflict[to]) {
        phase[to] = next;
        queue.push_back(to);
      } else if (phase[to] != next) {
        conflict[to] = 1;
      }
    }
  }
  for (size_t q = 0; q < phase.size(); ++q) {
    if (conflict[q]) phase[q] = kNoPhase;
  }
  return phase;
}

// The transitions UTF-8 allows, reversed and grouped by target, each (from, to) once: the
// states that step into q are from[begin[q], begin[q + 1]). Also, per state, whether some
// byte UTF-8 allows there kills it (a state with no phase counts as refusing).
struct ReverseEdges {
  std::vector<uint32_t> begin;
  std::vector<uint32_t> from;
  std::vector<uint8_t> refusing;
};

ReverseEdges ReverseOf(const ByteDfa& dfa, const PhaseTable& table,
                       const std::vector<uint8_t>& phase) {
  const size_t n = dfa.state_count();
  ReverseEdges edges;
  edges.begin.assign(n + 1, 0);
  edges.refusing.assign(n, 0);
  // (to, from) pairs in one pass; many classes of a state lead to one target, so
  // last_from[to] == q marks it seen from q.
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  std::vector<uint32_t> last_from(n, kDeadState);
  for (uint32_t q = 0; q < n; ++q) {
    if (phase[q] == kNoPhase) {
      edges.refusing[q] = 1;
      continue;
    }
    for (size_t c = 0; c < table.classes; ++c) {
      if (table.Next(phase[q], c) == kNoPhase) continue;
      const uint32_t to = dfa.StepClass(q, c);
      if (to == kDeadState) {
        edges.refusing[q] = 1;
      } else if (last_from[to] != q) {
        last_from[to] = q;
        pairs.emplace_back(to, q);
        ++edges.begin[to + 1];
      }
    }
  }
  for (size_t q = 0; q < n; ++q)
    edges.begin[q + 1] += edges.begin[q];
  edges.from.resize(pairs.size());
  std::vector<uint32_t> fill(edges.begin.begin(), edges.begin.end() - 1);
  for (auto [to, from] : pairs)
    edges.from[fill[to]++] = from;
  return edges;
}

// Shortest distances (in bytes, capped) from every state to a bad one, over `edges`; `bad`
// gives each state's own distance (0 or 1) or kFarDepth.
template <typename Bad>
std::vector<uint16_t> DistanceToBad(const ReverseEdges& edges, Bad bad) {
  const size_t n = edges.begin.size() - 1;
  std::vector<uint16_t> distance(n, kFarDepth);
  std::vector<uint32_t> queue;
  for (uint32_t q = 0; q < n; ++q)
    distance[q] = bad(q);
  // Distances 0 and 1 seed the search; a breadth-first pass per level keeps it exact.
  for (uint16_t level = 0; level < 2; ++level) {
    for (uint32_t q = 0; q < n; ++q) {
      if (distance[q] == level) queue.push_back(q);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t q = queue[head];
    if (distance[q] + 1 >= kFarDepth) continue;
    for (uint32_t e = edges.begin[q]; e < edges.begin[q + 1]; ++e) {
      const uint32_t from = edges.from[e];
      if (distance[from] > distance[q] + 1) {
        distance[from] = static_cast<uint16_t>(distance[q] + 1);
        queue.push_back(from);
      }
    }
  }
  return distance;
}

}  // namespace

DfaReach ComputeDfaReach(const ByteDfa& dfa, const std::vector<uint32_t>& to_accept) {
  DfaReach reach;
  const PhaseTable table = MakePhaseTable(dfa);
  reach.phase = Phases(dfa, table);
  const std::vector<uint8_t>& phase = reach.phase;
  const ReverseEdges edges = ReverseOf(dfa, table, phase);
  const std::vector<uint8_t>& refusing = edges.refusing;
  reach.death = DistanceToBad(edges, [&](uint32_t q) -> uint16_t {
    return phase[q] == kNoPhase ? 0 : refusing[q] ? 1 : kFarDepth;
  });
  reach.unsettled = DistanceToBad(edges, [&](uint32_t q) -> uint16_t {
    if (phase[q] == kNoPhase || (phase[q] == kBoundary && !dfa.MatchesAll(q))) return 0;
    return refusing[q] ? 1 : kFarDepth;
  });
  for (uint32_t q = 0; q < dfa.state_count(); ++q) {
    if (to_accept[q] != UINT32_MAX)
      reach.max_to_accept = std::max(reach.max_to_accept, to_accept[q]);
    if (reach.accepting == kDeadState && dfa.MatchesAll(q)) reach.accepting = q;
  }
  return reach;
}

namespace {

// The split whose safe bytes are those that keep the automaton in `state` (its self-loops):
// after any run of them it is still there, so the first other byte kills exactly when it
// kills `state`.
ByteSplit SelfLoopSplit(const ByteDfa& dfa, const PhaseTable& table, uint8_t phase,
                        uint32_t state) {
  ByteSplit split;
  for (int byte = 0; byte < 256; ++byte) {
    const size_t c = dfa.ClassOf(static_cast<uint8_t>(byte));
    if (table.Next(phase, c) == kNoPhase) continue;
    const uint32_t to = dfa.StepClass(state, c);
    if (to == state && table.Next(phase, c) == phase) split.safe.Set(static_cast<uint8_t>(byte));
    if (to == kDeadState) split.kill.Set(static_cast<uint8_t>(byte));
  }
  return split;
}

// How much of the text tokens are made of a safe set covers: printable ASCII first (most
// tokens), then the rest.
size_t Weight(const ByteSet& set) {
  const uint64_t printable = set.words[0] & ~uint64_t{0xFFFFFFFF};
  const uint64_t rest = static_cast<uint64_t>(std::popcount(set.words[2])) +
                        static_cast<uint64_t>(std::popcount(set.words[3]));
  return static_cast<size_t>(std::popcount(printable) + std::popcount(set.words[1])) * 256 +
         static_cast<size_t>(rest);
}

ByteSplit ReachSplit(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                     uint32_t state, uint32_t horizon, const KilledAhead* ahead = nullptr);
ByteSplit EntrySplit(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                     uint32_t state);
ByteSplit SplitOf(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                  const std::vector<uint8_t>& safe, const std::vector<uint32_t>& reached);

// Whether every state `horizon` safe bytes after `state` refuses every safe byte UTF-8 allows
// there (a count run out), when few states are that far (false otherwise).
bool RunEnds(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
             uint32_t state, uint32_t horizon, const ByteSet& safe_bytes) {
  std::vector<uint8_t> safe(table.classes, 0);
  for (int byte = 0; byte < 256; ++byte) {
    if (safe_bytes.Has(static_cast<uint8_t>(byte)))
      safe[dfa.ClassOf(static_cast<uint8_t>(byte))] = 1;
  }
  constexpr size_t kMostStates = 64;
  std::vector<uint32_t> layer = {state};
  std::vector<uint32_t> next;
  std::vector<uint32_t> mark(dfa.state_count(), UINT32_MAX);
  for (uint32_t d = 0; d < horizon; ++d) {
    next.clear();
    for (uint32_t q : layer) {
      for (size_t c = 0; c < table.classes; ++c) {
        if (!safe[c] || table.Next(phase[q], c) == kNoPhase) continue;
        const uint32_t to = dfa.StepClass(q, c);
        if (to == kDeadState || mark[to] == d) continue;
        mark[to] = d;
        next.push_back(to);
      }
    }
    if (next.size() > kMostStates) return false;
    layer.swap(next);
  }
  for (uint32_t q : layer) {
    for (size_t c = 0; c < table.classes; ++c) {
      if (safe[c] && table.Next(phase[q], c) != kNoPhase && dfa.StepClass(q, c) != kDeadState) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

KilledAhead ClassesKilledAhead(const ByteDfa& dfa, const DfaReach& reach) {
  const PhaseTable table = MakePhaseTable(dfa);
  const size_t n = dfa.state_count();
  KilledAhead ahead;
  ahead.words = (table.classes + 63) / 64;
  ahead.bits.assign(n * ahead.words, 0);
  // Each state's own refusals, then their union backwards over the transitions UTF-8 allows,
  // a state again each time its set grows.
  for (uint32_t q = 0; q < n; ++q) {
    if (reach.phase[q] == kNoPhase) continue;
    for (size_t c = 0; c < table.classes; ++c) {
      if (table.Next(reach.phase[q], c) != kNoPhase && dfa.StepClass(q, c) == kDeadState)
        ahead.bits[q * ahead.words + c / 64] |= uint64_t{1} << (c % 64);
    }
  }
  const ReverseEdges edges = ReverseOf(dfa, table, reach.phase);
  std::vector<uint32_t> queue;
  std::vector<uint8_t> queued(n, 0);
  for (uint32_t q = 0; q < n; ++q) {
    for (size_t w = 0; w < ahead.words && queued[q] == 0; ++w) {
      if (ahead.bits[q * ahead.words + w] != 0) {
        queued[q] = 1;
        queue.push_back(q);
      }
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t q = queue[head];
    queued[q] = 0;
    for (uint32_t e = edges.begin[q]; e < edges.begin[q + 1]; ++e) {
      const uint32_t from = edges.from[e];
      bool grew = false;
      for (size_t w = 0; w < ahead.words; ++w) {
        const uint64_t before = ahead.bits[from * ahead.words + w];
        const uint64_t after = before | ahead.bits[q * ahead.words + w];
        grew = grew || after != before;
        ahead.bits[from * ahead.words + w] = after;
      }
      if (grew && queued[from] == 0) {
        queued[from] = 1;
        queue.push_back(from);
      }
    }
  }
  return ahead;
}

// The larger of two splits: the self-loops of `state`, and the bytes the states they reach
// from it all take.
ByteSplit SplitBytes(const ByteDfa& dfa, const DfaReach& reach, uint32_t state,
                     const KilledAhead* ahead) {
  const PhaseTable table = MakePhaseTable(dfa);
  if (reach.phase[state] == kNoPhase) return {};
  ByteSplit best = SelfLoopSplit(dfa, table, reach.phase[state], state);
  for (ByteSplit other : {ReachSplit(dfa, table, reach.phase, state, UINT32_MAX, ahead),
                          EntrySplit(dfa, table, reach.phase, state)}) {
    if (Weight(other.safe) > Weight(best.safe)) best = other;
  }
  return best;
}

std::optional<CountSplit> SplitForCount(const ByteDfa& dfa, const DfaReach& reach, uint32_t state,
                                        uint32_t max_horizon) {
  if (reach.phase[state] == kNoPhase || max_horizon < 2) return std::nullopt;
  const PhaseTable table = MakePhaseTable(dfa);
  auto within = [&](uint32_t horizon) {
    return ReachSplit(dfa, table, reach.phase, state, horizon);
  };
  // The same safe bytes reach the same states whatever the horizon, so they kill alike too.
  // The set of one byte may hold bytes only `state` itself takes (a dot that cannot follow a
  // dot in a dot-atom): the run that counts starts where the set stops shrinking.
  constexpr uint32_t kMostFirst = 4;
  uint32_t base = 1;
  ByteSplit first = within(base);
  auto keeps = [&](uint32_t horizon) { return within(horizon).safe == first.safe; };
  while (!keeps(base + 1)) {
    if (++base > kMostFirst || base >= max_horizon) return std::nullopt;
    first = within(base);
  }
  if (first.safe == ByteSet{}) return std::nullopt;
  uint32_t low = base + 1;  // keeps(low); !keeps(high)
  uint32_t high = max_horizon;
  if (keeps(high)) return CountSplit{first, high};
  while (high - low > 1) {
    const uint32_t mid = low + (high - low) / 2;
    (keeps(mid) ? low : high) = mid;
  }
  if (!RunEnds(dfa, table, reach.phase, state, low, first.safe)) return std::nullopt;
  return CountSplit{first, low};
}

namespace {

// (`horizon`: the longest run of safe bytes a token may write; only the states within fewer
// bytes than that of `state` must take the safe bytes. UINT32_MAX: no limit.)
ByteSplit ReachSplit(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                     uint32_t state, uint32_t horizon, const KilledAhead* ahead) {
  const size_t classes = table.classes;
  std::vector<uint8_t> safe(classes, 1);
  // Classes that some state ahead refuses are dropped at once, before the search that would
  // reach that state. The search still checks that the states the rest reach take them all;
  // where the refusing state lies only behind classes dropped later, it keeps less.
  if (ahead != nullptr) {
    const uint64_t* killed = ahead->bits.data() + size_t{state} * ahead->words;
    for (size_t c = 0; c < classes; ++c) {
      if ((killed[c / 64] >> (c % 64) & 1) != 0) safe[c] = 0;
    }
  }
  std::vector<uint32_t> depth(dfa.state_count(), UINT32_MAX);  // UINT32_MAX: not reached
  std::vector<uint32_t> reached;
  // Safe classes shrink until the states they reach from `state` all take them: a class that
  // kills some reached state where UTF-8 allows it is dropped, and the reach recomputed.
  for (bool changed = true; changed;) {
    changed = false;
    std::fill(depth.begin(), depth.end(), UINT32_MAX);
    reached = {state};
    depth[state] = 0;
    for (size_t head = 0; head < reached.size(); ++head) {
      const uint32_t q = reached[head];
      if (depth[q] >= horizon) continue;
      for (size_t c = 0; c < classes; ++c) {
        if (!safe[c] || table.Next(phase[q], c) == kNoPhase) continue;
        const uint32_t to = dfa.StepClass(q, c);
        if (to == kDeadState) {
          safe[c] = 0;
          changed = true;
        } else if (depth[to] == UINT32_MAX) {
          depth[to] = depth[q] + 1;
          reached.push_back(to);
        }
      }
    }
  }
  // A class kills when every state the safe bytes reach (however many of them a token
  // writes) dies on it where UTF-8 allows it.
  for (size_t head = 0; head < reached.size(); ++head) {
    const uint32_t q = reached[head];
    if (depth[q] < horizon) continue;  // followed above
    for (size_t c = 0; c < classes; ++c) {
      if (!safe[c] || table.Next(phase[q], c) == kNoPhase) continue;
      const uint32_t to = dfa.StepClass(q, c);
      if (to != kDeadState && depth[to] == UINT32_MAX) {
        depth[to] = horizon;
        reached.push_back(to);
      }
    }
  }
  return SplitOf(dfa, table, phase, safe, reached);
}

// The split of the safe classes `safe`, given every state they reach: a class kills when each
// of those states dies on it where UTF-8 allows it.
ByteSplit SplitOf(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                  const std::vector<uint8_t>& safe, const std::vector<uint32_t>& reached) {
  const size_t classes = table.classes;
  std::vector<uint8_t> kill(classes, 1);
  for (uint32_t q : reached) {
    for (size_t c = 0; c < classes; ++c) {
      if (table.Next(phase[q], c) != kNoPhase && dfa.StepClass(q, c) != kDeadState) kill[c] = 0;
    }
  }
  ByteSplit split;
  for (int byte = 0; byte < 256; ++byte) {
    const size_t c = dfa.ClassOf(static_cast<uint8_t>(byte));
    if (safe[c]) split.safe.Set(static_cast<uint8_t>(byte));
    if (kill[c] && !safe[c]) split.kill.Set(static_cast<uint8_t>(byte));
  }
  return split;
}

// ReachSplit drops a class that some reached state refuses. Where the state that refuses is
// a detour (the `$(` of `^(?:[\w.-]+|\$\([\w.-]+\))+$`, which refuses letters until
// its `(`), dropping the class that leads into it keeps more: starting from the classes
// `state` takes, the class of the step into each reached state that refuses a safe class is
// dropped (the refused class itself at `state`), until the reached states take them all.
// Gives up (nothing safe) past kMostStates reached states: over the JSONSchemaBench corpus,
// this split was the largest with at most 142 states reached, while an automaton of thousands
// of states (a count of words) spent a full search per state on it to lose.
ByteSplit EntrySplit(const ByteDfa& dfa, const PhaseTable& table, const std::vector<uint8_t>& phase,
                     uint32_t state) {
  constexpr size_t kMostStates = 512;
  const size_t classes = table.classes;
  std::vector<uint8_t> safe(classes, 0);
  for (size_t c = 0; c < classes; ++c) {
    if (table.Next(phase[state], c) != kNoPhase && dfa.StepClass(state, c) != kDeadState) {
      safe[c] = 1;
    }
  }
  std::vector<uint32_t> entry(dfa.state_count(), UINT32_MAX);  // the class into it; unreached
  std::vector<uint32_t> reached;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t q : reached)
      entry[q] = UINT32_MAX;
    reached = {state};
    entry[state] = static_cast<uint32_t>(classes);  // reached without a step
    std::vector<uint8_t> drop(classes, 0);
    for (size_t head = 0; head < reached.size(); ++head) {
      if (reached.size() > kMostStates) {
        for (uint32_t q : reached)
          entry[q] = UINT32_MAX;
        return {};
      }
      const uint32_t q = reached[head];
      for (size_t c = 0; c < classes; ++c) {
        if (!safe[c] || table.Next(phase[q], c) == kNoPhase) continue;
        const uint32_t to = dfa.StepClass(q, c);
        if (to == kDeadState) {
          drop[q == state ? c : entry[q]] = 1;
        } else if (entry[to] == UINT32_MAX) {
          entry[to] = static_cast<uint32_t>(c);
          reached.push_back(to);
        }
      }
    }
    for (size_t c = 0; c < classes; ++c) {
      if (drop[c] != 0 && safe[c] != 0) {
        safe[c] = 0;
        changed = true;
      }
    }
  }
  return SplitOf(dfa, table, phase, safe, reached);
}

}  // namespace

bool SameWithin(const ByteDfa& dfa, const std::vector<uint32_t>& to_accept, uint32_t s, uint32_t t,
                uint32_t horizon, size_t& budget) {
  // The pairs of states one text reaches from (s, t), breadth first: a pair first met at
  // depth d stands for every later meeting of it, whose texts are its own cut shorter.
  if (s == t) return true;
  if (to_accept[s] != to_accept[t]) return false;
  std::unordered_set<uint64_t> seen;
  std::vector<std::pair<uint32_t, uint32_t>> level{{s, t}};
  std::vector<std::pair<uint32_t, uint32_t>> next;
  seen.insert(uint64_t{s} << 32 | t);
  const size_t classes = dfa.class_count();
  for (uint32_t depth = 0; depth < horizon && !level.empty(); ++depth) {
    next.clear();
    for (const auto& [p, q] : level) {
      if (budget == 0) return false;
      --budget;
      for (size_t c = 0; c < classes; ++c) {
        const uint32_t a = dfa.StepClass(p, c);
        const uint32_t b = dfa.StepClass(q, c);
        if (a == b) continue;  // one state: the same from here on
        if (a == kDeadState || b == kDeadState || to_accept[a] != to_accept[b]) return false;
        if (seen.insert(uint64_t{a} << 32 | b).second) next.emplace_back(a, b);
      }
    }
    level.swap(next);
  }
  return true;
}

}  // namespace crux::constrain::grammar
