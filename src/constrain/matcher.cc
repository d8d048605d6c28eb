// The matcher: byte steps through the recogniser, token masks by walking the vocabulary's
// token trie, with precomputed string classes for string content.
#include "crux/constrain/matcher.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

#include "crux/base/byte_lru.h"
#include "grammar_runtime.h"
#include "grammar_specs.h"
#include "json_util.h"
#include "number_lexer.h"
#include "string_lexer.h"
#include "token_index.h"

namespace crux::constrain {

using grammar::FrameKind;
using grammar::ThreadSet;

struct StringInside;

struct CompiledGrammar::Impl {
  grammar::Specs specs;
  GrammarOptions options;
  std::shared_ptr<const Vocabulary> vocabulary;
  std::shared_ptr<const grammar::VocabIndex> index;
  std::vector<uint32_t> text_mask;  // every non-special token
  // Per (automaton, state): the tokens through the state's ByteSplit, on first use.
  mutable std::mutex split_mutex;
  mutable std::unordered_map<uint64_t, std::shared_ptr<const grammar::SplitTokens>> splits;
  // Per (automaton, state, length bound) of a byte split: the tokens that stay inside the
  // string, on first use, shared by the strings of one pattern or format. At most
  // kMaxInsideBytes of them in all; past it, stepped each time.
  struct InsideKey {
    uint32_t dfa;
    uint32_t state;
    uint64_t max_length;  // UINT64_MAX: no token can reach the string's bound
    bool operator==(const InsideKey&) const = default;
  };
  struct InsideKeyHash {
    size_t operator()(const InsideKey& key) const {
      const uint64_t h = (uint64_t{key.dfa} << 32 | key.state) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h ^ h >> 29 ^ key.max_length * 0xC2B2AE3D27D4EB4Full);
    }
  };
  mutable std::unordered_map<InsideKey, std::shared_ptr<const StringInside>, InsideKeyHash> insides;
  // Per (automaton, length bound), with state 0: the states whose StringInside was walked, in
  // order, where another state may find one no token tells it apart from (SameWithin), and
  // how often a state found one or none.
  struct Walked {
    std::vector<uint32_t> states;
    uint32_t found = 0;
    uint32_t missed = 0;
  };
  mutable std::unordered_map<InsideKey, Walked, InsideKeyHash> walked_states;
  // Per automaton of at least kKilledAheadStates states, on its first split: what each state
  // has ahead that refuses (SplitBytes).
  mutable std::unordered_map<uint32_t, std::shared_ptr<const grammar::KilledAhead>> killed_ahead;
  // Per (object, pattern state) of a name under patternProperties: the tokens that stay inside
  // while no declared name is being written (SplitKey), on first use, in the same budget (as
  // the splits cut to a horizon of their own).
  mutable std::unordered_map<uint64_t, std::shared_ptr<const grammar::TokenMask>> key_insides;
  mutable size_t inside_bytes = 0;
  static constexpr size_t kMaxInsideBytes = size_t{16} << 20;
};

// The tokens that stay inside a string from one state of its automaton (lexer in its plain
// state), stepped once from a count of 0. A token's need is the most that count plus the
// code points the automaton still needs reaches on its way: with r code points left, a token
// stays inside exactly when its need is at most r.
struct StringInside {
  grammar::TokenMask all;  // every token inside, when no length bound can refuse one
  // The split's safe tokens stay in states that need from `safe_need_low` to `safe_need_high`
  // more code points: when both are equal, a safe token's need is its code points plus that.
  uint32_t safe_need_low = 0;
  uint32_t safe_need_high = 0;
  // The stepped tokens without escapes whose need is over need_floor, by need: need n's are
  // by_need[need_begin[n]] up to by_need[need_begin[n + 1]]. The floor is the lowest that
  // keeps at most kMostByNeed of them: with fewer code points left than it, the string is
  // walked.
  uint32_t need_floor = 0;
  std::vector<uint32_t> by_need;
  std::vector<uint32_t> need_begin;
  grammar::TokenMask stepped;     // the same tokens
  std::vector<uint32_t> escaped;  // stepped tokens with an escape: stepped one by one
  std::shared_ptr<const grammar::SplitTokens> tokens;
  static constexpr size_t kMostByNeed = 16384;
  size_t memory_bytes() const {
    return all.memory_bytes() + stepped.memory_bytes() +
           (by_need.size() + need_begin.size() + escaped.size()) * 4;
  }
};

namespace {

// A run of tokens that MakeStringInside's walk found at one trie node, all with one need:
// `count` token ids from `first` (in the FlatTrie's or a ClassTrie's values, which outlive
// the walk).
struct NeedRun {
  const uint32_t* first;
  uint32_t count;
  uint32_t need;
};

// Room for the runs of MakeStringInside's walk, one per token at most (a run has at least
// one), written in place: scratch that keeps its room between the matchers of a thread.
// Matcher::PrepareThread makes room for the whole vocabulary, so that no mask step touches
// fresh memory for it: on some virtual machines a page's first touch costs about 12 us, and
// Llama 3 needs 500 pages here.
std::vector<NeedRun>& NeedRuns(size_t tokens) {
  thread_local std::vector<NeedRun> runs;
  if (runs.size() < tokens) runs.resize(tokens);
  return runs;
}

void ReadyScratch(size_t tokens) {
  (void)NeedRuns(tokens);
  grammar::ReadyClassTrieScratch(tokens);
}

// The StringInsides of every grammar of the process, by vocabulary, automaton (its sources),
// state and length bound: a pattern or format that many schemas share (a date-time, an
// e-mail address) is stepped through the vocabulary once. Within kSharedInsideBytes, the least
// recently used out.
struct SharedInsideKey {
  uint64_t vocabulary;
  std::string automaton;
  uint32_t state;
  uint64_t max_length;
  bool operator==(const SharedInsideKey&) const = default;
};
struct SharedInsideKeyHash {
  size_t operator()(const SharedInsideKey& key) const {
    const uint64_t h = (key.vocabulary ^ std::hash<std::string>{}(key.automaton) ^
                        (uint64_t{key.state} << 32 | (key.max_length & 0xFFFFFFFF))) *
                       0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h ^ h >> 29);
  }
};
using SharedInsides =
    ByteLru<SharedInsideKey, std::shared_ptr<const StringInside>, SharedInsideKeyHash>;

constexpr size_t kSharedInsideBytes = size_t{64} << 20;

// How many walked states, the latest first, a state's StringInside is compared with before
// its own walk, and the most pairs of states SameWithin steps for it in all (a walk steps
// about 100,000 bytes, each a state step; a pair is a state step per byte class).
constexpr size_t kSameCandidates = 4;
constexpr size_t kSameBudget = 512;
// An automaton is no longer compared once its states found none alike this many times for
// each time one did (and once more).
constexpr uint32_t kSameMisses = 4;
// How many states of an automaton must have been walked, none of them alike, before a mask
// step builds a ClassTrie for its split (KeepsWalking).
constexpr uint32_t kWalksForClasses = 2;

// No token set is made ahead (GrammarOptions::precompute_us) past this from the start of a
// schema's compile (CompileSchema's time included; the vocabulary index, built by the first
// compile on a vocabulary, not), or past the budget itself where it is longer, so that a large
// grammar's compile stays within its bound.
constexpr auto kPrecomputeUntil = std::chrono::milliseconds(25);

SharedInsides& Shared() {
  static auto* shared = new SharedInsides(kSharedInsideBytes);  // never destroyed: used until exit
  return *shared;
}

}  // namespace

void grammar::ClearSharedStringInsides() {
  Shared().Clear();
}

void Matcher::PrepareThread(const Vocabulary& vocabulary) {
  ReadyScratch(vocabulary.size());
}

CompiledGrammar::CompiledGrammar(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledGrammar::~CompiledGrammar() = default;

const std::vector<NotEnforced>& CompiledGrammar::not_enforced() const {
  return impl_->specs.not_enforced;
}
const Vocabulary* CompiledGrammar::vocabulary() const {
  return impl_->vocabulary.get();
}
const GrammarOptions& CompiledGrammar::options() const {
  return impl_->options;
}
size_t CompiledGrammar::memory_bytes() const {
  std::lock_guard<std::mutex> lock(impl_->split_mutex);
  return sizeof(Impl) + impl_->specs.memory_bytes() + impl_->text_mask.size() * 4 +
         impl_->inside_bytes;
}

// ---- Matcher state -------------------------------------------------------------------------

namespace {
constexpr size_t kHistory = 512;  // steps Rollback can undo
}  // namespace

struct Matcher::State {
  explicit State(const CompiledGrammar::Impl& impl)
      : grammar(impl), runtime(impl.specs, impl.options) {
    runtime.Start(current);
  }
  State(const State& other)
      : grammar(other.grammar),
        runtime(other.grammar.specs, other.grammar.options),
        current(other.current),
        history(other.history),
        history_next(other.history_next),
        history_count(other.history_count) {}

  void Push() {
    if (history.size() < kHistory) history.resize(std::min(kHistory, history.size() + 16));
    // Slots get room for twice the largest state seen, so that once the states of a document
    // stop growing, recording one allocates nothing.
    const ThreadSet::Shape shape = current.shape();
    if (shape.frames > room.frames || shape.seen > room.seen || shape.starts > room.starts) {
      room = {2 * std::max(shape.frames, room.frames), 2 * std::max(shape.seen, room.seen),
              2 * std::max(shape.starts, room.starts)};
    }
    history[history_next].CopyWithRoom(current, room);
    history_count = std::min(history_count + 1, kHistory);
    history_next = (history_next + 1) % kHistory;
  }
  bool Feed(std::string_view bytes) {
    const ThreadSet* from = &current;
    for (char c : bytes) {
      ThreadSet& to = from == &scratch_a ? scratch_b : scratch_a;
      if (!runtime.Step(*from, static_cast<uint8_t>(c), to)) return false;
      from = &to;
    }
    Push();
    if (from != &current) current = *from;
    return true;
  }
  // The state after `bytes` from `from`, or null when they are refused.
  const ThreadSet* FeedFrom(const ThreadSet& from, std::string_view bytes) {
    const ThreadSet* at = &from;
    for (char c : bytes) {
      ThreadSet& to = at == &probe_a ? probe_b : probe_a;
      if (!runtime.Step(*at, static_cast<uint8_t>(c), to)) return nullptr;
      at = &to;
    }
    return at;
  }
  bool Accepts(const ThreadSet& from, std::string_view bytes) {
    return FeedFrom(from, bytes) != nullptr;
  }

  template <typename OnValue>
  void Walk(const grammar::FlatTrie& trie, const ThreadSet& start, OnValue on_value);
  template <typename OnValue>
  void WalkRange(const grammar::FlatTrie& trie, const ThreadSet& start, size_t begin, size_t end,
                 size_t base, OnValue on_value, const grammar::ByteSet& skipped = {});
  // The state a walk steps (cut down, or the whole one) and the whole one.
  struct Stepping {
    const ThreadSet& stepped;
    const ThreadSet& whole;
    bool cut;
  };
  bool CutDown(const ThreadSet& start, ThreadSet& out);
  template <typename OnValue>
  void WalkNodes(const grammar::FlatTrie& trie, const Stepping& from, size_t begin, size_t end,
                 size_t base, OnValue on_value);
  template <typename OnValue>
  void WalkChildren(const grammar::FlatTrie& trie, const Stepping& from, size_t parent, size_t base,
                    OnValue on_value);
  template <typename OnValue>
  void WalkNode(const grammar::FlatTrie& trie, const Stepping& from, size_t node, size_t base,
                OnValue on_value);
  template <typename OnValue>
  void WalkWhole(const grammar::FlatTrie& trie, const ThreadSet& whole, size_t node, size_t base,
                 OnValue on_value);
  std::deque<ThreadSet> cut_states;  // per nesting of walks (stable references)
  std::deque<std::pair<ThreadSet, ThreadSet>> whole_states;
  std::vector<char> walk_path;  // the bytes from the root to the node being stepped
  size_t walk_nesting = 0;
  grammar::Thread cut_thread;
  void WalkVocabulary(const ThreadSet& start, std::span<uint32_t> mask);
  uint32_t WhitespaceRun(const ThreadSet& start);
  struct WalkGroup {
    grammar::Frame top;
    ThreadSet posts;  // each member thread after its string or number
  };
  void AddToGroup(std::vector<WalkGroup>& groups, size_t& count, grammar::Thread& member);
  void DeferFrameWalk();
  void FrameStringWalk(WalkGroup& group, std::span<uint32_t> mask);
  std::vector<WalkGroup> walk_groups;
  size_t walk_group_count = 0;
  struct StringLevel;
  int StepLevel(StringLevel& level, uint8_t byte, grammar::Frame& frame, const ByteDfa* dfa,
                const uint32_t* to_accept);
  int StepLevelLexer(StringLevel& level, uint8_t byte, grammar::Frame& frame);
  bool FastThread(size_t index, std::span<uint32_t> mask);
  void FastString(const grammar::Thread& thread, std::span<uint32_t> mask,
                  const grammar::StringClass* cls = nullptr);
  enum class StringPath : uint8_t { kClass, kCheckClosings, kBoundedClosings, kSplit, kWalk };
  bool BoundedClosings(const grammar::Thread& thread, std::span<uint32_t> mask);
  bool SplitString(const grammar::Thread& thread, std::span<uint32_t> mask);
  template <typename Level, typename StepByte, typename OnTokens>
  size_t StepSubtree(size_t root, const Level& start, std::vector<Level>& by_depth, StepByte step,
                     OnTokens on_tokens);
  template <typename Level, typename StepByte, typename OnTokens>
  size_t StepSplitSubtrees(const grammar::SplitTokens& tokens, const Level& start,
                           std::vector<Level>& by_depth, StepByte step, OnTokens on_tokens);
  template <typename Level, typename StepByte, typename OnTokens>
  void StepClassTrie(const grammar::ClassTrie& classes, const Level& start,
                     std::vector<Level>& by_class, std::vector<Level>& by_depth, StepByte step,
                     OnTokens on_tokens);
  bool BoundedInside(const grammar::Frame& top, const StringInside& inside, uint64_t left,
                     std::span<uint32_t> mask);
  bool SafeTokensWithin(const grammar::Frame& top, const StringInside& inside, uint64_t left,
                        std::span<uint32_t> mask);
  bool StaysInside(const grammar::Frame& top, uint32_t token);
  bool AdmitBand(const grammar::Frame& top, std::span<uint32_t> mask, size_t most_stepped);
  const StringInside* StringInsideOf(const grammar::Frame& top);
  uint64_t InsideBound(const grammar::StringSpec& spec) const;
  bool NamesByPatterns(const grammar::ObjectSpec& o, uint32_t state) const;
  void PrecomputeStrings(std::chrono::steady_clock::time_point deadline);
  bool precomputing = false;  // in PrecomputeStrings, where ClassTries may be built
  bool KeepsWalking(const grammar::StringSpec& spec) const;
  struct PendingStates;
  std::vector<PendingStates> StringsToPrecompute() const;
  void PrecomputeState(PendingStates& p, uint32_t state);
  std::shared_ptr<const StringInside> FromSameState(
      const grammar::Frame& top, const std::shared_ptr<const grammar::SplitTokens>& tokens);
  std::shared_ptr<const StringInside> SameStateInside(
      const grammar::Frame& top, const std::shared_ptr<const grammar::SplitTokens>& tokens,
      std::span<const uint32_t> candidates);
  void SafeNeeds(uint32_t dfa, uint32_t state, const grammar::ByteSet& safe, uint32_t& low,
                 uint32_t& high) const;
  std::shared_ptr<StringInside> MakeStringInside(
      const grammar::Frame& top, std::shared_ptr<const grammar::SplitTokens> tokens);
  void FinishStringInside(StringInside& made, uint32_t dfa, uint32_t state,
                          std::shared_ptr<const grammar::SplitTokens> tokens,
                          std::span<const NeedRun> need_runs);
  std::shared_ptr<const StringInside> unkept_inside;  // one past the grammar's budget
  bool SplitKey(const grammar::Thread& thread, std::span<uint32_t> mask);
  const grammar::TokenMask* KeyInsideOf(const grammar::Thread& thread, uint32_t object_index);
  std::shared_ptr<const grammar::TokenMask> unkept_key_inside;  // one past the budget
  template <typename Visit>
  void ForDeclaredPathTokens(const grammar::Thread& t, const grammar::ObjectSpec& o, Visit visit);
  void DeclaredRestTokens(const grammar::Thread& thread, const grammar::ObjectSpec& o,
                          std::span<uint32_t> mask);
  std::shared_ptr<const grammar::SplitTokens> SplitTokensOf(uint32_t dfa, uint32_t state);
  std::shared_ptr<const grammar::SplitTokens> CountSplitTokens(uint32_t dfa, uint32_t state,
                                                               size_t kept);
  StringPath StringPathFor(const grammar::Frame& top, const grammar::StringSpec& spec,
                           const grammar::TokenMask*& inside,
                           const grammar::StringClass* cls = nullptr) const;
  void CheckedClosings(const grammar::Thread& thread, std::span<uint32_t> mask,
                       const grammar::StringClass* cls = nullptr);
  bool QuoteFromClass(const ThreadSet& start, std::span<uint32_t> mask);
  bool NumberStartFromClass(const ThreadSet& start, std::span<uint32_t> mask);
  const grammar::NumberClass& NumberClassOf(const grammar::NumberSpec& spec, uint8_t phase) const;
  void NumberFromClass(grammar::Thread& thread, const grammar::NumberClass& cls,
                       std::span<uint32_t> mask);
  ThreadSet number_start;  // each alternative's fresh number, for NumberStartFromClass
  ThreadSet number_step;   // the state after one byte, for NumberStartFromClass
  ThreadSet after_quote;   // the state after an opening quote, for QuoteFromClass
  grammar::Thread quote_thread;
  void FastKey(const grammar::Thread& thread, std::span<uint32_t> mask);
  void ListDeclaredKeyTokens(const grammar::Thread& thread);
  template <typename Each>
  void ForDeclaredKeyTokens(Each each) const;
  void DecideDeclaredKeyTokens(const grammar::Thread& thread, std::span<uint32_t> mask);
  bool FastNumber(std::span<uint32_t> mask);
  void NumberFrameWalk(WalkGroup& group, std::span<uint32_t> mask);
  grammar::Thread number_fresh;  // one alternative's fresh number, for NumberStartFromClass
  std::vector<grammar::Frame> number_levels;  // per depth of NumberFrameWalk
  std::vector<WalkGroup> number_groups;       // bounded fresh numbers, for NumberStartFromClass
  size_t number_group_count = 0;
  struct KeyPost {
    uint32_t literal = grammar::kNone;
    grammar::AltsId alts = grammar::kNone;
    ThreadSet post;
    std::vector<uint8_t> groups;  // suffix groups `post` takes, once groups_done
    bool groups_done = false;
  };
  void SetKeyPair(const grammar::Thread& thread);
  KeyPost* KeyPostFor(const grammar::Thread& thread, const grammar::Frame& key);
  void PatternKeyClosings(const grammar::Thread& thread, std::span<uint32_t> mask);
  void PatternKeyWalk(const grammar::Thread& thread, std::span<uint32_t> mask);
  grammar::Thread key_pair;  // [object, key] of the key being masked
  std::vector<grammar::Frame> key_levels;
  std::vector<KeyPost> key_posts;
  size_t key_post_count = 0;

  const CompiledGrammar::Impl& grammar;
  grammar::Runtime runtime;
  ThreadSet current;
  std::vector<ThreadSet> history;
  size_t history_next = 0;
  size_t history_count = 0;
  ThreadSet::Shape room;  // the buffer sizes history slots are given
  ThreadSet scratch_a, scratch_b, probe_a, probe_b, slow, post, single;
  ThreadSet after_space;  // the state after one whitespace byte, for WalkVocabulary
  std::vector<ThreadSet> levels;
  std::vector<grammar::ByteSet> next_bytes;  // per level of a walk
  grammar::Thread thread;
  grammar::Thread loaded;
  std::string rest;  // the rest of a declared name, with its closing quote
  // Per level of a string walk: the string frame's changing fields.
  struct StringLevel {
    uint32_t dfa;
    uint32_t lexer;
    uint32_t code;
    uint32_t count;
  };
  std::vector<StringLevel> string_levels;
  // Per level of MakeStringInside's steps: the level, its need so far, and whether an escape
  // was stepped on the way.
  struct NeedLevel {
    StringLevel level;
    uint32_t need;
    bool escaped;
  };
  std::vector<NeedLevel> need_levels;
  std::vector<NeedLevel> need_class_levels;  // per depth of a ClassTrie
  struct PlainWalk {
    ByteDfa::Stepper automaton;
    const uint32_t* to_accept;
    uint64_t max_length;
  };
  static bool PlainStep(NeedLevel& at, uint8_t byte, const PlainWalk& walk);
  // A step function for NeedLevels whose text bytes (printable ASCII in the lexer's plain
  // state) a walk takes inline through `plain` (see StepOne), the rest through `step`.
  template <typename Step>
  struct PlainStepper {
    PlainWalk plain;
    Step step;
    bool operator()(NeedLevel& at, uint8_t byte) { return step(at, byte); }
  };
  template <typename StepByte, typename Level>
  static bool StepOne(StepByte& step, Level& level, uint8_t byte);
  // A byte the string lexer treats apart where it stands: a control, the quote, a backslash.
  static bool LexerByte(const NeedLevel& at, uint8_t byte) {
    return at.level.lexer == grammar::kLexNormal && (byte < 0x20 || byte == '"' || byte == '\\');
  }
  std::vector<uint32_t> inside_words;  // BoundedInside's stepped tokens that fit
  // SafeTokensWithin's safe tokens that surely fit, and those that may.
  std::vector<uint32_t> certain_words;
  std::vector<uint32_t> band_words;
  // FastKey's tokens whose fate depends on the declared name, and their bits before it.
  std::vector<std::pair<size_t, uint32_t>> declared_nodes;  // (trie node, rank)
  std::vector<uint32_t> declared_escapes;
  std::vector<uint32_t> kept_bits;
  // Tokens a thread decides apart from a precomputed mask: `list(note)` calls note(token) for
  // each. KeepBits notes those already set (other threads' bits), ClearBits clears them all
  // once the mask is in, and RestoreKept sets the noted ones again.
  template <typename List>
  void KeepBits(List list, std::span<const uint32_t> mask) {
    kept_bits.clear();
    list([&](uint32_t token) {
      if ((mask[token / 32] >> (token % 32) & 1) != 0) kept_bits.push_back(token);
    });
  }
  template <typename List>
  static void ClearBits(List list, std::span<uint32_t> mask) {
    list([&](uint32_t token) { mask[token / 32] &= ~(1u << (token % 32)); });
  }
  void RestoreKept(std::span<uint32_t> mask) const {
    for (uint32_t token : kept_bits)
      mask[token / 32] |= 1u << (token % 32);
  }
};

Expected<std::shared_ptr<const CompiledGrammar>> CompiledGrammar::Compile(
    const SchemaIr& schema, std::shared_ptr<const Vocabulary> vocabulary,
    const GrammarOptions& options) {
  const auto specs_start = std::chrono::steady_clock::now();
  auto specs = grammar::BuildSpecs(schema, options);
  if (!specs) return specs.error();
  auto impl = std::make_unique<Impl>();
  impl->specs = std::move(*specs);
  impl->options = options;
  // The schema's compile began before CompileSchema's time; the vocabulary index's build, where
  // this compile makes it, does not count.
  auto compile_start = specs_start - std::chrono::microseconds(schema.compile_us);
  if (vocabulary != nullptr) {
    const auto index_start = std::chrono::steady_clock::now();
    impl->index = grammar::IndexFor(vocabulary);
    compile_start += std::chrono::steady_clock::now() - index_start;  // built once per vocabulary
    impl->text_mask.assign(vocabulary->mask_words(), 0);
    for (uint32_t id = 0; id < vocabulary->size(); ++id) {
      if (!vocabulary->is_special(id)) impl->text_mask[id / 32] |= 1u << (id % 32);
    }
  }
  const bool precompute = vocabulary != nullptr && options.precompute_us > 0;
  impl->vocabulary = std::move(vocabulary);
  auto grammar = std::make_shared<const CompiledGrammar>(std::move(impl));
  if (precompute) {
    const auto now = std::chrono::steady_clock::now();
    const auto budget = std::chrono::microseconds(options.precompute_us);
    Matcher(grammar).state_->PrecomputeStrings(
        std::min(now + budget,
                 compile_start + std::max<std::chrono::microseconds>(kPrecomputeUntil, budget)));
  }
  return std::shared_ptr<const CompiledGrammar>(std::move(grammar));
}

Matcher::Matcher(std::shared_ptr<const CompiledGrammar> grammar)
    : grammar_(std::move(grammar)), state_(std::make_unique<State>(grammar_->impl())) {}
Matcher::Matcher(const Matcher& other)
    : grammar_(other.grammar_),
      state_(std::make_unique<State>(*other.state_)),
      terminated_(other.terminated_) {}
Matcher& Matcher::operator=(const Matcher& other) {
  if (this != &other) {
    grammar_ = other.grammar_;
    state_ = std::make_unique<State>(*other.state_);
    terminated_ = other.terminated_;
  }
  return *this;
}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

bool Matcher::AcceptBytes(std::string_view bytes) {
  if (terminated_) return false;
  return state_->Feed(bytes);
}

bool Matcher::AcceptToken(uint32_t token) {
  const CompiledGrammar::Impl& impl = grammar_->impl();
  if (terminated_ || impl.vocabulary == nullptr || token >= impl.vocabulary->size()) return false;
  const auto eog = impl.vocabulary->end_of_generation();
  if (std::binary_search(eog.begin(), eog.end(), token)) {
    if (!CanEnd()) return false;
    state_->Push();
    terminated_ = true;
    return true;
  }
  if (impl.vocabulary->is_special(token)) return false;
  return state_->Feed(impl.vocabulary->bytes(token));
}

bool Matcher::CanEnd() const {
  if (terminated_) return false;
  return state_->runtime.CanEnd(state_->current);
}

size_t Matcher::history_size() const {
  return state_->history_count;
}

bool Matcher::Rollback(size_t steps) {
  State& s = *state_;
  if (steps > s.history_count) return false;
  if (steps == 0) return true;
  s.history_next = (s.history_next + kHistory - steps) % kHistory;
  s.history_count -= steps;
  s.current = s.history[s.history_next];
  terminated_ = false;
  return true;
}

std::string Matcher::ForcedBytes() const {
  std::string forced;
  if (terminated_) return forced;
  State& s = *state_;
  ThreadSet at = s.current;
  ThreadSet next;
  ThreadSet only;
  while (forced.size() < 256 && !s.runtime.CanEnd(at)) {
    // A backslash beside one other byte is an escape spelling that byte's character (or
    // another) some other way: the plain byte is what a model writes, so it counts as forced.
    int allowed = -1;
    bool escape = false;
    for (int byte = 0; byte < 256; ++byte) {
      if (!s.runtime.Step(at, byte, next)) continue;
      if (byte == '\\') {
        escape = true;
        continue;
      }
      if (allowed >= 0) {
        allowed = -2;
        break;
      }
      allowed = byte;
      only = next;
    }
    if (allowed == -1 && escape) break;
    if (allowed < 0) break;
    forced.push_back(static_cast<char>(allowed));
    std::swap(at, only);
  }
  // Back off so that no token could straddle the end of the forced text: cut before the
  // first suffix that a longer token continues.
  const grammar::VocabIndex* index = grammar_->impl().index.get();
  if (index == nullptr || forced.empty()) return forced;
  const grammar::FlatTrie& trie = index->trie;
  size_t cut = forced.size();
  const size_t from =
      forced.size() > index->max_token_bytes ? forced.size() - index->max_token_bytes : 0;
  for (size_t p = from; p < forced.size(); ++p) {
    const size_t node = trie.Find(std::string_view(forced).substr(p));
    if (node != SIZE_MAX && trie.skip[node] > node + 1) {
      cut = p;
      break;
    }
  }
  forced.resize(cut);
  return forced;
}

// ---- Masks ---------------------------------------------------------------------------------

namespace {
// Bits of ' ', '\t', '\n' and '\r' in the first word of a ByteSet.
constexpr uint64_t kWhitespaceBits =
    uint64_t{1} << ' ' | uint64_t{1} << '\t' | uint64_t{1} << '\n' | uint64_t{1} << '\r';

void SetBit(std::span<uint32_t> mask, uint32_t token) {
  mask[token / 32] |= 1u << (token % 32);
}
}  // namespace

template <typename OnValue>
void Matcher::State::Walk(const grammar::FlatTrie& trie, const ThreadSet& start, OnValue on_value) {
  WalkRange(trie, start, 0, trie.size(), 0, on_value);
}

// Walks the nodes [begin, end) of `trie`, a subtree whose nodes lie below depth `base`, from
// state `start` at that depth.
// (The subtrees of the `skipped` bytes right below `base` are left out.)
template <typename OnValue>
void Matcher::State::WalkRange(const grammar::FlatTrie& trie, const ThreadSet& start, size_t begin,
                               size_t end, size_t base, OnValue on_value,
                               const grammar::ByteSet& skipped) {
  if (levels.size() < trie.max_depth + 1) {
    levels.resize(trie.max_depth + 1);
    next_bytes.resize(trie.max_depth + 1);
    walk_path.resize(trie.max_depth + 1);
  }
  runtime.NextBytes(start, next_bytes[base]);
  for (size_t w = 0; w < 4; ++w)
    next_bytes[base].words[w] &= ~skipped.words[w];
  // Walks nest (a fallback walks a subtree from inside a walk): each level of nesting has
  // its own cut-down state.
  if (walk_nesting == cut_states.size()) cut_states.emplace_back();
  ThreadSet& cut = cut_states[walk_nesting];
  const bool cut_down = CutDown(start, cut);
  const Stepping stepping{cut_down ? cut : start, start, cut_down};
  ++walk_nesting;
  if (base != 0 || begin != 0 || end != trie.size()) {
    WalkNodes(trie, stepping, begin, end, base, on_value);
  } else {
    // The whole trie: only the subtrees of the bytes the state can take.
    for (size_t word = 0; word < 4; ++word) {
      for (uint64_t bits = next_bytes[0].words[word]; bits != 0; bits &= bits - 1) {
        const size_t byte = word * 64 + static_cast<size_t>(std::countr_zero(bits));
        const uint32_t node = trie.root[byte];
        if (node != grammar::FlatTrie::kNoNode) {
          WalkNodes(trie, stepping, node, trie.skip[node], 0, on_value);
        }
      }
    }
  }
  --walk_nesting;
}

// Cuts each thread of `start` down to its topmost container and what lies above it, with a
// kCut frame for the rest, into `out`, and merges the threads that become equal (the
// alternatives of an anyOf that differ only below). False when that would change nothing
// worth the copy: one thread of at most three frames.
bool Matcher::State::CutDown(const ThreadSet& start, ThreadSet& out) {
  if (start.size() == 1 && start.depth(0) <= 3) return false;
  const size_t words = grammar.specs.seen_words;
  out.Clear();
  for (size_t i = 0; i < start.size(); ++i) {
    start.Load(i, words, cut_thread);
    size_t keep = cut_thread.frames.size() - 1;
    while (keep > 0 && cut_thread.frames[keep].kind != FrameKind::kDocument &&
           cut_thread.frames[keep].kind != FrameKind::kObject &&
           cut_thread.frames[keep].kind != FrameKind::kArray) {
      --keep;
    }
    if (keep > 0) {
      cut_thread.frames.erase(cut_thread.frames.begin(),
                              cut_thread.frames.begin() + static_cast<ptrdiff_t>(keep - 1));
      cut_thread.frames[0] = grammar::Frame{};
      cut_thread.frames[0].kind = FrameKind::kCut;
      cut_thread.seen.erase(cut_thread.seen.begin(),
                            cut_thread.seen.begin() + static_cast<ptrdiff_t>((keep - 1) * words));
      std::fill(cut_thread.seen.begin(), cut_thread.seen.begin() + static_cast<ptrdiff_t>(words),
                0);
    }
    out.Append(cut_thread, words);
  }
  if (out.size() > 1) out.Dedupe(words);
  return true;
}

// The nodes [begin, end) below depth `base`, with next_bytes[base] already filled: a run of
// sibling subtrees, whose roots lie at depth base + 1 (all the children of one node, or one
// subtree). Steps go through the cut-down state; a node whose step reaches the cut is
// decided, with its subtree, from the whole state after its bytes.
template <typename OnValue>
void Matcher::State::WalkNodes(const grammar::FlatTrie& trie, const Stepping& from, size_t begin,
                               size_t end, size_t base, OnValue on_value) {
  if (begin > 0 && trie.depth[begin - 1] == base && trie.skip[begin - 1] == end) {
    WalkChildren(trie, from, begin - 1, base, on_value);  // every child of one node
    return;
  }
  for (size_t i = begin; i < end; i = trie.skip[i]) {
    if (next_bytes[base].Has(trie.byte[i])) WalkNode(trie, from, i, base, on_value);
  }
}

// The children of `parent`, from the state at its depth (next_bytes there filled): only
// those whose byte the state can take are visited.
template <typename OnValue>
void Matcher::State::WalkChildren(const grammar::FlatTrie& trie, const Stepping& from,
                                  size_t parent, size_t base, OnValue on_value) {
  const grammar::ByteSet& allowed = next_bytes[trie.depth[parent]];
  for (uint32_t c = trie.child_begin[parent]; c < trie.child_begin[parent + 1]; ++c) {
    if (allowed.Has(trie.child_byte[c])) WalkNode(trie, from, trie.child_node[c], base, on_value);
  }
}

// Node `node` (its byte one the state above it can take) and its subtree.
template <typename OnValue>
void Matcher::State::WalkNode(const grammar::FlatTrie& trie, const Stepping& from, size_t node,
                              size_t base, OnValue on_value) {
  const size_t depth = trie.depth[node];
  const uint8_t byte = trie.byte[node];
  walk_path[depth] = static_cast<char>(byte);
  const ThreadSet& parent = depth == base + 1 ? from.stepped : levels[depth - 1];
  const bool alive = runtime.Step(parent, byte, levels[depth]);
  if (from.cut && runtime.TakeCutTouched()) {
    WalkWhole(trie, from.whole, node, base, on_value);
    return;
  }
  if (!alive) return;
  for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k)
    on_value(trie.values[k]);
  if (trie.skip[node] > node + 1) {
    runtime.NextBytes(levels[depth], next_bytes[depth]);
    WalkChildren(trie, from, node, base, on_value);
  }
}

// Node `node` and its subtree from `whole`, the state at depth `base`: the bytes of the path
// down to the node are fed to it first.
template <typename OnValue>
void Matcher::State::WalkWhole(const grammar::FlatTrie& trie, const ThreadSet& whole, size_t node,
                               size_t base, OnValue on_value) {
  const size_t depth = trie.depth[node];
  if (walk_nesting >= whole_states.size()) whole_states.resize(walk_nesting + 1);
  auto& [state_a, state_b] = whole_states[walk_nesting];
  const ThreadSet* at = &whole;
  for (size_t d = base + 1; d <= depth; ++d) {
    ThreadSet& to = at == &state_a ? state_b : state_a;
    if (!runtime.Step(*at, static_cast<uint8_t>(walk_path[d]), to)) return;
    at = &to;
  }
  for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k)
    on_value(trie.values[k]);
  if (trie.skip[node] > node + 1) WalkRange(trie, *at, node + 1, trie.skip[node], depth, on_value);
}

namespace {
constexpr uint32_t kWalkWhitespace = UINT32_MAX;        // WhitespaceRun: no class applies
constexpr uint32_t kAnyRun = kUnboundedWhitespace - 1;  // WhitespaceRun: no bound
}  // namespace

// The longest run of whitespace `start` can take (0: none), when the whitespace class
// applies: no thread is inside a string, a key or an enum's text (where a blank is text), and
// after one blank every thread is between the values of a container, with the same run so far.
// kWalkWhitespace otherwise. Leaves the state after one blank in `after_space`.
uint32_t Matcher::State::WhitespaceRun(const ThreadSet& start) {
  for (size_t i = 0; i < start.size(); ++i) {
    const FrameKind kind = start.top(i).kind;
    if (kind == FrameKind::kString || kind == FrameKind::kKey || kind == FrameKind::kLiteral) {
      return kWalkWhitespace;
    }
  }
  if (!runtime.Step(start, ' ', after_space)) return 0;
  const uint32_t run = after_space.top(0).ws;
  for (size_t i = 0; i < after_space.size(); ++i) {
    const grammar::Frame& top = after_space.top(i);
    const bool container = top.kind == FrameKind::kDocument || top.kind == FrameKind::kObject ||
                           top.kind == FrameKind::kArray;
    if (!container || top.ws != run) return kWalkWhitespace;
  }
  const uint32_t max = grammar.options.max_whitespace;
  return max >= kAnyRun ? kAnyRun : max - run + 1;
}

// Every token from `start`. The tokens that begin with whitespace come from the whitespace
// class where it applies: the blank-only ones by length, the others by what follows their
// blanks, walked once from the state after one blank.
// The tokens that open a string come from the class of tokens seen after a quote where
// every thread then stands at the start of a string the classes serve.
void Matcher::State::WalkVocabulary(const ThreadSet& start, std::span<uint32_t> mask) {
  auto on_value = [&](uint32_t token) { SetBit(mask, token); };
  const grammar::FlatTrie& trie = grammar.index->trie;
  const uint32_t run = WhitespaceRun(start);
  grammar::ByteSet skipped;
  if (run != kWalkWhitespace) skipped.words[0] = kWhitespaceBits;
  // The class shortcuts only where the state can take their first byte at all.
  grammar::ByteSet first;
  runtime.NextBytes(start, first);
  if (first.Has('"') && QuoteFromClass(start, mask)) skipped.Set('"');
  if ((first.Has('-') || first.Has('0') || first.Has('1')) && NumberStartFromClass(start, mask)) {
    skipped.Set('-');
    skipped.SetRange('0', '9');
  }
  WalkRange(trie, start, 0, trie.size(), 0, on_value, skipped);
  if (run == kWalkWhitespace || run == 0) return;
  const grammar::WhitespaceClass& blanks = grammar.index->whitespace;
  for (auto [length, token] : blanks.only) {
    if (length > run) break;
    on_value(token);
  }
  WalkRange(blanks.rests, after_space, 0, blanks.rests.size(), 0, [&](uint32_t group) {
    for (auto [length, token] : blanks.members[group]) {
      if (length <= run) on_value(token);
    }
  });
}

namespace {
// True when no bound can refuse a number of this sign however it goes on: then the number's
// tokens are decided by its lexer alone.
bool BoundsIrrelevant(const grammar::NumberSpec& spec, bool negative) {
  if (!spec.points.empty()) return false;
  auto below = [](const grammar::NumberBound& bound, int sign) {
    // The bound lets every value of this sign through: for `low` on the positive side, bound
    // < 0 or = 0 inclusive; for `high` on the negative side, bound > 0 or = 0 inclusive.
    if (!bound.present) return true;
    const double value =
        bound.value.is_integer ? static_cast<double>(bound.value.integer) : bound.value.value;
    return value * sign < 0 || (value == 0 && !bound.exclusive);
  };
  return negative ? !spec.low.present && below(spec.high, -1)
                  : !spec.high.present && below(spec.low, 1);
}
}  // namespace

// The number class of `spec`'s kind of number in lexer phase `phase`.
const grammar::NumberClass& Matcher::State::NumberClassOf(const grammar::NumberSpec& spec,
                                                          uint8_t phase) const {
  const grammar::NumberVariant variant = !spec.integer_only ? grammar::kNumberAny
                                         : spec.zero_fraction_ok
                                             ? grammar::kNumberIntegerZeroFraction
                                             : grammar::kNumberInteger;
  return grammar.index->number_classes[variant * grammar::kNumberPhases + phase];
}

// The tokens of class `cls` for the number on top of `t`: those inside it, and those that
// end it, walked from the state after it (left in `post`; `t` loses its number).
void Matcher::State::NumberFromClass(grammar::Thread& t, const grammar::NumberClass& cls,
                                     std::span<uint32_t> mask) {
  cls.inside.OrInto(mask);
  runtime.PopValue(t);
  post.Clear();
  post.Append(t, grammar.specs.seen_words);
  Walk(cls.rests, post, [&](uint32_t group) {
    for (uint32_t token : cls.members[group])
      SetBit(mask, token);
  });
}

// The tokens that begin a number, when every thread that takes a digit or '-' starts a
// number with it: each alternative's number, fresh, gives its tokens — from the number class
// of the start phase with the tokens that end it walked from the state after it, where no
// bound can refuse it, or else walked with the number frame alone (NumberFrameWalk). False
// (nothing done) when those subtrees must be walked.
bool Matcher::State::NumberStartFromClass(const ThreadSet& start, std::span<uint32_t> mask) {
  const size_t words = grammar.specs.seen_words;
  number_start.Clear();
  // Each alternative's fresh number from the threads after `bytes`; false when one of them
  // takes a byte otherwise (an enum's literal). True in `free` when every one is a number no
  // bound can refuse, which takes '-', '0' and '1' alike (then they stand for every digit).
  bool free = true;
  size_t counts[3] = {0, 0, 0};
  auto gather = [&](std::string_view bytes) {
    for (size_t b = 0; b < bytes.size(); ++b) {
      if (!runtime.Step(start, bytes[b], number_step)) continue;
      if (b < 3) counts[b] = number_step.size();
      for (size_t i = 0; i < number_step.size(); ++i) {
        if (number_step.top(i).kind != FrameKind::kNumber) return false;
        number_step.Load(i, words, thread);
        grammar::Frame& top = thread.frames.back();
        const uint32_t spec_id = top.spec;
        const grammar::NumberSpec& spec = grammar.specs.values[spec_id].number;
        free = free && BoundsIrrelevant(spec, false) && BoundsIrrelevant(spec, true);
        top = grammar::Frame{};  // the number as pushed, before its first byte
        top.kind = FrameKind::kNumber;
        top.spec = spec_id;
        top.phase = grammar::kNumStart;
        number_start.Append(thread, words);
      }
    }
    return true;
  };
  if (!gather("-01")) return false;
  if (!free || counts[0] != counts[1] || counts[1] != counts[2]) {
    if (!gather("23456789")) return false;
  }
  if (number_start.empty()) return false;
  number_start.Dedupe(words);  // one per alternative, whichever bytes it takes
  // Alternatives whose bounded fresh numbers are alike (the same spec below different
  // stacks) share one NumberFrameWalk.
  number_group_count = 0;
  for (size_t i = 0; i < number_start.size(); ++i) {
    number_start.Load(i, words, number_fresh);
    const grammar::NumberSpec& spec = grammar.specs.values[number_fresh.frames.back().spec].number;
    if (BoundsIrrelevant(spec, false) && BoundsIrrelevant(spec, true)) {
      NumberFromClass(number_fresh, NumberClassOf(spec, grammar::kNumStart), mask);
    } else {
      AddToGroup(number_groups, number_group_count, number_fresh);
    }
  }
  for (size_t g = 0; g < number_group_count; ++g)
    NumberFrameWalk(number_groups[g], mask);
  return true;
}

// The tokens that begin with a quote, when the quote opens a string in every thread and the
// string classes serve each: the quote alone, then each thread's string from the class of
// tokens seen after a quote. False (nothing done) when the quote's subtree must be walked.
bool Matcher::State::QuoteFromClass(const ThreadSet& start, std::span<uint32_t> mask) {
  if (!runtime.Step(start, '"', after_quote)) return true;  // no token begins with a quote
  const grammar::StringClass& cls = grammar.index->after_quote;
  for (size_t i = 0; i < after_quote.size(); ++i) {
    const grammar::Frame& top = after_quote.top(i);
    if (top.kind != FrameKind::kString || top.phase == 0xFF || top.b != grammar::kLexNormal) {
      return false;
    }
    const grammar::TokenMask* inside = nullptr;
    if (StringPathFor(top, grammar.specs.values[top.spec].string, inside, &cls) ==
        StringPath::kWalk) {
      return false;
    }
  }
  const grammar::FlatTrie& trie = grammar.index->trie;
  const uint32_t quote = trie.root['"'];
  if (quote == grammar::FlatTrie::kNoNode) return true;
  for (uint32_t k = trie.begin[quote]; k < trie.begin[quote + 1]; ++k)
    SetBit(mask, trie.values[k]);
  for (size_t i = 0; i < after_quote.size(); ++i) {
    const grammar::Frame& top = after_quote.top(i);
    const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
    const grammar::TokenMask* inside = nullptr;
    const StringPath path = StringPathFor(top, spec, inside, &cls);
    after_quote.Load(i, grammar.specs.seen_words, quote_thread);
    inside->OrInto(mask);
    if (path == StringPath::kClass) {
      FastString(quote_thread, mask, &cls);
    } else {
      CheckedClosings(quote_thread, mask, &cls);
    }
  }
  return true;
}

// A string with a pattern, a format or a length bound too close for the string classes: the
// trie is walked with the string frame alone (a 48-byte copy per level), and only the
// subtrees below a closing quote with the whole state after the string.
// One byte for the string of a FrameStringWalk: 1 taken, 0 refused, 2 the closing quote.
// Raw UTF-8 text takes the inline path; escapes and the quote go through the recogniser.
inline int Matcher::State::StepLevel(StringLevel& level, uint8_t byte, grammar::Frame& frame,
                                     const ByteDfa* dfa, const uint32_t* to_accept) {
  const bool plain =
      level.lexer == grammar::kLexNormal && byte >= 0x20 && byte != '"' && byte != '\\';
  if (!plain && (level.lexer < grammar::kLexCont1 || level.lexer >= grammar::kLexEscape)) {
    return StepLevelLexer(level, byte, frame);
  }
  const uint64_t max_length = grammar.specs.values[frame.spec].string.max_length;
  bool lead = false;
  if (level.lexer != grammar::kLexNormal) {
    if (!grammar::ContinuationState(level.lexer, byte)) return 0;
  } else {
    lead = true;
    if (byte >= 0x80 && !grammar::LeadState(byte, level.lexer)) return 0;
  }
  if (lead && ++level.count > max_length) return 0;
  if (dfa == nullptr) return 1;
  level.dfa = dfa->Step(level.dfa, byte);
  const uint32_t left = level.dfa == kDeadState ? UINT32_MAX : to_accept[level.dfa];
  if (left == UINT32_MAX) return 0;
  return max_length == UINT64_MAX || uint64_t{level.count} + left <= max_length ? 1 : 0;
}

// Adds `member` to the group of the first `count` of `groups` whose top frame is its own (a
// new one past them if none): the member's state after that frame joins the group's posts.
// Threads whose strings or numbers are in the same state (alternatives that differ only below
// it) so share one walk. `member` loses its top value.
void Matcher::State::AddToGroup(std::vector<WalkGroup>& groups, size_t& count,
                                grammar::Thread& member) {
  const grammar::Frame top = member.frames.back();
  size_t group = 0;
  while (group < count && !(groups[group].top == top))
    ++group;
  if (group == count) {
    if (groups.size() <= group) groups.emplace_back();
    groups[group].top = top;
    groups[group].posts.Clear();
    ++count;
  }
  runtime.PopValue(member);
  groups[group].posts.Append(member, grammar.specs.seen_words);
}

// Defers the walk of the string or number on top of the thread in `loaded` to FillMask's
// walk groups.
void Matcher::State::DeferFrameWalk() {
  thread = loaded;
  AddToGroup(walk_groups, walk_group_count, thread);
}

void Matcher::State::FrameStringWalk(WalkGroup& group, std::span<uint32_t> mask) {
  const grammar::FlatTrie& trie = grammar.index->trie;
  if (string_levels.size() < trie.max_depth + 1) string_levels.resize(trie.max_depth + 1);
  grammar::Frame frame = group.top;
  string_levels[0] = {frame.a, frame.b, frame.c, frame.count};
  group.posts.Dedupe(grammar.specs.seen_words);
  const ThreadSet& after = group.posts;
  const grammar::StringSpec& spec = grammar.specs.values[frame.spec].string;
  const ByteDfa* dfa = spec.dfa == grammar::kNone ? nullptr : &grammar.specs.dfas[spec.dfa];
  const uint32_t* to_accept =
      dfa == nullptr ? nullptr : grammar.specs.dfa_min_to_accept[spec.dfa].data();
  auto set = [&](uint32_t token) { SetBit(mask, token); };
  const size_t n = trie.size();
  for (size_t i = 0; i < n;) {
    const size_t depth = trie.depth[i];
    StringLevel level = string_levels[depth - 1];
    const uint8_t byte = trie.byte[i];
    const int taken = StepLevel(level, byte, frame, dfa, to_accept);
    if (taken == 0) {
      i = trie.skip[i];
      continue;
    }
    for (uint32_t k = trie.begin[i]; k < trie.begin[i + 1]; ++k)
      set(trie.values[k]);
    if (taken == 2) {
      if (trie.skip[i] > i + 1) WalkRange(trie, after, i + 1, trie.skip[i], depth, set);
      i = trie.skip[i];
      continue;
    }
    string_levels[depth] = level;
    ++i;
  }
}

// (`from_class`: the class to use instead of the top's lexer state's, e.g. the tokens that
// open the string.)
void Matcher::State::FastString(const grammar::Thread& t, std::span<uint32_t> mask,
                                const grammar::StringClass* from_class) {
  const grammar::Frame& top = t.frames.back();
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const grammar::StringClass& cls =
      from_class != nullptr ? *from_class : grammar.index->string_classes[top.b];
  // Closing tokens: the state after the quote does not depend on the string's content.
  thread = t;
  grammar::Frame& closing = thread.frames.back();
  closing.b = grammar::kLexNormal;
  closing.c = 0;
  closing.count = static_cast<uint32_t>(std::max<uint64_t>(closing.count, spec.min_length));
  // Under an automaton (settled: every token leaves it matching) any matching state will do.
  if (spec.dfa != grammar::kNone) closing.a = grammar.specs.dfa_reach[spec.dfa].accepting;
  post.Clear();
  runtime.Feed(thread, '"', post);
  if (post.empty()) return;
  auto admit = [&](std::span<const std::pair<uint32_t, uint32_t>> members) {
    for (auto [token, code_points] : members) {
      const uint64_t length = uint64_t{top.count} + code_points;
      if (length >= spec.min_length && length <= spec.max_length) SetBit(mask, token);
    }
  };
  admit(cls.close_exactly);
  Walk(cls.suffixes, post, [&](uint32_t group) { admit(cls.members[group]); });
}

// Keys of objects with patternProperties: the key is stepped as the pair [object, key] alone
// (SetKeyPair), and the state after the name is computed once per kind of name — declared
// property, or the value alternatives its patterns give — in one FillMask.
void Matcher::State::SetKeyPair(const grammar::Thread& t) {
  const size_t n = t.frames.size();
  const size_t words = grammar.specs.seen_words;
  key_pair.frames.assign(t.frames.end() - 2, t.frames.end());
  key_pair.seen.assign(t.seen.begin() + static_cast<ptrdiff_t>((n - 2) * words),
                       t.seen.begin() + static_cast<ptrdiff_t>(n * words));
  key_post_count = 0;
}

// The state after the name that `key` (at its closing quote) ends, or null when it cannot
// close there.
Matcher::State::KeyPost* Matcher::State::KeyPostFor(const grammar::Thread& t,
                                                    const grammar::Frame& key) {
  const grammar::Frame& object = t.frames[t.frames.size() - 2];
  const grammar::ObjectSpec& o = grammar.specs.objects[grammar.specs.values[object.spec].object];
  const uint32_t literal = key.a == grammar::kNone ? grammar::kNone : o.names.literal(key.a);
  grammar::AltsId alts = o.undeclared;
  if (literal != grammar::kNone) {
    alts = o.properties[literal].value;
  } else if (o.pattern_dfa != grammar::kNone && key.d != kDeadState) {
    alts = o.undeclared_by_state[key.d];
  }
  for (size_t i = 0; i < key_post_count; ++i) {
    if (key_posts[i].literal == literal && key_posts[i].alts == alts) {
      return key_posts[i].post.empty() ? nullptr : &key_posts[i];
    }
  }
  constexpr size_t kKeptKinds = 16;  // past it the last entry is recomputed each time
  if (key_posts.size() <= key_post_count) key_posts.emplace_back();
  KeyPost& entry = key_posts[key_post_count];
  if (key_post_count < kKeptKinds) ++key_post_count;
  entry.literal = literal;
  entry.alts = alts;
  entry.groups_done = false;
  thread = t;
  thread.frames.back() = key;
  entry.post.Clear();
  runtime.Feed(thread, '"', entry.post);
  return entry.post.empty() ? nullptr : &entry;
}

// An open object with patternProperties: every name can be written, so the inside tokens
// come from the string class; each closing token is stepped to its quote as the key pair,
// and its continuation looked up among the suffix groups the state after that kind of name
// takes.
void Matcher::State::PatternKeyClosings(const grammar::Thread& t, std::span<uint32_t> mask) {
  const grammar::StringClass& cls = grammar.index->string_classes[t.frames.back().b];
  SetKeyPair(t);
  auto check = [&](uint32_t token, uint32_t group) {
    key_pair.frames.back() = t.frames.back();
    int taken = 1;
    for (char c : grammar.vocabulary->bytes(token)) {
      taken = runtime.StepKeyOnly(key_pair, static_cast<uint8_t>(c));
      if (taken != 1) break;
    }
    if (taken != 2) return;
    KeyPost* entry = KeyPostFor(t, key_pair.frames.back());
    if (entry == nullptr) return;
    if (group != grammar::kNone && !entry->groups_done) {
      entry->groups.assign(cls.members.size(), 0);
      Walk(cls.suffixes, entry->post, [&](uint32_t g) { entry->groups[g] = 1; });
      entry->groups_done = true;
    }
    if (group == grammar::kNone || entry->groups[group] != 0) SetBit(mask, token);
  };
  for (auto [token, code_points] : cls.close_exactly)
    check(token, grammar::kNone);
  const grammar::ByteSet after_name = runtime.AfterNameBytes();
  for (uint32_t group = 0; group < cls.members.size(); ++group) {
    if (!after_name.Has(cls.suffix_first[group])) continue;
    for (auto [token, code_points] : cls.members[group])
      check(token, group);
  }
}

// A closed object with patternProperties: the trie is walked with the key pair alone, and
// below each closing quote with the state after that kind of name.
void Matcher::State::PatternKeyWalk(const grammar::Thread& t, std::span<uint32_t> mask) {
  const grammar::FlatTrie& trie = grammar.index->trie;
  SetKeyPair(t);
  if (key_levels.size() < trie.max_depth + 1) key_levels.resize(trie.max_depth + 1);
  key_levels[0] = t.frames.back();
  auto set = [&](uint32_t token) { SetBit(mask, token); };
  for (size_t i = 0; i < trie.size();) {
    const size_t depth = trie.depth[i];
    key_pair.frames.back() = key_levels[depth - 1];
    const int taken = runtime.StepKeyOnly(key_pair, trie.byte[i]);
    if (taken == 0) {
      i = trie.skip[i];
      continue;
    }
    if (taken == 2) {
      KeyPost* entry = KeyPostFor(t, key_levels[depth - 1]);
      if (entry != nullptr) {
        for (uint32_t k = trie.begin[i]; k < trie.begin[i + 1]; ++k)
          set(trie.values[k]);
        if (trie.skip[i] > i + 1) WalkRange(trie, entry->post, i + 1, trie.skip[i], depth, set);
      }
      i = trie.skip[i];
      continue;
    }
    for (uint32_t k = trie.begin[i]; k < trie.begin[i + 1]; ++k)
      set(trie.values[k]);
    key_levels[depth] = key_pair.frames.back();
    ++i;
  }
}

// Lists in `declared_nodes` the trie nodes of the rests of the declared names the key can
// still become (the rest and its closing quote), and in `declared_escapes` the closing tokens
// whose escapes might spell one: the tokens whose fate depends on which name is written.
void Matcher::State::ListDeclaredKeyTokens(const grammar::Thread& t) {
  declared_nodes.clear();
  declared_escapes.clear();
  const grammar::Frame& top = t.frames.back();
  const grammar::Frame& object = t.frames[t.frames.size() - 2];
  const uint32_t object_index = grammar.specs.values[object.spec].object;
  if (object_index == grammar::kNone || top.a == grammar::kNone) return;
  const grammar::ObjectSpec& o = grammar.specs.objects[object_index];
  for (const auto& [token, decoded] : grammar.index->string_classes[top.b].escaped_prefix) {
    uint32_t node = top.a;
    for (char c : decoded) {
      node = o.names.Step(node, static_cast<uint8_t>(c));
      if (node == grammar::kNone) break;
    }
    if (node != grammar::kNone && o.names.literal(node) != grammar::kNone) {
      declared_escapes.push_back(token);
    }
  }
  const uint32_t depth = o.names.depth(top.a);
  for (uint32_t rank = o.names.first_rank(top.a); rank < o.names.last_rank(top.a); ++rank) {
    const std::string& name = o.properties[o.property_by_rank[rank]].name;
    rest.assign(name, depth);
    rest.push_back('"');
    const size_t node = grammar.index->trie.Find(rest);
    if (node != SIZE_MAX) declared_nodes.push_back({node, rank});
  }
}

// Calls `each` on every token of the declared lists.
template <typename Each>
void Matcher::State::ForDeclaredKeyTokens(Each each) const {
  const grammar::FlatTrie& trie = grammar.index->trie;
  for (auto [node, rank] : declared_nodes) {
    for (uint32_t k = trie.begin[node]; k < trie.begin[trie.skip[node]]; ++k)
      each(trie.values[k]);
  }
  for (uint32_t token : declared_escapes)
    each(token);
}

// A key of an object without patternProperties: the tokens that close it as an undeclared
// name come from the string class, with the state after an undeclared name; those that
// finish a declared name are decided apart (their bits as other threads left them, plus
// this thread's decision).
void Matcher::State::FastKey(const grammar::Thread& t, std::span<uint32_t> mask) {
  const grammar::Frame& top = t.frames.back();
  const grammar::StringClass& cls = grammar.index->string_classes[top.b];
  ListDeclaredKeyTokens(t);
  KeepBits([&](auto note) { ForDeclaredKeyTokens(note); }, mask);
  thread = t;
  grammar::Frame& closing = thread.frames.back();
  closing.b = grammar::kLexNormal;
  closing.c = 0;
  closing.a = grammar::kNone;  // an undeclared name: the common case
  post.Clear();
  runtime.Feed(thread, '"', post);
  if (!post.empty()) {
    for (auto [token, code_points] : cls.close_exactly)
      SetBit(mask, token);
    Walk(cls.suffixes, post, [&](uint32_t group) {
      for (auto [token, code_points] : cls.members[group])
        SetBit(mask, token);
    });
  }
  ClearBits([&](auto note) { ForDeclaredKeyTokens(note); }, mask);
  RestoreKept(mask);
  DecideDeclaredKeyTokens(t, mask);
}

// The tokens of the declared lists: the rest of a name and what follows it walked from the
// state after the name; escaped spellings tried one by one.
void Matcher::State::DecideDeclaredKeyTokens(const grammar::Thread& t, std::span<uint32_t> mask) {
  ThreadSet& from = single;
  from.Clear();
  from.Append(t, grammar.specs.seen_words);
  for (uint32_t token : declared_escapes) {
    if (Accepts(from, grammar.vocabulary->bytes(token))) SetBit(mask, token);
  }
  if (declared_nodes.empty()) return;
  const grammar::FlatTrie& trie = grammar.index->trie;
  const grammar::Frame& object = t.frames[t.frames.size() - 2];
  const grammar::ObjectSpec& o = grammar.specs.objects[grammar.specs.values[object.spec].object];
  const uint32_t depth = o.names.depth(t.frames.back().a);
  for (auto [node, rank] : declared_nodes) {
    rest.assign(o.properties[o.property_by_rank[rank]].name, depth);
    rest.push_back('"');
    const ThreadSet* after = FeedFrom(from, rest);
    if (after == nullptr) continue;
    for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k)
      SetBit(mask, trie.values[k]);
    if (trie.skip[node] > node + 1) {
      WalkRange(trie, *after, node + 1, trie.skip[node], trie.depth[node],
                [&](uint32_t token) { SetBit(mask, token); });
    }
  }
}

bool Matcher::State::FastNumber(std::span<uint32_t> mask) {
  const grammar::Frame& top = loaded.frames.back();
  const grammar::NumberSpec& spec = grammar.specs.values[top.spec].number;
  if (!BoundsIrrelevant(spec, (top.b & grammar::kNumNegative) != 0)) return false;
  if (spec.integer_only && top.phase >= grammar::kNumE) return false;
  const grammar::NumberClass& cls = NumberClassOf(spec, top.phase);
  // Room for the most digits an inside token adds, under the lexer's limits.
  const bool bounded = spec.bounded();
  const uint32_t int_room = (bounded ? grammar::kMaxBoundedIntDigits : grammar::kMaxIntDigits);
  if (top.count + cls.max_int_digits > int_room) return false;
  if (bounded && top.d + cls.max_frac_digits > grammar::kMaxBoundedFracDigits) return false;
  if (top.phase >= grammar::kNumE && top.c + cls.max_exp_digits > grammar::kMaxExponentDigits) {
    return false;
  }
  thread = loaded;
  NumberFromClass(thread, cls, mask);
  if (grammar::NumberComplete(top.phase)) {
    WalkVocabulary(post, mask);
  }
  return true;
}

// A number the classes cannot serve (bounds that can refuse it, or too close to a digit
// limit), in the group's state `top`, for every thread of its `posts` (each a thread that had
// it on top, after it): the bytes that continue it are walked once, with the number frame
// alone (a 48-byte copy per level, no thread copied), and where a token's byte ends it,
// complete and within bounds, the rest of that token is walked from the states after the
// number. The tokens that end it at their first byte come from WalkVocabulary there.
void Matcher::State::NumberFrameWalk(WalkGroup& group, std::span<uint32_t> mask) {
  group.posts.Dedupe(grammar.specs.seen_words);
  const grammar::Frame& top = group.top;
  const ThreadSet& posts = group.posts;
  const grammar::FlatTrie& trie = grammar.index->trie;
  if (number_levels.size() < trie.max_depth + 1) number_levels.resize(trie.max_depth + 1);
  auto set = [&](uint32_t token) { SetBit(mask, token); };
  number_levels[0] = top;
  for (const char first : std::string_view("0123456789.eE+-")) {
    const uint32_t root = trie.root[static_cast<uint8_t>(first)];
    if (root == grammar::FlatTrie::kNoNode) continue;
    for (size_t i = root; i < trie.skip[root];) {
      const size_t depth = trie.depth[i];
      grammar::Frame& frame = number_levels[depth];
      frame = number_levels[depth - 1];
      const int taken = runtime.StepNumberOnly(frame, trie.byte[i]);
      if (taken == 1) {
        for (uint32_t k = trie.begin[i]; k < trie.begin[i + 1]; ++k)
          set(trie.values[k]);
        ++i;
        continue;
      }
      // A byte that ends the number below the first is the parent's, from the state after it.
      if (taken == 2 && depth > 1) WalkRange(trie, posts, i, trie.skip[i], depth - 1, set);
      i = trie.skip[i];
    }
  }
  grammar::Frame probe = top;
  // Any byte that is no part of a number ends it (if it may end here): ',' stands for them.
  if (runtime.StepNumberOnly(probe, ',') == 2) WalkVocabulary(posts, mask);
}

// How the string on top of a thread is masked: from its string class (`inside` is then the
// bitmask of the tokens that stay inside), with each closing token checked against the
// automaton, or by a walk. The class serves when no token can kill the automaton (its state's
// death depth is beyond the longest token) and the length bound leaves room for the longest
// token and what the automaton may still need; the closings need a check unless no token can
// leave the automaton unmatched either.
Matcher::State::StringPath Matcher::State::StringPathFor(
    const grammar::Frame& top, const grammar::StringSpec& spec, const grammar::TokenMask*& inside,
    const grammar::StringClass* from_class) const {
  if (top.b >= grammar::kLexClassStates) return StringPath::kWalk;
  uint64_t needed = 0;  // code points the automaton may still need after a token
  StringPath path = StringPath::kClass;
  if (spec.dfa != grammar::kNone) {
    const grammar::DfaReach& reach = grammar.specs.dfa_reach[spec.dfa];
    const size_t longest = grammar.index->max_token_bytes;
    if (reach.death[top.a] <= longest) {
      // Some token can kill the automaton: the state's split of bytes decides most of them.
      // SplitString decides where a length bound binds.
      if (from_class != nullptr || top.b != grammar::kLexNormal) return StringPath::kWalk;
      return StringPath::kSplit;
    } else if (reach.unsettled[top.a] <= longest) {
      path = StringPath::kCheckClosings;
      needed = reach.max_to_accept;
    }
  }
  const grammar::StringClass& cls =
      from_class != nullptr ? *from_class : grammar.index->string_classes[top.b];
  const uint64_t remaining =
      spec.max_length == UINT64_MAX ? UINT64_MAX : spec.max_length - top.count;
  if (remaining >= uint64_t{cls.max_inside_code_points} + needed) {
    inside = &cls.inside;
  } else if (path == StringPath::kClass && top.b == grammar::kLexNormal &&
             remaining < cls.inside_at_most.size()) {
    inside = &cls.inside_at_most[remaining];
  } else if (path == StringPath::kCheckClosings && from_class == nullptr &&
             top.b == grammar::kLexNormal && remaining < cls.inside_at_most.size()) {
    return StringPath::kBoundedClosings;
  } else {
    return StringPath::kWalk;
  }
  return path;
}

// The closing tokens of a string whose automaton the class cannot vouch for at the quote:
// those whose continuation the state after the string takes, each stepped through the string
// frame alone up to its quote (fewer code points than the automaton still needs: refused).
void Matcher::State::CheckedClosings(const grammar::Thread& t, std::span<uint32_t> mask,
                                     const grammar::StringClass* from_class) {
  const grammar::Frame& top = t.frames.back();
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const grammar::DfaReach& reach = grammar.specs.dfa_reach[spec.dfa];
  if (reach.accepting == UINT32_MAX) return;
  const grammar::StringClass& cls =
      from_class != nullptr ? *from_class : grammar.index->string_classes[top.b];
  const size_t skip = from_class != nullptr ? 1 : 0;  // the opening quote
  thread = t;
  grammar::Frame& closing = thread.frames.back();
  closing.b = grammar::kLexNormal;
  closing.c = 0;
  closing.a = reach.accepting;  // the state after the string does not depend on it
  closing.count = static_cast<uint32_t>(std::max<uint64_t>(closing.count, spec.min_length));
  post.Clear();
  runtime.Feed(thread, '"', post);
  if (post.empty()) return;
  const uint32_t needed = grammar.specs.dfa_min_to_accept[spec.dfa][top.a];
  auto check = [&](uint32_t token, uint32_t code_points) {
    if (code_points < needed) return;
    grammar::Frame frame = top;
    for (char c : grammar.vocabulary->bytes(token).substr(skip)) {
      const int taken = runtime.StepStringOnly(frame, static_cast<uint8_t>(c));
      if (taken == 0) return;
      if (taken == 2) {
        SetBit(mask, token);
        return;
      }
    }
  };
  for (auto [token, code_points] : cls.close_exactly)
    check(token, code_points);
  Walk(cls.suffixes, post, [&](uint32_t group) {
    for (auto [token, code_points] : cls.members[group])
      check(token, code_points);
  });
}

// StepLevel's bytes that the recogniser's lexer takes: escapes and the quote.
int Matcher::State::StepLevelLexer(StringLevel& level, uint8_t byte, grammar::Frame& frame) {
  frame.a = level.dfa;
  frame.b = level.lexer;
  frame.c = level.code;
  frame.count = level.count;
  const int taken = runtime.StepStringOnly(frame, byte);
  level = {frame.a, frame.b, frame.c, frame.count};
  return taken;
}

// The tokens through the byte split of automaton `dfa` in `state`, computed on first use and
// kept with the grammar.
std::shared_ptr<const grammar::SplitTokens> Matcher::State::SplitTokensOf(uint32_t dfa,
                                                                          uint32_t state) {
  const uint64_t key = uint64_t{dfa} << 32 | state;
  {
    std::lock_guard<std::mutex> lock(grammar.split_mutex);
    auto found = grammar.splits.find(key);
    if (found != grammar.splits.end()) return found->second;
  }
  const ByteDfa& automaton = grammar.specs.dfas[dfa];
  std::shared_ptr<const grammar::KilledAhead> ahead;
  if (automaton.state_count() >= grammar::kKilledAheadStates) {
    {
      std::lock_guard<std::mutex> lock(grammar.split_mutex);
      auto found = grammar.killed_ahead.find(dfa);
      if (found != grammar.killed_ahead.end()) ahead = found->second;
    }
    if (ahead == nullptr) {
      ahead = std::make_shared<const grammar::KilledAhead>(
          grammar::ClassesKilledAhead(automaton, grammar.specs.dfa_reach[dfa]));
      std::lock_guard<std::mutex> lock(grammar.split_mutex);
      ahead = grammar.killed_ahead.emplace(dfa, ahead).first->second;
    }
  }
  const grammar::ByteSplit split =
      grammar::SplitBytes(automaton, grammar.specs.dfa_reach[dfa], state, ahead.get());
  auto tokens = grammar.index->SplitTokensFor(split.safe, split.kill);
  if (tokens->safe_count < grammar.vocabulary->size() / 32) {
    auto near = CountSplitTokens(dfa, state, tokens->safe_count);
    if (near != nullptr) tokens = std::move(near);
  }
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  grammar.splits.emplace(key, tokens);
  return tokens;
}

// For a state whose split keeps few tokens (`kept` of them): perhaps a count (such as
// [a-z0-9]{1,255}) that refuses the bytes the state takes only once it runs out
// (SplitForCount). Null when its split keeps no more tokens, or too few to beat a walk. The
// whole split of those bytes (kept per vocabulary) is checked before the cut for this
// state's horizon is made from it.
std::shared_ptr<const grammar::SplitTokens> Matcher::State::CountSplitTokens(uint32_t dfa,
                                                                             uint32_t state,
                                                                             size_t kept) {
  const auto count = grammar::SplitForCount(grammar.specs.dfas[dfa], grammar.specs.dfa_reach[dfa],
                                            state, grammar.index->trie.max_depth);
  if (!count) return nullptr;
  const size_t enough = std::max(grammar.vocabulary->size() / 32, kept + 1);
  const grammar::ByteSplit& split = count->split;
  const auto whole = grammar.index->SplitTokensFor(split.safe, split.kill);
  if (whole->safe_count < enough) return nullptr;
  auto cut = grammar.index->SplitTokensFor(split.safe, split.kill, count->horizon);
  if (cut == nullptr || cut->safe_count < enough) return nullptr;
  // A cut of its own (not the kept whole split) counts in the grammar's budget.
  const size_t own = cut == whole ? 0 : cut->memory_bytes();
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  if (grammar.inside_bytes + own > CompiledGrammar::Impl::kMaxInsideBytes) return nullptr;
  grammar.inside_bytes += own;
  return cut;
}

// A key of a closed object under patternProperties where no declared name continues it, in
// the lexer's plain state: as SplitString does for a string, the tokens of the pattern
// state's safe bytes stay inside the name, those that must be stepped are stepped with the
// key pair, and the closing tokens are decided as for an open object (PatternKeyClosings).
// False (nothing done) when the trie must be walked.
bool Matcher::State::SplitKey(const grammar::Thread& t, std::span<uint32_t> mask) {
  const grammar::Frame& top = t.frames.back();
  const grammar::Frame& object = t.frames[t.frames.size() - 2];
  const uint32_t object_index = grammar.specs.values[object.spec].object;
  const grammar::ObjectSpec& o = grammar.specs.objects[object_index];
  if (top.d == kDeadState || top.b != grammar::kLexNormal) return false;
  const grammar::TokenMask* inside = KeyInsideOf(t, object_index);
  if (inside == nullptr) return false;
  // The split decides names by the patterns alone. Where a declared name they also take can
  // no longer be written, the tokens that follow the declared names are decided by stepping
  // alone (their bits from other threads kept).
  const bool blocked = runtime.PatternNameBlockedBelow(t);
  auto along = [&](auto note) { ForDeclaredPathTokens(t, o, note); };
  if (blocked) KeepBits(along, mask);
  inside->OrInto(mask);
  if (blocked) ClearBits(along, mask);
  if (top.a != grammar::kNone && o.names.first_rank(top.a) != o.names.last_rank(top.a)) {
    DeclaredRestTokens(t, o, mask);
  }
  if (blocked) RestoreKept(mask);
  PatternKeyClosings(t, mask);
  return true;
}

// Each token whose bytes all follow a declared name below the key on top of `t`, written
// plainly or escaped, through visit(token) (some more than once): the only tokens a declared
// name decides apart from the patterns, since a name that leaves the declared ones is theirs.
template <typename Visit>
void Matcher::State::ForDeclaredPathTokens(const grammar::Thread& t, const grammar::ObjectSpec& o,
                                           Visit visit) {
  const grammar::FlatTrie& trie = grammar.index->trie;
  auto subtree = [&](size_t root) {
    for (uint32_t v = trie.begin[root]; v < trie.begin[trie.skip[root]]; ++v)
      visit(trie.values[v]);
  };
  if (trie.root['\\'] != grammar::FlatTrie::kNoNode) subtree(trie.root['\\']);
  const uint32_t at = t.frames.back().a;
  if (at == grammar::kNone) return;
  for (uint32_t rank = o.names.first_rank(at); rank < o.names.last_rank(at); ++rank) {
    const std::string& name = o.properties[o.property_by_rank[rank]].name;
    size_t node = SIZE_MAX;
    for (size_t i = o.names.depth(at); i < name.size(); ++i) {
      node = trie.Child(node, static_cast<uint8_t>(name[i]));
      if (node == SIZE_MAX) break;
      for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k)
        visit(trie.values[k]);
      const size_t escape = trie.Child(node, '\\');
      if (escape != SIZE_MAX) subtree(escape);
    }
  }
}

// The tokens that stay inside a name of object `object_index` (closed, under
// patternProperties) from its pattern's state in the key on top of `t`, as if no declared
// name were being written: the tokens of the state's safe bytes, and those of the split's
// other subtrees that step as the key pair. Made ahead at compile time or on first use, and
// kept with the grammar (never null: even where few tokens are safe, a walk of the key costs
// as much as making the set once, on every fill).
const grammar::TokenMask* Matcher::State::KeyInsideOf(const grammar::Thread& t,
                                                      uint32_t object_index) {
  const grammar::Frame& top = t.frames.back();
  const uint64_t key = uint64_t{object_index} << 32 | top.d;
  {
    std::lock_guard<std::mutex> lock(grammar.split_mutex);
    auto found = grammar.key_insides.find(key);
    if (found != grammar.key_insides.end()) return found->second.get();
  }
  const grammar::ObjectSpec& o = grammar.specs.objects[object_index];
  const auto tokens = SplitTokensOf(o.pattern_dfa, top.d);
  std::vector<uint32_t> words(grammar.vocabulary->mask_words(), 0);
  grammar.index->string_classes[grammar::kLexNormal].inside.OrIntoAnd(words, tokens->safe_only);
  SetKeyPair(t);
  if (key_levels.size() < grammar.index->trie.max_depth + 1) {
    key_levels.resize(grammar.index->trie.max_depth + 1);
  }
  grammar::Frame start = top;
  start.a = grammar::kNone;
  StepSplitSubtrees(
      *tokens, start, key_levels,
      [&](grammar::Frame& walked, uint8_t byte) {
        key_pair.frames.back() = walked;
        const bool stays = runtime.StepKeyOnly(key_pair, byte) == 1;
        walked = key_pair.frames.back();
        return stays;
      },
      [&](std::span<const uint32_t> found, const grammar::Frame&) {
        for (uint32_t token : found)
          SetBit(words, token);
      });
  auto made = std::make_shared<const grammar::TokenMask>(std::move(words));
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  auto found = grammar.key_insides.find(key);
  if (found != grammar.key_insides.end()) return found->second.get();
  if (grammar.inside_bytes + made->memory_bytes() > CompiledGrammar::Impl::kMaxInsideBytes) {
    unkept_key_inside = std::move(made);  // over the grammar's budget: this state's own copy
    return unkept_key_inside.get();
  }
  grammar.inside_bytes += made->memory_bytes();
  return grammar.key_insides.emplace(key, std::move(made)).first->second.get();
}

// The tokens that spell the start of a declared name's rest, for SplitKey: a byte that kills
// the pattern may still continue a declared name, so the split's refused subtrees hold these.
// Each is stepped as the key pair along the name, and below each of its nodes the subtree of
// a backslash (an escape may spell the name's next character); closing quotes are decided
// apart.
void Matcher::State::DeclaredRestTokens(const grammar::Thread& t, const grammar::ObjectSpec& o,
                                        std::span<uint32_t> mask) {
  const grammar::FlatTrie& trie = grammar.index->trie;
  const uint32_t at = t.frames.back().a;
  const uint32_t depth = o.names.depth(at);
  SetKeyPair(t);
  if (key_levels.size() < trie.max_depth + 1) key_levels.resize(trie.max_depth + 1);
  auto step = [&](grammar::Frame& key, uint8_t byte) {
    key_pair.frames.back() = key;
    const bool stays = runtime.StepKeyOnly(key_pair, byte) == 1;
    key = key_pair.frames.back();
    return stays;
  };
  auto set = [&](std::span<const uint32_t> found, const grammar::Frame&) {
    for (uint32_t token : found)
      SetBit(mask, token);
  };
  const uint32_t first_escape = trie.root['\\'];
  if (first_escape != grammar::FlatTrie::kNoNode) {
    StepSubtree(first_escape, t.frames.back(), key_levels, step, set);
  }
  for (uint32_t rank = o.names.first_rank(at); rank < o.names.last_rank(at); ++rank) {
    const std::string& name = o.properties[o.property_by_rank[rank]].name;
    grammar::Frame key = t.frames.back();
    size_t node = SIZE_MAX;
    for (size_t i = depth; i < name.size(); ++i) {
      node = trie.Child(node, static_cast<uint8_t>(name[i]));
      if (node == SIZE_MAX || !step(key, static_cast<uint8_t>(name[i]))) break;
      for (uint32_t k = trie.begin[node]; k < trie.begin[node + 1]; ++k)
        SetBit(mask, trie.values[k]);
      const size_t escape = trie.Child(node, '\\');
      if (escape != SIZE_MAX) StepSubtree(escape, key, key_levels, step, set);
    }
  }
}

// A string whose automaton some token can kill: the tokens that stay inside come from the
// state's StringInside (computed once), filtered by the code points left where a length
// bound can refuse some of them, and the closing tokens are checked. False, with nothing
// done, when the string must be walked: so few tokens are safe that a walk costs less, or a
// length bound binds where the safe tokens' need is not known exactly.
bool Matcher::State::SplitString(const grammar::Thread& t, std::span<uint32_t> mask) {
  const grammar::Frame& top = t.frames.back();
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const StringInside* inside = StringInsideOf(top);
  if (inside == nullptr) return false;
  const grammar::StringClass& cls = grammar.index->string_classes[grammar::kLexNormal];
  const uint64_t left = spec.max_length == UINT64_MAX ? UINT64_MAX : spec.max_length - top.count;
  if (left >=
      uint64_t{cls.max_inside_code_points} + grammar.specs.dfa_reach[spec.dfa].max_to_accept) {
    inside->all.OrInto(mask);
  } else if (!BoundedInside(top, *inside, left, mask)) {
    return false;
  }
  CheckedClosings(t, mask);
  return true;
}

// The tokens inside a string with `left` code points left, where the bound can refuse some:
// the safe tokens (SafeTokensWithin), the stepped ones whose need is at most `left`, and the
// escaped ones stepped one by one. False, with nothing done, when the string is better walked.
bool Matcher::State::BoundedInside(const grammar::Frame& top, const StringInside& inside,
                                   uint64_t left, std::span<uint32_t> mask) {
  if (left < inside.need_floor || !SafeTokensWithin(top, inside, left, mask)) return false;
  const std::vector<uint32_t>& by_need = inside.by_need;
  const size_t fit =
      left + 1 >= inside.need_begin.size() ? by_need.size() : inside.need_begin[left + 1];
  if (inside.need_floor == 0 && fit * 2 <= by_need.size()) {
    for (size_t i = 0; i < fit; ++i)
      SetBit(mask, by_need[i]);
  } else {
    // Most fit: all of them, less those that do not, in a copy (the mask may hold them already).
    inside_words.assign(mask.size(), 0);
    inside.stepped.OrInto(inside_words);
    for (size_t i = fit; i < by_need.size(); ++i)
      inside_words[by_need[i] / 32] &= ~(1u << (by_need[i] % 32));
    for (size_t i = 0; i < mask.size(); ++i)
      mask[i] |= inside_words[i];
  }
  for (uint32_t token : inside.escaped) {
    if (StaysInside(top, token)) SetBit(mask, token);
  }
  return true;
}

// The split's safe tokens that fit in `left` code points. A safe token of c code points needs
// c plus what the states the safe bytes reach still need, between safe_need_low and
// safe_need_high more: those of at most left - high code points fit, those of more than
// left - low do not, and those between (few, as long tokens are rare) are stepped one by one.
// False, with nothing done, when they are too many.
bool Matcher::State::SafeTokensWithin(const grammar::Frame& top, const StringInside& inside,
                                      uint64_t left, std::span<uint32_t> mask) {
  constexpr size_t kMostStepped = 2048;
  const grammar::StringClass& cls = grammar.index->string_classes[grammar::kLexNormal];
  // The inside tokens of at most k code points; null when the classes do not say.
  auto at_most = [&](uint64_t k) -> const grammar::TokenMask* {
    if (k < cls.inside_at_most.size()) return &cls.inside_at_most[k];
    const bool all_counted = cls.max_inside_code_points < grammar::kMaxLengthMasks;
    return all_counted && !cls.inside_at_most.empty() ? &cls.inside_at_most.back() : nullptr;
  };
  const std::vector<uint32_t>& safe = inside.tokens->safe_only;
  certain_words.assign(mask.size(), 0);
  band_words.assign(mask.size(), 0);
  if (left >= inside.safe_need_high) {
    const grammar::TokenMask* certain = at_most(left - inside.safe_need_high);
    if (certain == nullptr) return false;
    certain->OrIntoAnd(certain_words, safe);
  }
  if (left >= inside.safe_need_low) {
    const grammar::TokenMask* possible = at_most(left - inside.safe_need_low);
    if (possible == nullptr) return false;
    possible->OrIntoAnd(band_words, safe);
  }
  return AdmitBand(top, mask, kMostStepped);
}

// With `certain_words` the tokens surely inside and `band_words` those that may be (a
// superset): the certain ones, and those of the band StaysInside admits one by one. False,
// with nothing done, when the band holds more than `most_stepped` others.
bool Matcher::State::AdmitBand(const grammar::Frame& top, std::span<uint32_t> mask,
                               size_t most_stepped) {
  size_t between = 0;
  for (size_t w = 0; w < mask.size(); ++w) {
    band_words[w] &= ~certain_words[w];
    between += static_cast<size_t>(std::popcount(band_words[w]));
  }
  if (between > most_stepped) return false;
  for (size_t w = 0; w < mask.size(); ++w) {
    mask[w] |= certain_words[w];
    for (uint32_t bits = band_words[w]; bits != 0; bits &= bits - 1) {
      const auto token =
          static_cast<uint32_t>(w * 32 + static_cast<size_t>(std::countr_zero(bits)));
      if (StaysInside(top, token)) SetBit(mask, token);
    }
  }
  return true;
}

// A string whose automaton no token can kill but whose length bound is too close for the
// class (kBoundedClosings): with `left` code points left and the automaton needing at most
// `needed` more to match, the inside tokens of at most left - needed code points are allowed
// as they are, those of up to `left` are stepped one by one, and the closing tokens are
// checked. False, with nothing done, when too many would be stepped: a walk costs less.
bool Matcher::State::BoundedClosings(const grammar::Thread& t, std::span<uint32_t> mask) {
  constexpr size_t kMostStepped = 4096;
  const grammar::Frame& top = t.frames.back();
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const grammar::StringClass& cls = grammar.index->string_classes[grammar::kLexNormal];
  const uint64_t left = spec.max_length - top.count;
  const uint64_t needed = grammar.specs.dfa_reach[spec.dfa].max_to_accept;
  const grammar::TokenMask* certain = left >= needed ? &cls.inside_at_most[left - needed] : nullptr;
  band_words.assign(mask.size(), 0);
  cls.inside_at_most[left].OrInto(band_words);
  certain_words.assign(mask.size(), 0);
  if (certain != nullptr) certain->OrInto(certain_words);
  if (!AdmitBand(top, mask, kMostStepped)) return false;
  CheckedClosings(t, mask);
  return true;
}

// Whether every byte of `token` stays inside the string frame `top` (lexer in its plain
// state), under its length bound.
bool Matcher::State::StaysInside(const grammar::Frame& top, uint32_t token) {
  const uint32_t dfa = grammar.specs.values[top.spec].string.dfa;
  const ByteDfa* automaton = &grammar.specs.dfas[dfa];
  const uint32_t* to_accept = grammar.specs.dfa_min_to_accept[dfa].data();
  grammar::Frame frame = top;
  StringLevel level{top.a, top.b, top.c, top.count};
  for (char c : grammar.vocabulary->bytes(token)) {
    if (StepLevel(level, static_cast<uint8_t>(c), frame, automaton, to_accept) != 1) return false;
  }
  return true;
}

// The length bound a StringInside of `spec`'s automaton is made and kept under: a bound no
// token can reach (with what the automaton still needs after it) refuses none of them, so
// such strings share the unbounded one's (UINT64_MAX).
uint64_t Matcher::State::InsideBound(const grammar::StringSpec& spec) const {
  const uint64_t reach =
      uint64_t{grammar.index->string_classes[grammar::kLexNormal].max_inside_code_points} +
      grammar.specs.dfa_reach[spec.dfa].max_to_accept;
  return spec.max_length >= reach ? UINT64_MAX : spec.max_length;
}

// The StringInside of the string frame `top` (lexer in its plain state), computed on first
// use; null when so few tokens are safe (under 1 in 32, 4,000 of Llama 3's) that the
// automaton prunes a walk early, which costs less than checking every closing token.
const StringInside* Matcher::State::StringInsideOf(const grammar::Frame& top) {
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const CompiledGrammar::Impl::InsideKey key{spec.dfa, top.a, InsideBound(spec)};
  {
    std::lock_guard<std::mutex> lock(grammar.split_mutex);
    auto found = grammar.insides.find(key);
    if (found != grammar.insides.end()) return found->second.get();
  }
  SharedInsideKey shared_key{grammar.vocabulary->identity(), grammar.specs.dfa_keys[spec.dfa],
                             top.a, key.max_length};
  std::shared_ptr<const StringInside> made = Shared().Find(shared_key).value_or(nullptr);
  if (made == nullptr) {
    auto tokens = SplitTokensOf(spec.dfa, top.a);
    if (tokens->safe_count < grammar.vocabulary->size() / 32) return nullptr;
    made = FromSameState(top, tokens);
    if (made == nullptr) {
      made = MakeStringInside(top, std::move(tokens));
      std::lock_guard<std::mutex> lock(grammar.split_mutex);
      grammar.walked_states[{spec.dfa, 0, key.max_length}].states.push_back(top.a);
    }
    const size_t bytes = made->memory_bytes() + shared_key.automaton.size();
    Shared().Insert(std::move(shared_key), made, bytes);
  }
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  auto found = grammar.insides.find(key);
  if (found != grammar.insides.end()) return found->second.get();
  if (grammar.inside_bytes + made->memory_bytes() > CompiledGrammar::Impl::kMaxInsideBytes) {
    unkept_inside = std::move(made);  // over the grammar's budget: this state's own copy
    return unkept_inside.get();
  }
  grammar.inside_bytes += made->memory_bytes();
  return grammar.insides.emplace(key, std::move(made)).first->second.get();
}

// The StringInside of `top` taken from a state already walked that no token's text tells its
// state apart from (SameWithin, to a code point past the longest token: a walk probes that far
// after an escape) and that has the byte split `tokens`: that state's, with the safe tokens'
// needs of `top`'s own. Null when none is found within kSameCandidates and kSameBudget.
std::shared_ptr<const StringInside> Matcher::State::FromSameState(
    const grammar::Frame& top, const std::shared_ptr<const grammar::SplitTokens>& tokens) {
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const CompiledGrammar::Impl::InsideKey key{spec.dfa, 0, InsideBound(spec)};
  std::array<uint32_t, kSameCandidates> candidates{};
  size_t count = 0;
  {
    std::lock_guard<std::mutex> lock(grammar.split_mutex);
    auto found = grammar.walked_states.find(key);
    if (found == grammar.walked_states.end()) return nullptr;
    // An automaton whose states keep differing (a word count, whose texts as long as a
    // token reach its bound) is no longer compared.
    const CompiledGrammar::Impl::Walked& walked = found->second;
    if (walked.missed >= kSameMisses * (walked.found + 1)) return nullptr;
    for (size_t i = walked.states.size(); i-- > 0 && count < kSameCandidates;)
      candidates[count++] = walked.states[i];
  }
  std::shared_ptr<const StringInside> same =
      SameStateInside(top, tokens, std::span(candidates).first(count));
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  CompiledGrammar::Impl::Walked& walked = grammar.walked_states[key];
  ++(same != nullptr ? walked.found : walked.missed);
  return same;
}

// Whether the states of `spec`'s automaton keep needing walks of their own (a word count,
// whose every word is a state no earlier one stands for): at least kWalksForClasses states
// walked, and none found alike for each kWalksForClasses missed. A mask step may then build
// the merged trie of the split's tokens (ClassTrie), which costs about two walks once and
// makes each later walk several times cheaper.
bool Matcher::State::KeepsWalking(const grammar::StringSpec& spec) const {
  const CompiledGrammar::Impl::InsideKey key{spec.dfa, 0, InsideBound(spec)};
  std::lock_guard<std::mutex> lock(grammar.split_mutex);
  auto found = grammar.walked_states.find(key);
  if (found == grammar.walked_states.end()) return false;
  const CompiledGrammar::Impl::Walked& walked = found->second;
  return walked.states.size() >= kWalksForClasses &&
         walked.missed >= kWalksForClasses * (walked.found + 1);
}

// FromSameState's comparisons with the walked states `candidates`, the latest first.
std::shared_ptr<const StringInside> Matcher::State::SameStateInside(
    const grammar::Frame& top, const std::shared_ptr<const grammar::SplitTokens>& tokens,
    std::span<const uint32_t> candidates) {
  const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
  const uint64_t bound = InsideBound(spec);
  const ByteDfa& automaton = grammar.specs.dfas[spec.dfa];
  const std::vector<uint32_t>& to_accept = grammar.specs.dfa_min_to_accept[spec.dfa];
  const auto horizon = static_cast<uint32_t>(grammar.index->trie.max_depth + 4);
  size_t budget = kSameBudget;
  for (const uint32_t other : candidates) {
    if (SplitTokensOf(spec.dfa, other) != tokens) continue;
    if (!grammar::SameWithin(automaton, to_accept, top.a, other, horizon, budget)) {
      if (budget == 0) return nullptr;
      continue;
    }
    const SharedInsideKey other_key{grammar.vocabulary->identity(),
                                    grammar.specs.dfa_keys[spec.dfa], other, bound};
    std::shared_ptr<const StringInside> same = Shared().Find(other_key).value_or(nullptr);
    if (same == nullptr) continue;  // out of the shared cache meanwhile
    uint32_t low = 0;
    uint32_t high = 0;
    SafeNeeds(spec.dfa, top.a, tokens->safe, low, high);
    if (low == same->safe_need_low && high == same->safe_need_high) return same;
    auto own = std::make_shared<StringInside>(*same);
    own->safe_need_low = low;
    own->safe_need_high = high;
    return own;
  }
  return nullptr;
}

// An automaton's states to make ahead (PrecomputeStrings), breadth first from its start: a
// string's (its frame at count 0 in `thread`, the state in `a`), or the names' of a closed
// object under patternProperties (the object fresh and a key in `thread`, the state in `d`).
struct Matcher::State::PendingStates {
  grammar::Thread thread;
  uint32_t object = grammar::kNone;  // the ObjectSpec of a key's; kNone for a string's
  uint32_t dfa = grammar::kNone;
  std::vector<uint32_t> queue;  // states in breadth-first order
  std::vector<uint8_t> queued;  // per state, made when the start state is taken
  size_t next = 0;
};

// The StringInsides and key sets that mask steps would make on first use, made at compile
// time instead (where a server overlaps them with prefill, off the step that masks a whole
// batch): the states of each pattern or format, breadth first from its start over the bytes
// below 0x80 (where the lexer stays plain), the automata in turn, until `deadline`.
void Matcher::State::PrecomputeStrings(std::chrono::steady_clock::time_point deadline) {
  std::vector<PendingStates> pending = StringsToPrecompute();
  precomputing = true;
  std::chrono::steady_clock::duration longest{0};  // the longest state's so far
  for (bool more = true; more;) {
    more = false;
    for (PendingStates& p : pending) {
      if (p.next == p.queue.size()) continue;
      // A state started only where one as long as the longest so far still fits.
      const auto start = std::chrono::steady_clock::now();
      if (start + longest >= deadline) return;
      more = true;
      const uint32_t state = p.queue[p.next++];
      PrecomputeState(p, state);
      longest = std::max(longest, std::chrono::steady_clock::now() - start);
      const ByteDfa& automaton = grammar.specs.dfas[p.dfa];
      if (p.queued.empty()) {
        p.queued.assign(automaton.state_count(), 0);
        p.queued[state] = 1;
      }
      for (int byte = 0; byte < 0x80; ++byte) {
        const uint32_t to = automaton.Step(state, static_cast<uint8_t>(byte));
        if (to == kDeadState || p.queued[to] != 0) continue;
        p.queued[to] = 1;
        p.queue.push_back(to);
      }
    }
  }
}

// Makes the set of `state` of p's automaton where a mask step would use one: a string's
// StringInside where its path is the split, a key's set where SplitKey would ask for it.
void Matcher::State::PrecomputeState(PendingStates& p, uint32_t state) {
  grammar::Frame& top = p.thread.frames.back();
  if (p.object == grammar::kNone) {
    top.a = state;
    const grammar::StringSpec& spec = grammar.specs.values[top.spec].string;
    const grammar::TokenMask* inside = nullptr;
    if (StringPathFor(top, spec, inside, nullptr) == StringPath::kSplit) (void)StringInsideOf(top);
    return;
  }
  top.d = state;
  if (runtime.FreeNameSlot(p.thread) && NamesByPatterns(grammar.specs.objects[p.object], state)) {
    (void)KeyInsideOf(p.thread, p.object);
  }
}

// One PendingStates per (automaton, bound) of the grammar's string values, as StringInsideOf
// keys them (values of one pattern share its states), and one per closed object whose names
// only its patternProperties take.
std::vector<Matcher::State::PendingStates> Matcher::State::StringsToPrecompute() const {
  std::vector<PendingStates> pending;
  std::set<std::pair<uint32_t, uint64_t>> seen;  // (automaton, bound); (kNone, object)
  auto add = [&](uint32_t dfa, grammar::Thread at_count_zero, uint32_t object) {
    const uint32_t start = grammar.specs.dfas[dfa].start();
    if (start == kDeadState) return;
    PendingStates p;
    p.thread = std::move(at_count_zero);
    p.object = object;
    p.dfa = dfa;
    p.queue.push_back(start);
    pending.push_back(std::move(p));
  };
  for (size_t i = 0; i < grammar.specs.values.size(); ++i) {
    const grammar::ValueSpec& value = grammar.specs.values[i];
    const grammar::StringSpec& spec = value.string;
    grammar::Frame frame;
    frame.spec = static_cast<uint32_t>(i);
    frame.b = grammar::kLexNormal;
    if ((value.types & kTypeString) != 0 && !value.has_enum && spec.dfa != grammar::kNone) {
      if (seen.insert({spec.dfa, InsideBound(spec)}).second) {
        frame.kind = FrameKind::kString;
        add(spec.dfa, grammar::Thread{{frame}, {}}, grammar::kNone);
      }
    }
    if ((value.types & kTypeObject) == 0 || value.has_enum || value.object == grammar::kNone)
      continue;
    const grammar::ObjectSpec& o = grammar.specs.objects[value.object];
    if (o.pattern_dfa == grammar::kNone || !grammar.specs.alts[o.undeclared].empty() ||
        !seen.insert({grammar::kNone, value.object}).second) {
      continue;
    }
    grammar::Frame object = frame;
    object.kind = FrameKind::kObject;
    frame.kind = FrameKind::kKey;
    frame.a = grammar::kNone;
    add(o.pattern_dfa,
        grammar::Thread{{object, frame}, std::vector<uint64_t>(2 * grammar.specs.seen_words, 0)},
        value.object);
  }
  return pending;
}

// Steps the split's other tokens from `top` with a count of 0 (a length bound still refuses
// what it refuses at any count), noting each one's need.
std::shared_ptr<StringInside> Matcher::State::MakeStringInside(
    const grammar::Frame& top, std::shared_ptr<const grammar::SplitTokens> tokens) {
  auto made = std::make_shared<StringInside>();
  const uint32_t dfa = grammar.specs.values[top.spec].string.dfa;
  const ByteDfa* automaton = &grammar.specs.dfas[dfa];
  const uint32_t* to_accept = grammar.specs.dfa_min_to_accept[dfa].data();
  const size_t depths = grammar.index->trie.max_depth + 1;
  if (need_levels.size() < depths) need_levels.resize(depths);
  if (need_class_levels.size() < depths) need_class_levels.resize(depths);
  NeedRun* const need_runs = NeedRuns(grammar.vocabulary->size()).data();
  size_t run_count = 0;
  grammar::Frame frame = top;
  const PlainWalk walk{automaton->stepper(), to_accept,
                       grammar.specs.values[top.spec].string.max_length};
  auto other = [&, walk](NeedLevel& at, uint8_t byte) {
    const StringLevel& level = at.level;
    // Text in UTF-8 (not an escape, a quote or a control byte) takes the inline step.
    if (level.lexer < grammar::kLexEscape && !LexerByte(at, byte)) return PlainStep(at, byte, walk);
    at.escaped =
        at.escaped ||
        ((level.lexer < grammar::kLexCont1 || level.lexer >= grammar::kLexEscape) &&
         !(level.lexer == grammar::kLexNormal && byte >= 0x20 && byte != '"' && byte != '\\'));
    if (StepLevel(at.level, byte, frame, automaton, to_accept) != 1) return false;
    at.need = std::max(at.need, at.level.count + to_accept[at.level.dfa]);
    return true;
  };
  PlainStepper<decltype(other)> step{walk, other};
  auto on_tokens = [&](std::span<const uint32_t> found, const NeedLevel& at) {
    if (at.escaped) [[unlikely]] {
      made->escaped.insert(made->escaped.end(), found.begin(), found.end());
    } else {
      need_runs[run_count++] = {found.data(), static_cast<uint32_t>(found.size()), at.need};
    }
  };
  const NeedLevel start{{top.a, top.b, top.c, 0}, 0, false};
  // From the lexer's plain state, bytes of one class of the automaton step alike (StepLevel
  // looks at a byte's UTF-8 range, which the classes respect, and at the automaton's class),
  // except the bytes the lexer treats apart.
  const bool plain = top.b == grammar::kLexNormal;
  std::array<uint8_t, 256> partition{};
  std::shared_ptr<const grammar::ClassTrie> classes;
  if (plain) {
    partition =
        grammar::ClassTrie::Partition([&](uint8_t byte) { return automaton->ClassOf(byte); });
    classes =
        tokens->ClassesFor(grammar.index->trie, partition,
                           precomputing || KeepsWalking(grammar.specs.values[top.spec].string));
  }
  if (classes != nullptr) {
    StepClassTrie(*classes, start, need_class_levels, need_levels, step, on_tokens);
  } else {
    const size_t steps = StepSplitSubtrees(*tokens, start, need_levels, step, on_tokens);
    if (plain) tokens->NoteWalk(partition, steps);
  }
  FinishStringInside(*made, dfa, top.a, std::move(tokens), {need_runs, run_count});
  return made;
}

// The masks of a StringInside from its stepped tokens, and its safe tokens' need.
void Matcher::State::FinishStringInside(StringInside& made, uint32_t dfa, uint32_t state,
                                        std::shared_ptr<const grammar::SplitTokens> tokens,
                                        std::span<const NeedRun> need_runs) {
  const size_t words = grammar.vocabulary->mask_words();
  std::vector<uint32_t> stepped(words, 0);
  uint32_t most = 0;
  size_t over = 0;
  for (const NeedRun& run : need_runs) {
    for (uint32_t k = 0; k < run.count; ++k)
      SetBit(stepped, run.first[k]);
    most = std::max(most, run.need);
    over += run.count;
  }
  // A counting sort by need (needs are small), of the needs over the floor.
  std::vector<uint32_t> count(size_t{most} + 2, 0);
  for (const NeedRun& run : need_runs)
    count[run.need] += run.count;
  while (over > StringInside::kMostByNeed) {
    over -= count[made.need_floor];
    ++made.need_floor;
  }
  made.need_begin.assign(size_t{most} + 2, 0);
  for (uint32_t n = made.need_floor; n <= most; ++n)
    made.need_begin[n + 1] = made.need_begin[n] + count[n];
  made.by_need.resize(over);
  std::vector<uint32_t> next(made.need_begin.begin(), made.need_begin.end() - 1);
  for (const NeedRun& run : need_runs) {
    if (run.need < made.need_floor) continue;
    std::copy_n(run.first, run.count, made.by_need.begin() + next[run.need]);
    next[run.need] += run.count;
  }
  std::vector<uint32_t> all = stepped;
  for (uint32_t token : made.escaped)
    SetBit(all, token);
  grammar.index->string_classes[grammar::kLexNormal].inside.OrIntoAnd(all, tokens->safe_only);
  made.stepped = grammar::TokenMask(std::move(stepped));
  made.all = grammar::TokenMask(std::move(all));
  SafeNeeds(dfa, state, tokens->safe, made.safe_need_low, made.safe_need_high);
  made.tokens = std::move(tokens);
}

// The fewest and most code points still needed in the states the `safe` bytes reach from
// `state` of automaton `dfa`.
void Matcher::State::SafeNeeds(uint32_t dfa, uint32_t state, const grammar::ByteSet& safe,
                               uint32_t& low, uint32_t& high) const {
  const ByteDfa& automaton = grammar.specs.dfas[dfa];
  const std::vector<uint32_t>& to_accept = grammar.specs.dfa_min_to_accept[dfa];
  std::vector<uint32_t> reached{state};
  std::vector<uint8_t> seen(automaton.state_count(), 0);
  seen[state] = 1;
  low = high = to_accept[state];
  for (size_t head = 0; head < reached.size(); ++head) {
    for (int byte = 0x20; byte < 256; ++byte) {
      if (!safe.Has(static_cast<uint8_t>(byte)) || byte == '"' || byte == '\\') continue;
      const uint32_t to = automaton.Step(reached[head], static_cast<uint8_t>(byte));
      if (to == kDeadState || seen[to] != 0) continue;
      seen[to] = 1;
      reached.push_back(to);
      low = std::min(low, to_accept[to]);
      high = std::max(high, to_accept[to]);
    }
  }
}

// The stepped tokens of a byte split, a subtree of the trie at a time: its path of safe bytes,
// then its nodes, each byte through `step` (the frame's state at that depth, kept in
// `by_depth`); a token is allowed when every byte of it stays inside the string or name (its
// closing quote is decided apart).
template <typename Level, typename StepByte, typename OnTokens>
size_t Matcher::State::StepSplitSubtrees(const grammar::SplitTokens& tokens, const Level& start,
                                         std::vector<Level>& by_depth, StepByte step,
                                         OnTokens on_tokens) {
  size_t steps = 0;
  for (size_t k = 0; k < tokens.stepped_roots.size(); ++k) {
    Level level = start;
    bool alive = true;
    for (uint32_t p = tokens.stepped_path_begin[k]; alive && p < tokens.stepped_path_begin[k + 1];
         ++p) {
      alive = StepOne(step, level, static_cast<uint8_t>(tokens.stepped_paths[p]));
      ++steps;
    }
    if (alive) steps += StepSubtree(tokens.stepped_roots[k], level, by_depth, step, on_tokens);
  }
  return steps;
}

// MakeStringInside's step for a byte of UTF-8 text (StepLevel's inline path, with the need
// taken on the way): a UTF-8 check, the count, the automaton. False when it leaves the string.
inline bool Matcher::State::PlainStep(NeedLevel& at, uint8_t byte, const PlainWalk& walk) {
  StringLevel& level = at.level;
  if (level.lexer == grammar::kLexNormal) {
    if (byte >= 0x80 && !grammar::LeadState(byte, level.lexer)) return false;
    if (++level.count > walk.max_length) return false;
  } else if (!grammar::ContinuationState(level.lexer, byte)) {
    return false;
  }
  level.dfa = walk.automaton.Step(level.dfa, byte);
  if (level.dfa == kDeadState) return false;
  const uint32_t left = walk.to_accept[level.dfa];
  if (left == UINT32_MAX || uint64_t{level.count} + left > walk.max_length) return false;
  at.need = std::max(at.need, level.count + left);
  return true;
}

// One byte of a walk through `step`; a PlainStepper's printable ASCII in the lexer's plain
// state straight to PlainStep, with the walk's tables at hand.
template <typename StepByte, typename Level>
inline bool Matcher::State::StepOne(StepByte& step, Level& level, uint8_t byte) {
  if constexpr (requires { step.plain; }) {
    if (level.level.lexer == grammar::kLexNormal && byte >= 0x20 && byte < 0x80 && byte != '"' &&
        byte != '\\') {
      return PlainStep(level, byte, step.plain);
    }
  }
  return step(level, byte);
}

// The tokens of a ClassTrie, each node's byte through `step` from `start` (a level per depth
// kept in `by_class`), and below each node its raw subtrees byte by byte (`by_depth`):
// on_tokens for the tokens of each node whose bytes all step, a node's tokens at once.
template <typename Level, typename StepByte, typename OnTokens>
void Matcher::State::StepClassTrie(const grammar::ClassTrie& classes, const Level& start,
                                   std::vector<Level>& by_class, std::vector<Level>& by_depth,
                                   StepByte step, OnTokens on_tokens) {
  by_class[0] = start;
  for (uint32_t r = classes.raw_begin[0]; r < classes.raw_begin[1]; ++r)
    StepSubtree(classes.raw[r], start, by_depth, step, on_tokens);
  for (size_t i = 1; i < classes.size();) {
    const size_t depth = classes.depth[i];
    Level level = by_class[depth - 1];
    if (!StepOne(step, level, classes.byte[i])) {
      i = classes.skip[i];
      continue;
    }
    if (classes.begin[i] != classes.begin[i + 1]) {
      on_tokens({classes.values.data() + classes.begin[i], classes.begin[i + 1] - classes.begin[i]},
                level);
    }
    for (uint32_t r = classes.raw_begin[i]; r < classes.raw_begin[i + 1]; ++r)
      StepSubtree(classes.raw[r], level, by_depth, step, on_tokens);
    by_class[depth] = level;
    ++i;
  }
}

// The subtree of trie node `root`, each byte through `step` from `start` (the state before
// the root's byte; a level per depth kept in `by_depth`): on_tokens for the tokens of each
// node whose bytes all step, a node's tokens at once. Returns the bytes stepped.
template <typename Level, typename StepByte, typename OnTokens>
size_t Matcher::State::StepSubtree(size_t root, const Level& start, std::vector<Level>& by_depth,
                                   StepByte step, OnTokens on_tokens) {
  // The arrays through local pointers, which the stores of a level cannot change.
  const grammar::FlatTrie& trie = grammar.index->trie;
  const uint8_t* const bytes = trie.byte.data();
  const uint16_t* const depths = trie.depth.data();
  const uint32_t* const skips = trie.skip.data();
  const uint32_t* const begins = trie.begin.data();
  const uint32_t* const values = trie.values.data();
  Level* const at_depth = by_depth.data();
  at_depth[depths[root] - 1u] = start;
  const size_t end = skips[root];
  size_t steps = 0;
  for (size_t i = root; i < end;) {
    const size_t depth = depths[i];
    Level level = at_depth[depth - 1];
    ++steps;
    if (!StepOne(step, level, bytes[i])) {
      i = skips[i];
      continue;
    }
    if (begins[i] != begins[i + 1])
      on_tokens({values + begins[i], begins[i + 1] - begins[i]}, level);
    at_depth[depth] = level;
    ++i;
  }
  return steps;
}

// Whether a name of `o` with its patterns' automaton in `state` is decided by the patterns
// (SplitKey, or a walk): undeclared names are refused and some token can kill the automaton.
// Otherwise every name can be written.
bool Matcher::State::NamesByPatterns(const grammar::ObjectSpec& o, uint32_t state) const {
  const grammar::Specs& specs = grammar.specs;
  return o.pattern_dfa != grammar::kNone && specs.alts[o.undeclared].empty() &&
         (state == kDeadState ||
          specs.dfa_reach[o.pattern_dfa].death[state] <= grammar.index->max_token_bytes);
}

// Handles thread `index` of the current state with a string class when it can; false when
// the thread must be walked.
bool Matcher::State::FastThread(size_t index, std::span<uint32_t> mask) {
  const grammar::Frame& top = current.top(index);
  if (top.kind == FrameKind::kNumber) {
    current.Load(index, grammar.specs.seen_words, loaded);
    if (!FastNumber(mask)) DeferFrameWalk();
    return true;
  }
  const grammar::Specs& specs = grammar.specs;
  if (top.kind == FrameKind::kString && top.phase != 0xFF) {
    const grammar::StringSpec& spec = specs.values[top.spec].string;
    const grammar::TokenMask* inside = nullptr;
    const StringPath path = StringPathFor(top, spec, inside);
    current.Load(index, specs.seen_words, loaded);
    if (path == StringPath::kWalk) {
      DeferFrameWalk();
      return true;
    }
    if (path == StringPath::kSplit) {
      if (!SplitString(loaded, mask)) DeferFrameWalk();
      return true;
    }
    if (path == StringPath::kBoundedClosings) {
      if (!BoundedClosings(loaded, mask)) DeferFrameWalk();
      return true;
    }
    inside->OrInto(mask);
    if (path == StringPath::kClass) {
      FastString(loaded, mask);
    } else {
      CheckedClosings(loaded, mask);
    }
    return true;
  }
  if (top.kind != FrameKind::kKey || top.b >= grammar::kLexClassStates) return false;
  current.Load(index, specs.seen_words, loaded);
  if (!runtime.FreeNameSlot(loaded)) return false;  // only missing required names: walked
  const grammar::Frame& object = loaded.frames[loaded.frames.size() - 2];
  const uint32_t object_index = specs.values[object.spec].object;
  if (object_index != grammar::kNone) {
    const grammar::ObjectSpec& o = specs.objects[object_index];
    if (NamesByPatterns(o, top.d)) {
      if (!SplitKey(loaded, mask)) PatternKeyWalk(loaded, mask);
      return true;
    }
    if (specs.alts[o.undeclared].empty() && o.pattern_dfa == grammar::kNone) return false;
    if (o.pattern_dfa != grammar::kNone) {
      grammar.index->string_classes[top.b].inside.OrInto(mask);
      PatternKeyClosings(loaded, mask);
      return true;
    }
  }
  grammar.index->string_classes[top.b].inside.OrInto(mask);
  FastKey(loaded, mask);
  return true;
}

bool Matcher::FillMask(std::span<uint32_t> mask) {
  std::fill(mask.begin(), mask.end(), 0u);
  const CompiledGrammar::Impl& impl = grammar_->impl();
  if (terminated_ || impl.index == nullptr) return false;
  State& s = *state_;
  s.slow.Clear();
  s.walk_group_count = 0;
  for (size_t i = 0; i < s.current.size(); ++i) {
    if (s.FastThread(i, mask)) continue;
    s.current.Load(i, impl.specs.seen_words, s.thread);
    s.slow.Append(s.thread, impl.specs.seen_words);
  }
  for (size_t g = 0; g < s.walk_group_count; ++g) {
    State::WalkGroup& group = s.walk_groups[g];
    if (group.top.kind == FrameKind::kNumber) {
      s.NumberFrameWalk(group, mask);
    } else {
      s.FrameStringWalk(group, mask);
    }
  }
  if (!s.slow.empty()) {
    s.WalkVocabulary(s.slow, mask);
  }
  if (s.runtime.CanEnd(s.current)) {
    for (uint32_t token : impl.vocabulary->end_of_generation())
      SetBit(mask, token);
  }
  for (size_t i = 0; i < mask.size(); ++i) {
    if ((mask[i] & impl.text_mask[i]) != impl.text_mask[i]) return false;
  }
  return true;
}

// ---- Cache ---------------------------------------------------------------------------------

struct GrammarCache::Entry {
  std::string key;
  std::shared_ptr<const CompiledGrammar> grammar;
  uint64_t used = 0;
};

GrammarCache::GrammarCache(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

GrammarCache::~GrammarCache() = default;

Expected<std::shared_ptr<const CompiledGrammar>> GrammarCache::Get(
    std::string_view schema_json, const std::shared_ptr<const Vocabulary>& vocabulary,
    const GrammarOptions& options) {
  auto parsed = ParseJson(schema_json);
  if (!parsed) return parsed.error();
  std::string key =
      std::to_string(vocabulary == nullptr ? 0 : vocabulary->identity()) + ":" +
      std::to_string(options.flexible_whitespace) + ":" + std::to_string(options.max_whitespace) +
      ":" + std::to_string(options.any_property_order) + ":" +
      std::to_string(options.strict_objects) + ":" + std::to_string(options.document_whitespace) +
      ":" + std::to_string(options.python_literals) + ":" + parsed->dump();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& entry : entries_) {
      if (entry->key == key) {
        entry->used = ++clock_;
        ++hits_;
        return entry->grammar;
      }
    }
    ++misses_;
  }
  auto ir = CompileSchema(schema_json);
  if (!ir) return ir.error();
  auto grammar = CompiledGrammar::Compile(*ir, vocabulary, options);
  if (!grammar) return grammar.error();
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= capacity_) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](const auto& a, const auto& b) { return a->used < b->used; });
    entries_.erase(oldest);
  }
  auto entry = std::make_unique<Entry>();
  entry->key = std::move(key);
  entry->grammar = *grammar;
  entry->used = ++clock_;
  entries_.push_back(std::move(entry));
  return *grammar;
}

size_t GrammarCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}
size_t GrammarCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}
size_t GrammarCache::misses() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return misses_;
}

}  // namespace crux::constrain
