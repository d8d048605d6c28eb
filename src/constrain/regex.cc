// CompileRegexes: the sources' NFAs side by side, subset construction over byte classes, then
// pruning; results memoised in the automaton cache (regex_cache.cc).
//
// A DFA state is the set of NFA byte states reachable after the input so far (its epsilon
// closure, `^` edges followed only before the first byte) plus the sources that match if the
// input ends there (the closure followed on through `$` edges, which no byte may follow).
#include "regex.h"

#include <algorithm>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

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

// The construction's working state. Bytes are grouped into classes first: the intervals
// between the bounds of every NFA byte range, so that no NFA state tells two bytes of a class
// apart and a DFA state is expanded once per class rather than once per byte.
class DfaBuilder {
  // Lists of uint32 interned by content (open addressing on their hash); ids count from 0 in
  // the order of first insertion.
  class ListTable {
   public:
    static constexpr uint32_t kAbsent = UINT32_MAX;
    uint32_t Find(std::span<const uint32_t> list, uint64_t hash) const;
    uint32_t Add(std::span<const uint32_t> list, uint64_t hash);
    std::span<const uint32_t> operator[](uint32_t id) const {
      return {pool_.data() + begin_[id], begin_[id + 1] - begin_[id]};
    }
    size_t size() const { return hashes_.size(); }

   private:
    void Place(uint32_t id);
    std::vector<uint32_t> pool_;  // the lists back to back
    std::vector<uint32_t> begin_ = {0};
    std::vector<uint64_t> hashes_;
    std::vector<uint32_t> slots_ = std::vector<uint32_t>(64, 0);  // id + 1; 0 when free
  };

 public:
  DfaBuilder(const std::vector<NfaState>& nfa, std::vector<SourceSpan> spans, size_t sources);

  Expected<ByteDfa> Build(const std::vector<uint32_t>& starts);

 private:
  static constexpr uint32_t kNoSource = UINT32_MAX;
  // The closure of `seeds` into closure_bytes_ (sorted) and closure_matches_ (track bits).
  void Close(std::span<const uint32_t> seeds, bool at_start);
  // Drops the byte states of searched patterns that already match: their trailing loop keeps
  // them matching on every continuation, so the rest of their NFA cannot change the outcome
  // (and would only multiply states).
  void DropSettled();
  // The DFA state of the closure just built (a new one when unseen); kDeadState for the
  // empty closure.
  Expected<uint32_t> Intern();
  // The DFA state the NFA states `seeds` (sorted, unique) lead to, closed and interned on
  // first sight; kDeadState for an empty closure.
  Expected<uint32_t> Target(std::span<const uint32_t> seeds);
  Status Expand(uint32_t state);
  // Turns the states' track bits into source bits.
  void SourceMatches();
  void Prune();
  // Drops the states not `alive` and widens the transitions from classes to bytes.
  void Renumber(const std::vector<uint8_t>& alive);

  const std::vector<NfaState>& nfa_;
  std::vector<SourceSpan> spans_;
  size_t words_;  // per track bitset, then per source bitset after SourceMatches
  size_t source_count_ = 0;
  std::vector<uint32_t> stamps_;       // per (NFA state, past `$`): the closure that last saw it
  std::vector<uint32_t> rest_source_;  // per NFA state: the source whose trailing loop it opens
  size_t work_ = 0;                    // byte states summed over the DFA states so far
  uint32_t stamp_ = 0;
  std::array<uint8_t, 256> class_of_{};  // per byte: its class
  std::vector<uint8_t> class_first_;     // per class: its first byte (then class_first_ + 1)
  // Per DFA state: its byte states, then its words_ track words.
  ListTable states_;
  // Seed lists met while expanding, and the DFA state each leads to.
  ListTable seed_lists_;
  std::vector<uint32_t> seed_targets_;
  std::vector<uint32_t> transitions_;  // state * classes + class, until Build widens it
  std::vector<uint32_t> match_words_;  // state * words_
  std::vector<uint8_t> can_match_all_;
  uint32_t start_ = kDeadState;
  uint32_t row_shift_ = 0;  // log2 of the final rows' width
  // Scratch reused across closures and expansions.
  std::vector<std::pair<uint32_t, bool>> stack_;  // (state, past a `$`)
  std::vector<uint32_t> closure_bytes_;
  std::vector<uint32_t> closure_matches_;
  std::vector<uint32_t> closure_settled_;  // searched sources whose trailing loop was reached
  std::vector<uint32_t> expanded_;
  std::vector<std::vector<uint32_t>> class_targets_;  // per class: the NFA states it leads to
};

namespace {

// Mixes `words` into `hash` (every input bit reaches the low bits that pick a slot).
uint64_t HashWords(std::span<const uint32_t> words, uint64_t hash) {
  for (uint32_t word : words) {
    hash = (hash ^ word) * 0x9E3779B97F4A7C15ULL;
    hash ^= hash >> 32;
  }
  hash ^= hash >> 33;
  hash *= 0xFF51AFD7ED558CCDULL;
  return hash ^ (hash >> 33);
}

}  // namespace

DfaBuilder::DfaBuilder(const std::vector<NfaState>& nfa, std::vector<SourceSpan> spans,
                       size_t sources)
    : nfa_(nfa),
      spans_(std::move(spans)),
      words_((spans_.size() + 31) / 32),
      source_count_(sources),
      stamps_(nfa.size() * 2, 0),
      rest_source_(nfa.size(), kNoSource) {
  for (size_t source = 0; source < spans_.size(); ++source) {
    if (spans_[source].rest_begin != spans_[source].rest_end) {
      rest_source_[spans_[source].rest_begin] = static_cast<uint32_t>(source);
    }
  }
  std::array<bool, 257> bound{};
  bound[0] = true;
  // Bytes that UTF-8 treats differently stay apart, so that callers that follow code points
  // may read a class as one byte: continuation bytes and their restricted ranges (after E0,
  // ED, F0, F4), and lead bytes by sequence length and restriction.
  for (int byte : {0x80, 0x90, 0xA0, 0xC0, 0xC2, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4, 0xF5})
    bound[static_cast<size_t>(byte)] = true;
  for (const NfaState& state : nfa_) {
    if (state.kind != Kind::kByte) continue;
    bound[state.first] = true;
    bound[size_t{state.last} + 1] = true;
  }
  for (size_t byte = 0; byte < 256; ++byte) {
    if (bound[byte]) class_first_.push_back(static_cast<uint8_t>(byte));
    class_of_[byte] = static_cast<uint8_t>(class_first_.size() - 1);
  }
  class_targets_.resize(class_first_.size());
}

void DfaBuilder::Close(std::span<const uint32_t> seeds, bool at_start) {
  closure_bytes_.clear();
  closure_settled_.clear();
  closure_matches_.assign(words_, 0);
  ++stamp_;
  for (uint32_t seed : seeds)
    stack_.push_back({seed, false});
  while (!stack_.empty()) {
    const auto [id, past_end] = stack_.back();
    stack_.pop_back();
    uint32_t& seen = stamps_[size_t{id} * 2 + (past_end ? 1 : 0)];
    if (seen == stamp_) continue;
    seen = stamp_;
    const NfaState& state = nfa_[id];
    switch (state.kind) {
      case Kind::kByte:
        if (!past_end) closure_bytes_.push_back(id);
        break;
      case Kind::kSplit:
        if (!past_end && rest_source_[id] != kNoSource)
          closure_settled_.push_back(rest_source_[id]);
        stack_.push_back({state.other, past_end});
        stack_.push_back({state.next, past_end});
        break;
      case Kind::kJump:
        stack_.push_back({state.next, past_end});
        break;
      case Kind::kLineStart:
        if (at_start) stack_.push_back({state.next, past_end});
        break;
      case Kind::kLineEnd:
        stack_.push_back({state.next, true});
        break;
      case Kind::kAccept:
        closure_matches_[state.source / 32] |= uint32_t{1} << (state.source % 32);
        break;
      case Kind::kFail:
        break;
    }
  }
  std::sort(closure_bytes_.begin(), closure_bytes_.end());
  DropSettled();
}

void DfaBuilder::DropSettled() {
  for (uint32_t source : closure_settled_) {
    const SourceSpan& span = spans_[source];
    std::erase_if(closure_bytes_, [&](uint32_t id) {
      return id >= span.begin && id < span.end && (id < span.rest_begin || id >= span.rest_end);
    });
  }
}

uint32_t DfaBuilder::ListTable::Find(std::span<const uint32_t> list, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = hash & mask; slots_[slot] != 0; slot = (slot + 1) & mask) {
    const uint32_t id = slots_[slot] - 1;
    if (hashes_[id] != hash) continue;
    const std::span<const uint32_t> stored = (*this)[id];
    if (std::equal(stored.begin(), stored.end(), list.begin(), list.end())) return id;
  }
  return kAbsent;
}

uint32_t DfaBuilder::ListTable::Add(std::span<const uint32_t> list, uint64_t hash) {
  const auto id = static_cast<uint32_t>(hashes_.size());
  pool_.insert(pool_.end(), list.begin(), list.end());
  begin_.push_back(static_cast<uint32_t>(pool_.size()));
  hashes_.push_back(hash);
  if (hashes_.size() * 2 > slots_.size()) {
    slots_.assign(slots_.size() * 2, 0);
    for (uint32_t other = 0; other < id; ++other)
      Place(other);
  }
  Place(id);
  return id;
}

void DfaBuilder::ListTable::Place(uint32_t id) {
  const size_t mask = slots_.size() - 1;
  size_t slot = hashes_[id] & mask;
  while (slots_[slot] != 0)
    slot = (slot + 1) & mask;
  slots_[slot] = id + 1;
}

Expected<uint32_t> DfaBuilder::Intern() {
  const bool matches = std::any_of(closure_matches_.begin(), closure_matches_.end(),
                                   [](uint32_t word) { return word != 0; });
  if (closure_bytes_.empty() && !matches) return kDeadState;
  closure_bytes_.insert(closure_bytes_.end(), closure_matches_.begin(), closure_matches_.end());
  const uint64_t hash = HashWords(closure_bytes_, 0xCBF29CE484222325ULL);
  if (const uint32_t found = states_.Find(closure_bytes_, hash); found != ListTable::kAbsent) {
    return found;
  }
  const auto state = static_cast<uint32_t>(states_.size());
  work_ += closure_bytes_.size() - words_;
  if (state >= kMaxDfaStates || work_ > kMaxDfaWork) {
    return Error(ErrorCode::kLimit, "the automaton needs more than kMaxDfaStates (" +
                                        std::to_string(kMaxDfaStates) +
                                        ") states or kMaxDfaWork NFA states in them");
  }
  states_.Add(closure_bytes_, hash);
  match_words_.insert(match_words_.end(), closure_matches_.begin(), closure_matches_.end());
  transitions_.resize(size_t{state + 1} * class_first_.size(), kDeadState);
  return state;
}

Expected<uint32_t> DfaBuilder::Target(std::span<const uint32_t> seeds) {
  const uint64_t hash = HashWords(seeds, 0);
  if (const uint32_t seen = seed_lists_.Find(seeds, hash); seen != ListTable::kAbsent) {
    return seed_targets_[seen];
  }
  Close(seeds, false);
  auto interned = Intern();
  if (!interned) return interned;
  seed_lists_.Add(seeds, hash);
  seed_targets_.push_back(*interned);
  return interned;
}

// Fills the transitions of `state`: the targets of each byte class, closed once per distinct
// seed list over the whole construction. Cost: the byte states' class spans, plus a sort and
// a hash per class.
Status DfaBuilder::Expand(uint32_t state) {
  const std::span<const uint32_t> key = states_[state];
  expanded_.assign(key.begin(), key.end() - static_cast<ptrdiff_t>(words_));
  for (std::vector<uint32_t>& targets : class_targets_)
    targets.clear();
  for (uint32_t id : expanded_) {
    for (size_t c = class_of_[nfa_[id].first]; c <= class_of_[nfa_[id].last]; ++c)
      class_targets_[c].push_back(nfa_[id].next);
  }
  const size_t classes = class_first_.size();
  for (size_t c = 0; c < classes; ++c) {
    std::vector<uint32_t>& seeds = class_targets_[c];
    if (seeds.empty()) continue;
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    if (c > 0 && class_targets_[c - 1] == seeds) {
      transitions_[state * classes + c] = transitions_[state * classes + c - 1];
      continue;
    }
    auto target = Target(seeds);
    if (!target) return target.error();
    transitions_[state * classes + c] = *target;
  }
  return {};
}

void DfaBuilder::SourceMatches() {
  const size_t source_words = (source_count_ + 31) / 32;
  const size_t count = states_.size();
  std::vector<uint32_t> words(count * source_words, 0);
  std::vector<uint8_t> positive(source_count_);
  for (size_t state = 0; state < count; ++state) {
    const uint32_t* tracks = match_words_.data() + state * words_;
    std::fill(positive.begin(), positive.end(), 1);
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
  match_words_ = std::move(words);
  words_ = source_words;
}

// Keeps the states that can reach a match (renumbered in order), and marks those that can
// reach a state where every source matches. Edges are read once per byte class.
void DfaBuilder::Prune() {
  const size_t count = states_.size();
  const size_t classes = class_first_.size();
  std::vector<uint32_t> edge_begin(count + 1, 0);  // reversed edges, grouped by target
  std::vector<uint32_t> edges;
  for (size_t from = 0; from < count; ++from) {
    for (size_t c = 0; c < classes; ++c) {
      const uint32_t to = transitions_[from * classes + c];
      if (to != kDeadState) ++edge_begin[to + 1];
    }
  }
  for (size_t s = 0; s < count; ++s)
    edge_begin[s + 1] += edge_begin[s];
  edges.resize(edge_begin[count]);
  std::vector<uint32_t> fill(edge_begin.begin(), edge_begin.end() - 1);
  for (size_t from = 0; from < count; ++from) {
    for (size_t c = 0; c < classes; ++c) {
      const uint32_t to = transitions_[from * classes + c];
      if (to != kDeadState) edges[fill[to]++] = static_cast<uint32_t>(from);
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
      for (uint32_t e = edge_begin[s]; e < edge_begin[s + 1]; ++e) {
        if (!reached[edges[e]]) stack.push_back(edges[e]), reached[edges[e]] = 1;
      }
    }
    return reached;
  };
  const std::vector<uint8_t> alive = reach([&](uint32_t s) {
    const uint32_t* words = match_words_.data() + size_t{s} * words_;
    return std::any_of(words, words + words_, [](uint32_t word) { return word != 0; });
  });
  can_match_all_ = reach([&](uint32_t s) {
    return ByteDfa::AllSet({match_words_.data() + size_t{s} * words_, words_}, source_count_);
  });
  Renumber(alive);
}

// The kept states stay in order; rows are padded to a power of two so that Step shifts.
void DfaBuilder::Renumber(const std::vector<uint8_t>& alive) {
  const size_t count = alive.size();
  const size_t classes = class_first_.size();
  while ((size_t{1} << row_shift_) < classes)
    ++row_shift_;
  std::vector<uint32_t> renumber(count, kDeadState);
  uint32_t kept = 0;
  for (size_t s = 0; s < count; ++s) {
    if (alive[s]) renumber[s] = kept++;
  }
  std::vector<uint32_t> rows(size_t{kept} << row_shift_, kDeadState);
  for (size_t s = 0; s < count; ++s) {
    if (!alive[s]) continue;
    const size_t to = renumber[s];
    for (size_t c = 0; c < classes; ++c) {
      const uint32_t target = transitions_[s * classes + c];
      rows[(to << row_shift_) + c] = target == kDeadState ? kDeadState : renumber[target];
    }
    std::copy_n(match_words_.begin() + static_cast<ptrdiff_t>(s * words_), words_,
                match_words_.begin() + static_cast<ptrdiff_t>(to * words_));
    can_match_all_[to] = can_match_all_[s];
  }
  transitions_ = std::move(rows);
  match_words_.resize(size_t{kept} * words_);
  can_match_all_.resize(kept);
  start_ = start_ == kDeadState ? kDeadState : renumber[start_];
}

Expected<ByteDfa> DfaBuilder::Build(const std::vector<uint32_t>& starts) {
  Close(starts, true);
  auto start = Intern();
  if (!start) return start.error();
  start_ = *start;
  for (uint32_t state = 0; state < states_.size(); ++state) {
    if (Status status = Expand(state); !status) return status.error();
  }
  SourceMatches();
  Prune();
  auto tables = std::make_shared<ByteDfa::Tables>();
  tables->transitions = std::move(transitions_);
  tables->match_words = std::move(match_words_);
  tables->can_match_all = std::move(can_match_all_);
  return ByteDfa(std::move(tables), class_of_, row_shift_, start_, source_count_, words_);
}

ByteDfa::ByteDfa(std::shared_ptr<const Tables> tables, const std::array<uint8_t, 256>& class_of,
                 uint32_t row_shift, uint32_t start, size_t sources, size_t words)
    : tables_(std::move(tables)),
      transitions_(tables_->transitions.data()),
      match_words_(tables_->match_words.data()),
      can_match_all_(tables_->can_match_all.data()),
      class_of_(class_of),
      row_shift_(row_shift),
      class_count_(static_cast<size_t>(class_of[255]) + 1),
      start_(start),
      state_count_(tables_->can_match_all.size()),
      source_count_(sources),
      words_(words) {}

ByteDfa ByteDfa::MatchingAllOnly() const {
  if (tables_ == nullptr) return *this;
  auto tables = std::make_shared<Tables>(*tables_);
  const std::vector<uint8_t>& all = tables->can_match_all;
  for (uint32_t& to : tables->transitions) {
    if (to != kDeadState && all[to] == 0) to = kDeadState;
  }
  const uint32_t start = start_ == kDeadState || all[start_] == 0 ? kDeadState : start_;
  return ByteDfa(std::move(tables), class_of_, row_shift_, start, source_count_, words_);
}

size_t ByteDfa::memory_bytes() const {
  if (tables_ == nullptr) return 0;
  return tables_->transitions.size() * sizeof(uint32_t) +
         tables_->match_words.size() * sizeof(uint32_t) + tables_->can_match_all.size();
}

bool ByteDfa::AllSet(std::span<const uint32_t> words, size_t bits) {
  for (size_t i = 0; i < words.size(); ++i) {
    const size_t count = std::min<size_t>(32, bits - i * 32);
    const uint32_t full = count == 32 ? UINT32_MAX : (uint32_t{1} << count) - 1;
    if (words[i] != full) return false;
  }
  return true;
}

namespace {

// True when every match of node `id` begins with `^`, so that it can only match from the
// input's start: a searched pattern then needs no leading any-string loop, whose states
// would sit in every DFA state without ever reaching a match.
bool AnchoredAtStart(const regex::RegexAst& ast, uint32_t id) {
  const regex::RegexNode& node = ast.nodes[id];
  switch (node.kind) {
    case regex::RegexNode::Kind::kLineStart:
      return true;
    case regex::RegexNode::Kind::kConcat:
      return !node.children.empty() && AnchoredAtStart(ast, node.children[0]);
    case regex::RegexNode::Kind::kAlternation:
      return !node.children.empty() &&
             std::all_of(node.children.begin(), node.children.end(),
                         [&](uint32_t child) { return AnchoredAtStart(ast, child); });
    case regex::RegexNode::Kind::kRepeat:
      return node.min > 0 && AnchoredAtStart(ast, node.children[0]);
    default:
      return false;
  }
}

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
  if (AnchoredAtStart(*ast, ast->root)) return body;  // nothing may precede it
  return builder.AnyString(*body);                    // …or precede it
}

}  // namespace

namespace {

Expected<ByteDfa> BuildRegexes(std::span<const RegexSource> sources) {
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

// The sources as one unambiguous string: kind, format and the text's length before the text.
std::string CacheKey(std::span<const RegexSource> sources) {
  std::string key;
  for (const RegexSource& source : sources) {
    key += std::to_string(static_cast<int>(source.kind)) + ":" +
           std::to_string(static_cast<int>(source.format)) + ":" +
           std::to_string(source.text.size()) + ":" + source.text;
  }
  return key;
}

}  // namespace

Expected<ByteDfa> CompileRegexes(std::span<const RegexSource> sources) {
  std::string key = CacheKey(sources);
  if (auto cached = regex::CachedAutomaton(key)) return *std::move(cached);
  Expected<ByteDfa> built = BuildRegexes(sources);
  regex::CacheAutomaton(std::move(key), built);
  return built;
}

uint32_t RunDfa(const ByteDfa& dfa, std::string_view text) {
  uint32_t state = dfa.start();
  for (char c : text) {
    if (state == kDeadState) break;
    state = dfa.Step(state, static_cast<uint8_t>(c));
  }
  return state;
}

namespace {

// Whether node `id` matches exactly one code point: a set, or an alternation of such.
bool OneCodePoint(const regex::RegexAst& ast, uint32_t id) {
  const regex::RegexNode& node = ast.nodes[id];
  if (node.kind == regex::RegexNode::Kind::kSet) return true;
  if (node.kind != regex::RegexNode::Kind::kAlternation) return false;
  return std::all_of(node.children.begin(), node.children.end(),
                     [&](uint32_t child) { return OneCodePoint(ast, child); });
}

}  // namespace

std::optional<CountedClass> AsCountedClass(std::string_view pattern) {
  using NodeKind = regex::RegexNode::Kind;
  auto ast = regex::ParseRegex(pattern);
  if (!ast.ok()) return std::nullopt;
  const regex::RegexNode& root = ast->nodes[ast->root];
  if (root.kind != NodeKind::kConcat || root.children.size() != 3 ||
      ast->nodes[root.children[0]].kind != NodeKind::kLineStart ||
      ast->nodes[root.children[2]].kind != NodeKind::kLineEnd) {
    return std::nullopt;
  }
  const regex::RegexNode& repeat = ast->nodes[root.children[1]];
  if (repeat.kind != NodeKind::kRepeat || !OneCodePoint(*ast, repeat.children[0])) {
    return std::nullopt;
  }
  CountedClass counted;
  counted.min = repeat.min;
  counted.max = repeat.max == regex::kUnbounded ? UINT64_MAX : repeat.max;
  counted.loop = std::string(pattern.substr(0, repeat.quantifier_begin));
  counted.loop += '*';
  counted.loop += pattern.substr(repeat.quantifier_end);
  return counted;
}

}  // namespace crux::constrain
