// The stages behind CompileRegexes (private to constrain/): an ECMAScript pattern parsed into
// a syntax tree over code-point sets, and a Thompson-style NFA over bytes built from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/schema_ir.h"
#include "regex.h"

namespace crux::constrain::regex {

inline constexpr char32_t kMaxCodePoint = 0x10FFFF;
inline constexpr uint32_t kUnbounded = UINT32_MAX;  // RegexNode::max of `*`, `+`, `{n,}`

// A closed range of code points.
struct CodePointRange {
  char32_t first;
  char32_t last;
};
// Sorted, disjoint, non-adjacent ranges.
using CodePointSet = std::vector<CodePointRange>;

// Sorts and merges `ranges` into a CodePointSet.
CodePointSet Normalize(std::vector<CodePointRange> ranges);
// Every code point not in `set` (surrogates included; the NFA drops them).
CodePointSet Complement(const CodePointSet& set);

// One node of a parsed pattern; children are indices into RegexAst::nodes.
struct RegexNode {
  enum class Kind : uint8_t {
    kEmpty,        // matches the empty string
    kSet,          // one code point of `set`
    kConcat,       // children in order
    kAlternation,  // one of the children
    kRepeat,       // children[0], min to max times
    kLineStart,    // `^`: only at the input's start
    kLineEnd,      // `$`: only at the input's end
  } kind = Kind::kEmpty;
  CodePointSet set;
  std::vector<uint32_t> children;
  uint32_t min = 0;
  uint32_t max = 0;
  // kRepeat: the quantifier's text, [quantifier_begin, quantifier_end) of the pattern (a
  // lazy `?` included).
  uint32_t quantifier_begin = 0;
  uint32_t quantifier_end = 0;
};

struct RegexAst {
  std::vector<RegexNode> nodes;
  uint32_t root = 0;
};

// Parses an ECMAScript pattern (UTF-8). kUnsupported names the construct outside the subset,
// kInvalidArgument a malformed pattern with its byte offset.
Expected<RegexAst> ParseRegex(std::string_view pattern);

// One part of a pattern with leading lookaheads, `^(?!X)(?=Y)R`: the main part "^R" and each
// lookahead as the searched pattern "^(?:X)", which must not match (`(?!`) or must (`(?=`).
// The pattern matches when all parts agree, since a lookahead at the input's start asks
// whether some prefix of the input matches it.
struct PatternTrack {
  std::string pattern;
  bool negated = false;
};
// The parts of `pattern`: itself alone unless it starts with `^` and lookaheads and the rest
// has no top-level `|` (a lookahead anywhere else stays kUnsupported for the parser to report).
std::vector<PatternTrack> SplitLeadingLookaheads(std::string_view pattern);

// A Thompson NFA over bytes. Epsilon edges are kSplit/kJump; kLineStart/kLineEnd edges are
// followed only at the input's start/end; kAccept ends source `source`.
struct NfaState {
  enum class Kind : uint8_t { kByte, kJump, kSplit, kLineStart, kLineEnd, kAccept, kFail };
  Kind kind = Kind::kFail;
  uint8_t first = 0;  // kByte: the byte range
  uint8_t last = 0;
  uint32_t next = 0;    // kByte, kJump, kSplit, kLineStart, kLineEnd
  uint32_t other = 0;   // kSplit: the second branch
  uint32_t source = 0;  // kAccept
};

// Builds NFA states; every Add fails with kLimit past kMaxNfaStates. States are built back to
// front: each fragment is given the state that follows it and returns its own first state.
class NfaBuilder {
 public:
  Expected<uint32_t> Add(const NfaState& state);
  // A state that matches one code point of `set` in UTF-8 (surrogates excluded), then `next`.
  Expected<uint32_t> CodePoints(const CodePointSet& set, uint32_t next);
  // The exact bytes of `text`, then `next`.
  Expected<uint32_t> Bytes(std::string_view text, uint32_t next);
  // `ast`, then `next`.
  Expected<uint32_t> Regex(const RegexAst& ast, uint32_t next);
  // Any sequence of well-formed UTF-8 characters, then `next`.
  Expected<uint32_t> AnyString(uint32_t next);

  std::vector<NfaState>& states() { return states_; }

 private:
  Expected<uint32_t> Node(const RegexAst& ast, uint32_t id, uint32_t next);
  Expected<uint32_t> Repeat(const RegexAst& ast, const RegexNode& node, uint32_t next);
  Expected<uint32_t> ByteSequence(const uint8_t* first, const uint8_t* last, size_t length,
                                  uint32_t next);

  std::vector<NfaState> states_;
  // kByte states by (first, last, next): identical byte-range suffixes are built once, so
  // the UTF-8 tails of code-point sets share states and their DFA states coincide.
  std::unordered_map<uint64_t, uint32_t> byte_states_;
};

// The whole-input automaton of `format` (kNone: any string), then `next`. Its language is
// the format's less FormatMaxLength, which the caller applies.
Expected<uint32_t> FormatNfa(NfaBuilder& builder, StringFormat format, uint32_t next);

// The process-wide automaton cache (crux/constrain/automaton_cache.h), keyed by the sources
// as CompileRegexes spells them: the cached result (errors too), or nullopt on a miss.
std::optional<Expected<ByteDfa>> CachedAutomaton(const std::string& key);
void CacheAutomaton(std::string key, const Expected<ByteDfa>& automaton);

}  // namespace crux::constrain::regex
