// Regular expressions and string formats compiled into deterministic automata over bytes
// (private to constrain/). The validator decides `pattern`, `patternProperties` and `format`
// with them, and the token-mask matcher steps the same automata one byte at a time over a
// string's decoded content, so the two agree by construction.
//
// Semantics: ECMAScript (non-unicode mode) over code points, except that a character outside
// the BMP counts as one character (ECMAScript would see two UTF-16 units). The input is UTF-8;
// the automata never accept ill-formed UTF-8, so a byte that cannot continue a well-formed
// string leads to kDeadState. Supported: literals and escapes, `.`, classes, \d \D \w \W \s \S,
// groups (capturing, `(?:`, named), alternation, greedy and lazy quantifiers, `^` and `$`
// (non-multiline). Lookaround, backreferences, word boundaries, `\p{…}` and inline flags are
// kUnsupported.
//
// Thread-safety: CompileRegexes may be called from any thread (its results are memoised in the
// process-wide cache of crux/constrain/automaton_cache.h); a ByteDfa is immutable and may be
// shared.
// Cost: compiling is bounded by kMaxNfaStates and kMaxDfaStates (a state's row holds one entry
// per class of bytes, rounded up to a power of two); Step is two table lookups.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

inline constexpr size_t kMaxDfaStates = 10000;   // per compiled automaton; past it: kLimit
inline constexpr size_t kMaxNfaStates = 200000;  // per compiled automaton; past it: kLimit
// NFA states summed over the DFA states' sets: bounds the construction's time and memory
// where a few thousand DFA states each hold thousands of NFA states.
inline constexpr size_t kMaxDfaWork = size_t{4} << 20;
inline constexpr uint32_t kDeadState = UINT32_MAX;

// One source of an automaton.
struct RegexSource {
  enum class Kind : uint8_t {
    kPattern,  // a JSON Schema `pattern`: ECMAScript, searched for (unanchored unless ^ or $)
    kLiteral,  // `text` must equal the whole input
    kFormat,   // `format` (text unused) must hold for the whole input, FormatMaxLength aside
  } kind = Kind::kPattern;
  std::string text;
  StringFormat format = StringFormat::kNone;
};

// A DFA over bytes recognising several sources at once. A state is a uint32 (kDeadState is
// the one state from which no source can match any more); every other state can still reach
// a match of at least one source. The tables are immutable and shared by every copy, so a
// copy costs one reference count.
class ByteDfa {
 public:
  ByteDfa() = default;
  // The state before any byte (kDeadState when no source matches anything).
  uint32_t start() const { return start_; }
  // The state after `byte`; kDeadState stays dead. Two loads: the byte's class, then the
  // state's row.
  uint32_t Step(uint32_t state, uint8_t byte) const {
    return state == kDeadState ? kDeadState
                               : transitions_[(size_t{state} << row_shift_) + class_of_[byte]];
  }
  size_t state_count() const { return state_count_; }
  // Step's tables by value, for a loop that steps many bytes: its copy stays in registers
  // where the automaton's fields would be read again after every store.
  struct Stepper {
    const uint32_t* transitions;
    const uint8_t* class_of;
    uint32_t row_shift;
    uint32_t Step(uint32_t state, uint8_t byte) const {
      return state == kDeadState ? kDeadState
                                 : transitions[(size_t{state} << row_shift) + class_of[byte]];
    }
  };
  Stepper stepper() const { return {transitions_, class_of_.data(), row_shift_}; }
  // Bytes fall into classes that every state treats alike, numbered from 0 in byte order. A
  // class never mixes bytes UTF-8 treats differently: it lies within one of 00-7F, 80-8F,
  // 90-9F, A0-BF, C0-C1, C2-DF, E0, E1-EC, ED, EE-EF, F0, F1-F3, F4, F5-FF.
  size_t class_count() const { return class_count_; }
  uint8_t ClassOf(uint8_t byte) const { return class_of_[byte]; }
  // Step for every byte of class `byte_class`.
  uint32_t StepClass(uint32_t state, size_t byte_class) const {
    return state == kDeadState ? kDeadState
                               : transitions_[(size_t{state} << row_shift_) + byte_class];
  }
  // Bytes held by the tables (shared between copies).
  size_t memory_bytes() const;
  // The same automaton where a state from which no input makes every source match at once
  // (a string under several patterns that one of them has already refused) is dead, so that
  // kDeadState alone says "refused" where every source must match.
  ByteDfa MatchingAllOnly() const;
  size_t source_count() const { return source_count_; }
  // True when source `source` matches the input read so far.
  bool Matches(uint32_t state, size_t source) const {
    return state != kDeadState && (MatchWords(state)[source / 32] >> (source % 32) & 1) != 0;
  }
  // True when every source matches the input read so far.
  bool MatchesAll(uint32_t state) const {
    return state != kDeadState && AllSet(MatchWords(state), source_count_);
  }
  // True when some continuation of the input makes every source match at once.
  bool CanMatchAll(uint32_t state) const {
    return state != kDeadState && can_match_all_[state] != 0;
  }
  // The sources that match at `state`, as a bitset of ceil(source_count / 32) words (empty
  // for kDeadState).
  std::span<const uint32_t> MatchWords(uint32_t state) const {
    if (state == kDeadState) return {};
    return {match_words_ + size_t{state} * words_, words_};
  }

 private:
  friend class DfaBuilder;
  struct Tables {
    // (state << row_shift) + class: rows of a power of two at least the class count.
    std::vector<uint32_t> transitions;
    std::vector<uint32_t> match_words;  // state * words_
    std::vector<uint8_t> can_match_all;
  };
  ByteDfa(std::shared_ptr<const Tables> tables, const std::array<uint8_t, 256>& class_of,
          uint32_t row_shift, uint32_t start, size_t sources, size_t words);
  // True when the first `bits` bits of `words` are all set.
  static bool AllSet(std::span<const uint32_t> words, size_t bits);

  std::shared_ptr<const Tables> tables_;
  // Into *tables_, so that Step reads the rows without going through tables_.
  const uint32_t* transitions_ = nullptr;
  const uint32_t* match_words_ = nullptr;
  const uint8_t* can_match_all_ = nullptr;
  // Per byte: its class, bytes no NFA state tells apart sharing one (all 0 when empty).
  std::array<uint8_t, 256> class_of_{};
  uint32_t row_shift_ = 0;
  size_t class_count_ = 0;
  uint32_t start_ = kDeadState;
  size_t state_count_ = 0;
  size_t source_count_ = 0;
  size_t words_ = 0;
};

// Compiles the sources into one automaton (a Thompson-style NFA over bytes, then subset
// construction, then pruning of the states that cannot reach a match). Errors: kUnsupported
// naming the construct ("lookahead `(?=`"), kInvalidArgument for a malformed pattern (with its
// byte offset), kLimit past kMaxNfaStates or kMaxDfaStates. The same sources, in the same order,
// are compiled once per process while they stay in the automaton cache (errors too).
Expected<ByteDfa> CompileRegexes(std::span<const RegexSource> sources);

// A pattern that is one character repeated, anchored at both ends (`^[a-f0-9]{24}$`,
// `^\w{1,64}$`, `^([0-9]|[a-f]){32}$`): as a bound on the string's length in code points
// beside `loop`, the same pattern with its count made `*`. Both say the same, but a count
// makes an automaton of as many states, each of which a mask meets anew, where the loop has
// one. Read from the pattern's syntax tree.
struct CountedClass {
  std::string loop;  // ^C*$
  uint64_t min = 0;
  uint64_t max = UINT64_MAX;
};
// Null when `pattern` is not of that form (or does not parse: left to the compiler).
std::optional<CountedClass> AsCountedClass(std::string_view pattern);

// Runs `dfa` over `text`; the state reached (kDeadState once dead).
uint32_t RunDfa(const ByteDfa& dfa, std::string_view text);

// A side condition of a format that its automaton does not encode: the matcher applies it as
// a bound on the string's length. Formats are ASCII, so bytes equal code points.
struct FormatLimits {
  uint64_t max_length = UINT64_MAX;  // bytes
};
// The side condition of `format`: hostname 253 bytes, email 254 (RFC 5321's path limit less
// the angle brackets), no bound for the others.
FormatLimits FormatMaxLength(StringFormat format);

}  // namespace crux::constrain
