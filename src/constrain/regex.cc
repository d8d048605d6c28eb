// CompileRegexes: the sources' NFAs side by side, subset construction over bytes, then pruning.
//
// A DFA state is the set of NFA byte states reachable after the input so far (its epsilon
// closure, `^` edges followed only before the first byte) plus the sources that match if the
// input ends there (the closure followed on through `$` edges, which no byte may follow).
#include "regex.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <utility>

#include "regex_internal.h"

namespace crux::constrain {

using regex::NfaState;
using Kind = NfaState::Kind;

// One track of the construction: a source, or a leading lookahead of a pattern source. A
// source matches when its positive tracks match and its negated ones do not. The NFA states
// of the track are [begin, end), and within them the trailing any-string loop of a searched
// pattern, [rest_begin, rest_end) (empty for the other kinds).
struct SourceSpan {
  uint32_t source = 0;
  bool negated = false;
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t rest_begin = 0;
  uint32_t rest_end = 0;
};

class DfaBuilder {
 public:
  DfaBuilder(const std::vector<NfaState>& nfa, std::vector<SourceSpan> spans, size_t sources)
      : nfa_(nfa),
        spans_(std::move(spans)),
        words_((spans_.size() + 31) / 32),
        stamps_(nfa.size() * 2, 0),
        rest_source_(nfa.size(), kNoSource) {
    for (size_t source = 0; source < spans_.size(); ++source) {
      if (spans_[source].rest_begin != spans_[source].rest_end) {
        rest_source_[spans_[source].rest_begin] = static_cast<uint32_t>(source);
      }
    }
    dfa_.source_count_ = spans_.size();  // tracks until SourceMatches
    dfa_.words_ = words_;
    source_count_ = sources;
  }

  Expected<ByteDfa> Build(const std::vector<uint32_t>& starts);

 private:
  // The closure of `seeds`: the byte states (sorted) and the match bits, as one key.
  struct Closure {
    std::vector<uint32_t> bytes;
    std::vector<uint32_t> matches;
    std::vector<uint32_t> settled;  // searched sources whose trailing loop was reached
  };
  static constexpr uint32_t kNoSource = UINT32_MAX;
  Closure Close(const std::vector<uint32_t>& seeds, bool at_start);
  // Drops the byte states of searched patterns that already match: their trailing loop keeps
  // them matching on every continuation, so the rest of their NFA cannot change the outcome
  // (and would only multiply states).
  void DropSettled(Closure& closure) const;
  // The DFA state of `closure` (a new one when unseen); kDeadState for the empty closure.
  Expected<uint32_t> Intern(Closure closure);
  Status Expand(uint32_t state);
  // Turns the states' track bits into source bits.
  void SourceMatches();
  void Prune();

  const std::vector<NfaState>& nfa_;
  std::vector<SourceSpan> spans_;
  size_t words_;  // per track bitset
  size_t source_count_ = 0;
  std::vector<uint32_t> stamps_;       // per (NFA state, past `$`): the closure that last saw it
  std::vector<uint32_t> rest_source_;  // per NFA state: the source whose trailing loop it opens
  size_t work_ = 0;                    // byte states summed over the DFA states so far
  uint32_t stamp_ = 0;
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::vector<uint32_t>> byte_sets_;  // per DFA state
  ByteDfa dfa_;
};

DfaBuilder::Closure DfaBuilder::Close(const std::vector<uint32_t>& seeds, bool at_start) {
  Closure closure;
  closure.matches.assign(words_, 0);
  ++stamp_;
  std::vector<std::pair<uint32_t, bool>> stack;  // (state, past a `$`)
  for (uint32_t seed : seeds)
    stack.push_back({seed, false});
  while (!stack.empty()) {
    const auto [id, past_end] = stack.back();
    stack.pop_back();
    uint32_t& seen = stamps_[size_t{id} * 2 + (past_end ? 1 : 0)];
    if (seen == stamp_) continue;
    seen = stamp_;
    const NfaState& state = nfa_[id];
    switch (state.kind) {
      case Kind::kByte:
        if (!past_end) closure.bytes.push_back(id);
        break;
      case Kind::kSplit:
        if (!past_end && rest_source_[id] != kNoSource) closure.settled.push_back(rest_source_[id]);
        stack.push_back({state.other, past_end});
        stack.push_back({state.next, past_end});
        break;
      case Kind::kJump:
        stack.push_back({state.next, past_end});
        break;
      case Kind::kLineStart:
        if (at_start) stack.push_back({state.next, past_end});
        break;
      case Kind::kLineEnd:
        stack.push_back({state.next, true});
        break;
      case Kind::kAccept:
        closure.matches[state.source / 32] |= uint32_t{1} << (state.source % 32);
        break;
      case Kind::kFail:
        break;
    }
  }
  std::sort(closure.bytes.begin(), closure.bytes.end());
  DropSettled(closure);
  return closure;
}

void DfaBuilder::DropSettled(Closure& closure) const {
  for (uint32_t source : closure.settled) {
    const SourceSpan& span = spans_[source];
    std::erase_if(closure.bytes, [&](uint32_t id) {
      return id >= span.begin && id < span.end && (id < span.rest_begin || id >= span.rest_end);
    });
  }
}

Expected<uint32_t> DfaBuilder::Intern(Closure closure) {
  const bool matches = std::any_of(closure.matches.begin(), closure.matches.end(),
                                   [](uint32_t word) { return word != 0; });
  if (closure.bytes.empty() && !matches) return kDeadState;
  std::string key(reinterpret_cast<const char*>(closure.bytes.data()),
                  closure.bytes.size() * sizeof(uint32_t));
  key.append(reinterpret_cast<const char*>(closure.matches.data()), words_ * sizeof(uint32_t));
  auto [entry, inserted] = ids_.try_emplace(std::move(key), byte_sets_.size());
  if (!inserted) return entry->second;
  work_ += closure.bytes.size();
  if (byte_sets_.size() >= kMaxDfaStates || work_ > kMaxDfaWork) {
    return Error(ErrorCode::kLimit, "the automaton needs more than kMaxDfaStates (" +
                                        std::to_string(kMaxDfaStates) +
                                        ") states or kMaxDfaWork NFA states in them");
  }
  byte_sets_.push_back(std::move(closure.bytes));
  dfa_.match_words_.insert(dfa_.match_words_.end(), closure.matches.begin(), closure.matches.end());
  dfa_.transitions_.resize(byte_sets_.size() * 256, kDeadState);
  return entry->second;
}

// Fills the transitions of `state`: the targets of each byte, one closure per run of bytes
// with the same targets. Cost: the byte states' range widths plus one closure per run.
Status DfaBuilder::Expand(uint32_t state) {
  const std::vector<uint32_t> bytes = byte_sets_[state];
  std::array<std::vector<uint32_t>, 256> targets;
  for (uint32_t id : bytes) {
    for (int byte = nfa_[id].first; byte <= nfa_[id].last; ++byte)
      targets[static_cast<size_t>(byte)].push_back(nfa_[id].next);
  }
  uint32_t target = kDeadState;
  for (size_t byte = 0; byte < 256; ++byte) {
    if (targets[byte].empty()) continue;
    if (byte == 0 || targets[byte] != targets[byte - 1]) {
      auto interned = Intern(Close(targets[byte], false));
      if (!interned) return interned.error();
      target = *interned;
    }
    dfa_.transitions_[size_t{state} * 256 + byte] = target;
  }
  return {};
}

void DfaBuilder::SourceMatches() {
  const size_t source_words = (source_count_ + 31) / 32;
  std::vector<uint32_t> words(byte_sets_.size() * source_words, 0);
  for (uint32_t state = 0; state < byte_sets_.size(); ++state) {
    const std::span<const uint32_t> tracks = dfa_.MatchWords(state);
    std::vector<uint8_t> positive(source_count_, 1);
    for (size_t track = 0; track < spans_.size(); ++track) {
      const bool on = (tracks[track / 32] >> (track % 32) & 1) != 0;
      if (on == spans_[track].negated) positive[spans_[track].source] = 0;
    }
    for (size_t source = 0; source < source_count_; ++source) {
      if (positive[source]) {
        words[state * source_words + source / 32] |= uint32_t{1} << (source % 32);
      }
    }
  }
  dfa_.match_words_ = std::move(words);
  dfa_.words_ = source_words;
  dfa_.source_count_ = source_count_;
}

// Keeps the states that can reach a match (renumbered in order), and marks those that can
// reach a state where every source matches.
void DfaBuilder::Prune() {
  const size_t count = byte_sets_.size();
  std::vector<std::vector<uint32_t>> reverse(count);
  for (size_t from = 0; from < count; ++from) {
    for (size_t byte = 0; byte < 256; ++byte) {
      const uint32_t to = dfa_.transitions_[from * 256 + byte];
      if (to != kDeadState && (reverse[to].empty() || reverse[to].back() != from)) {
        reverse[to].push_back(static_cast<uint32_t>(from));
      }
    }
  }
  auto reach = [&](auto accepts) {
    std::vector<uint8_t> reached(count, 0);
    std::vector<uint32_t> stack;
    for (uint32_t s = 0; s < count; ++s) {
      if (accepts(s)) stack.push_back(s), reached[s] = 1;
    }
    while (!stack.empty()) {
      const uint32_t s = stack.back();
      stack.pop_back();
      for (uint32_t from : reverse[s]) {
        if (!reached[from]) stack.push_back(from), reached[from] = 1;
      }
    }
    return reached;
  };
  const std::vector<uint8_t> alive = reach([&](uint32_t s) {
    const std::span<const uint32_t> words = dfa_.MatchWords(s);
    return std::any_of(words.begin(), words.end(), [](uint32_t word) { return word != 0; });
  });
  const std::vector<uint8_t> all = reach([&](uint32_t s) { return dfa_.MatchesAll(s); });
  std::vector<uint32_t> renumber(count, kDeadState);
  uint32_t kept = 0;
  for (size_t s = 0; s < count; ++s) {
    if (alive[s]) renumber[s] = kept++;
  }
  ByteDfa pruned;
  pruned.source_count_ = dfa_.source_count_;
  pruned.words_ = dfa_.words_;
  pruned.transitions_.resize(size_t{kept} * 256);
  for (size_t s = 0; s < count; ++s) {
    if (!alive[s]) continue;
    for (size_t byte = 0; byte < 256; ++byte) {
      const uint32_t to = dfa_.transitions_[s * 256 + byte];
      pruned.transitions_[size_t{renumber[s]} * 256 + byte] =
          to == kDeadState ? kDeadState : renumber[to];
    }
    const auto words = dfa_.MatchWords(static_cast<uint32_t>(s));
    pruned.match_words_.insert(pruned.match_words_.end(), words.begin(), words.end());
    pruned.can_match_all_.push_back(all[s]);
  }
  pruned.start_ = dfa_.start_ == kDeadState ? kDeadState : renumber[dfa_.start_];
  dfa_ = std::move(pruned);
}

Expected<ByteDfa> DfaBuilder::Build(const std::vector<uint32_t>& starts) {
  auto start = Intern(Close(starts, true));
  if (!start) return start.error();
  dfa_.start_ = *start;
  for (uint32_t state = 0; state < byte_sets_.size(); ++state) {
    if (Status status = Expand(state); !status) return status.error();
  }
  dfa_.can_match_all_.assign(byte_sets_.size(), 0);  // state_count() during pruning
  SourceMatches();
  Prune();
  return std::move(dfa_);
}

bool ByteDfa::MatchesAll(uint32_t state) const {
  if (state == kDeadState) return false;
  const std::span<const uint32_t> words = MatchWords(state);
  for (size_t i = 0; i < words.size(); ++i) {
    const size_t bits = std::min<size_t>(32, source_count_ - i * 32);
    const uint32_t full = bits == 32 ? UINT32_MAX : (uint32_t{1} << bits) - 1;
    if (words[i] != full) return false;
  }
  return true;
}

namespace {

// The NFA of a track, ending in an accept state for `index`; its first state. Records the
// trailing loop of a searched pattern in `span`.
Expected<uint32_t> TrackNfa(regex::NfaBuilder& builder, const RegexSource& source,
                            std::string_view pattern, uint32_t index, SourceSpan& span) {
  auto accept = builder.Add({Kind::kAccept, 0, 0, 0, 0, index});
  if (!accept) return accept;
  switch (source.kind) {
    case RegexSource::Kind::kLiteral:
      return builder.Bytes(source.text, *accept);
    case RegexSource::Kind::kFormat:
      return regex::FormatNfa(builder, source.format, *accept);
    case RegexSource::Kind::kPattern:
      break;
  }
  auto ast = regex::ParseRegex(pattern);
  if (!ast) return ast.error();
  span.rest_begin = static_cast<uint32_t>(builder.states().size());
  auto rest = builder.AnyString(*accept);  // searched for: anything may follow a match…
  if (!rest) return rest;
  span.rest_end = static_cast<uint32_t>(builder.states().size());
  auto body = builder.Regex(*ast, *rest);
  if (!body) return body;
  return builder.AnyString(*body);  // …or precede it
}

}  // namespace

Expected<ByteDfa> CompileRegexes(std::span<const RegexSource> sources) {
  regex::NfaBuilder builder;
  std::vector<uint32_t> starts;
  std::vector<SourceSpan> spans;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::vector<regex::PatternTrack> tracks = {{sources[i].text, false}};
    if (sources[i].kind == RegexSource::Kind::kPattern) {
      tracks = regex::SplitLeadingLookaheads(sources[i].text);
    }
    for (const regex::PatternTrack& track : tracks) {
      SourceSpan span;
      span.source = static_cast<uint32_t>(i);
      span.negated = track.negated;
      span.begin = static_cast<uint32_t>(builder.states().size());
      auto start =
          TrackNfa(builder, sources[i], track.pattern, static_cast<uint32_t>(spans.size()), span);
      if (!start) return start.error();
      span.end = static_cast<uint32_t>(builder.states().size());
      spans.push_back(span);
      starts.push_back(*start);
    }
  }
  return DfaBuilder(builder.states(), std::move(spans), sources.size()).Build(starts);
}

uint32_t RunDfa(const ByteDfa& dfa, std::string_view text) {
  uint32_t state = dfa.start();
  for (char c : text) {
    if (state == kDeadState) break;
    state = dfa.Step(state, static_cast<uint8_t>(c));
  }
  return state;
}

}  // namespace crux::constrain
