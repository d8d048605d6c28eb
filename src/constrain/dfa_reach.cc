// How far each state of a string automaton is from refusing: the mask's shortcut for strings
// whose automaton cannot refuse anything a token could write (an unanchored pattern before
// its match, a pattern already matched).
#include <algorithm>
#include <array>

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
  kAfterF4
};
constexpr uint8_t kNoPhase = 0xFF;

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
std::vector<uint8_t> Phases(const ByteDfa& dfa) {
  std::vector<uint8_t> phase(dfa.state_count(), kNoPhase);
  std::vector<uint8_t> conflict(dfa.state_count(), 0);
  if (dfa.start() == kDeadState) return phase;
  std::vector<uint32_t> queue = {dfa.start()};
  phase[dfa.start()] = kBoundary;
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t q = queue[head];
    for (int byte = 0; byte < 256; ++byte) {
      const uint32_t to = dfa.Step(q, static_cast<uint8_t>(byte));
      const uint8_t next = NextPhase(phase[q], static_cast<uint8_t>(byte));
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

// Shortest distances (in bytes, capped) from every state to a bad one, over the transitions
// UTF-8 allows; `bad` gives each state's own distance (0 or 1) or kFarDepth.
template <typename Bad>
std::vector<uint16_t> DistanceToBad(const ByteDfa& dfa, const std::vector<uint8_t>& phase,
                                    Bad bad) {
  const size_t n = dfa.state_count();
  std::vector<std::vector<uint32_t>> reverse(n);
  std::vector<uint16_t> distance(n, kFarDepth);
  std::vector<uint32_t> queue;
  for (uint32_t q = 0; q < n; ++q) {
    distance[q] = bad(q);
    for (int byte = 0; byte < 256 && phase[q] != kNoPhase; ++byte) {
      const uint32_t to = dfa.Step(q, static_cast<uint8_t>(byte));
      if (to == kDeadState || NextPhase(phase[q], static_cast<uint8_t>(byte)) == kNoPhase) continue;
      if (reverse[to].empty() || reverse[to].back() != q) reverse[to].push_back(q);
    }
  }
  // Distances 0 and 1 seed the search; a breadth-first pass per level keeps it exact.
  for (uint16_t level = 0; level < 2; ++level) {
    for (uint32_t q = 0; q < n; ++q) {
      if (distance[q] == level) queue.push_back(q);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t q = queue[head];
    if (distance[q] + 1 >= kFarDepth) continue;
    for (uint32_t from : reverse[q]) {
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
  const std::vector<uint8_t> phase = Phases(dfa);
  // A state refuses next when some byte UTF-8 allows there kills it.
  auto refuses_next = [&](uint32_t q) {
    if (phase[q] == kNoPhase) return true;
    for (int byte = 0; byte < 256; ++byte) {
      if (NextPhase(phase[q], static_cast<uint8_t>(byte)) != kNoPhase &&
          dfa.Step(q, static_cast<uint8_t>(byte)) == kDeadState) {
        return true;
      }
    }
    return false;
  };
  std::vector<uint8_t> refusing(dfa.state_count());
  for (uint32_t q = 0; q < dfa.state_count(); ++q)
    refusing[q] = refuses_next(q) ? 1 : 0;
  reach.death = DistanceToBad(dfa, phase, [&](uint32_t q) -> uint16_t {
    return phase[q] == kNoPhase ? 0 : refusing[q] ? 1 : kFarDepth;
  });
  reach.unsettled = DistanceToBad(dfa, phase, [&](uint32_t q) -> uint16_t {
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

}  // namespace crux::constrain::grammar
