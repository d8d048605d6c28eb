// The grammar's compiled form (private to constrain/): every value position of a schema as a
// list of alternatives, each a ValueSpec that merges one conjunction of schema nodes.
//
// A JSON Schema combines constraints by conjunction (`allOf`, `$ref` beside other keywords,
// several nodes applying to one property) and disjunction (`anyOf`, `oneOf`). The compiler
// puts each value's constraint in disjunctive normal form: a set of *alternatives*, each a
// conjunction with no combinator left, merged into one ValueSpec (types intersected, bounds
// tightened, patterns and formats intersected in one automaton, enums intersected). The
// matcher then follows one parse per live alternative. Specs and alternative lists are
// hash-consed, so recursive schemas give a finite grammar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "regex.h"

namespace crux::constrain::grammar {

inline constexpr uint32_t kNone = UINT32_MAX;

using SpecId = uint32_t;  // index into Specs::values
using AltsId = uint32_t;  // index into Specs::alts

// 256 bits, one per byte value.
struct ByteSet {
  uint64_t words[4] = {0, 0, 0, 0};
  void Set(uint8_t byte) { words[byte >> 6] |= uint64_t{1} << (byte & 63); }
  void SetRange(uint8_t first, uint8_t last) {
    for (unsigned b = first; b <= last; ++b)
      Set(static_cast<uint8_t>(b));
  }
  bool Has(uint8_t byte) const { return (words[byte >> 6] >> (byte & 63) & 1) != 0; }
  void Add(const ByteSet& other) {
    for (int i = 0; i < 4; ++i)
      words[i] |= other.words[i];
  }
  bool operator==(const ByteSet&) const = default;
};

// A set of byte strings as a trie with sorted sparse edges: enum texts, property names.
class LiteralTrie {
 public:
  // Adds `text` as literal `index` (several texts may share an index only if equal).
  void Add(std::string_view text, uint32_t index);
  // Numbers the nodes in depth-first order and records each node's literal range; call once
  // after the last Add.
  void Finish();

  static constexpr uint32_t kRoot = 0;
  // The child of `node` by `byte`, or kNone.
  uint32_t Step(uint32_t node, uint8_t byte) const;
  // The literal ending at `node`, or kNone.
  uint32_t literal(uint32_t node) const { return nodes_[node].literal; }
  // Literals in the subtree of `node` are those with sorted ranks in [first, last).
  uint32_t first_rank(uint32_t node) const { return nodes_[node].first_rank; }
  uint32_t last_rank(uint32_t node) const { return nodes_[node].last_rank; }
  // The edges out of `node`, by byte: edge i leads by edge_byte(node, i) to edge_child.
  uint32_t edge_count(uint32_t node) const {
    return nodes_[node].edges_end - nodes_[node].edges_begin;
  }
  uint8_t edge_byte(uint32_t node, uint32_t i) const {
    return edges_[nodes_[node].edges_begin + i].byte;
  }
  uint32_t edge_child(uint32_t node, uint32_t i) const {
    return edges_[nodes_[node].edges_begin + i].child;
  }
  // True when JSON whitespace may follow `node`'s prefix of a canonical JSON text: outside
  // strings, after a structural byte or before one.
  bool whitespace_after(uint32_t node) const { return nodes_[node].whitespace_after; }
  // Bytes from the root to `node`.
  uint32_t depth(uint32_t node) const { return nodes_[node].depth; }
  // The rank (position in byte order) of literal `index`.
  uint32_t rank(uint32_t index) const { return ranks_[index]; }
  size_t memory_bytes() const;

 private:
  struct Node {
    uint32_t edges_begin = 0;  // into edges_, after Finish
    uint32_t edges_end = 0;
    uint32_t literal = kNone;
    uint32_t first_rank = 0;
    uint32_t last_rank = 0;
    uint32_t depth = 0;
    bool in_string = false;  // the prefix ends inside a JSON string
    bool escaped = false;    // ... right after a backslash
    uint8_t last = 0;        // the prefix's last byte
    bool whitespace_after = false;
  };
  struct Edge {
    uint8_t byte;
    uint32_t child;
  };
  uint32_t Number(uint32_t node, uint32_t& next_rank);

  std::vector<Node> nodes_ = {Node{}};
  std::vector<std::vector<Edge>> building_ = {{}};  // per node until Finish
  std::vector<Edge> edges_;
  std::vector<uint32_t> ranks_;
};

struct StringSpec {
  uint64_t min_length = 0;  // code points
  uint64_t max_length = UINT64_MAX;
  uint32_t dfa = kNone;  // index into Specs::dfas: every pattern and format, all must match
};

// Bounds of a number; a missing bound is infinite.
struct NumberBound {
  bool present = false;
  bool exclusive = false;
  SchemaNumber value;
};

struct NumberSpec {
  bool integer_only = false;      // no fraction (draft 6+: a fraction of zeros allowed)
  bool zero_fraction_ok = false;  // integer_only and 1.0 counts as an integer
  NumberBound low;
  NumberBound high;
  // Numbers of an enum/const (compared by value: 2.0 is 2); empty: any number.
  std::vector<SchemaNumber> points;
  // Filled once when the specs are built (PrepareNumber), for the per-byte checks of bounded
  // numbers: the enum numbers within the bounds, sorted by value, each as the values that read
  // as it ([point_low[i], point_high[i]], see PrepareNumber), and per side of zero (0:
  // positive, 1: negative) the magnitudes the spec allows.
  std::vector<long double> point_low;
  std::vector<long double> point_high;
  long double magnitude_low[2] = {0, 0};
  long double magnitude_high[2] = {0, 0};
  bool bounded() const { return low.present || high.present || !points.empty(); }
};
void PrepareNumber(NumberSpec& spec);
// True when some number meets the spec (after PrepareNumber): its bounds, integrality and enum
// numbers.
bool AdmitsSomeNumber(const NumberSpec& spec);

struct ArraySpec {
  std::vector<AltsId> prefix;  // item i < prefix.size()
  AltsId rest = kNone;         // items after the prefix; an empty alternative list: none
  uint64_t min_items = 0;
  uint64_t max_items = UINT64_MAX;
  AltsId item(uint64_t index) const { return index < prefix.size() ? prefix[index] : rest; }
};

struct PropertySpec {
  std::string name;      // the decoded name
  AltsId value = kNone;  // alternatives of its value (empty: the name is not allowed)
  uint32_t order = 0;    // position in schema order
  bool required = false;
};

struct ObjectSpec {
  LiteralTrie names;  // declared names; literal index = index in properties
  std::vector<PropertySpec> properties;
  // Undeclared names: matched against every node's patternProperties in `pattern_dfa`
  // (kNone: none); the value's alternatives for a name that ends in DFA state s are
  // undeclared_by_state[s], and undeclared when there is no DFA.
  uint32_t pattern_dfa = kNone;
  std::vector<AltsId> undeclared_by_state;
  AltsId undeclared = kNone;         // empty list: undeclared names are not allowed
  bool undeclared_possible = false;  // some undeclared name can be written
  uint64_t min_properties = 0;
  uint64_t max_properties = UINT64_MAX;
  std::vector<uint64_t> required_by_rank;       // bitset: the required properties
  std::vector<uint64_t> pattern_named_by_rank;  // declared names some pattern also takes
  size_t seen_words = 0;                        // 64-bit words of the seen-name bitset
  // By rank: the property, and whether its value can be written at all.
  std::vector<uint32_t> property_by_rank;
  std::vector<uint64_t> allowed_by_rank;  // bitset
};

// How far the states of a string automaton are from refusing, over well-formed UTF-8: per
// state, the fewest bytes after which it can be dead (`death`), or at a character boundary
// not matching every source (`unsettled`; dead counts), capped at kFarDepth. A state whose
// death is beyond the longest token lets every token's text through; one whose unsettled
// depth is, also lets every token close the string.
inline constexpr uint16_t kFarDepth = UINT16_MAX;
struct DfaReach {
  std::vector<uint16_t> death;
  std::vector<uint16_t> unsettled;
  uint32_t max_to_accept = 0;       // the largest finite fewest-code-points-to-match
  uint32_t accepting = UINT32_MAX;  // some state where every source matches (none: max)
  std::vector<uint8_t> phase;       // per state: where UTF-8 stands (private encoding)
};
DfaReach ComputeDfaReach(const ByteDfa& dfa, const std::vector<uint32_t>& to_accept);

// The bytes of a string automaton's state seen from any text a token writes: `safe` bytes
// keep it alive wherever they come (the states they reach take them all), `kill` bytes refuse
// wherever UTF-8 allows them there (after safe bytes only). A token of safe bytes passes; one
// whose first byte outside `safe` is in `kill` is refused; the others must be stepped.
struct ByteSplit {
  ByteSet safe;
  ByteSet kill;
};
// Per state of a string automaton, the byte classes some state reachable from it over
// well-formed UTF-8 (itself included) refuses where UTF-8 allows them: state q's bits are
// bits[q * words .. (q + 1) * words). Given to SplitBytes, its search for the bytes every
// reached state takes starts without them, so it reads only the states those bytes reach
// (a few for a count of words) instead of every state the count can still reach.
struct KilledAhead {
  size_t words = 0;
  std::vector<uint64_t> bits;
};
KilledAhead ClassesKilledAhead(const ByteDfa& dfa, const DfaReach& reach);
// Automata with fewer states than this are split without a KilledAhead: their searches are
// short, and the table would cost more than it saves.
inline constexpr uint32_t kKilledAheadStates = 256;
ByteSplit SplitBytes(const ByteDfa& dfa, const DfaReach& reach, uint32_t state,
                     const KilledAhead* ahead = nullptr);
// A count (such as [a-z0-9]{1,255}) refuses the bytes a state takes only once it runs out, so
// SplitBytes finds no safe byte there. This split keeps safe the bytes `state` takes at once
// over the longest `horizon` (2 to max_horizon bytes) within which every state they reach
// takes them all; `kill` holds after any run of them. A token with a longer run of them is
// refused: when the horizon is under max_horizon, every state that far refuses every one of
// them (the count's end). Null when the state does not keep its bytes two bytes on, or when
// such runs can go on past the horizon.
struct CountSplit {
  ByteSplit split;
  uint32_t horizon = 0;
};
std::optional<CountSplit> SplitForCount(const ByteDfa& dfa, const DfaReach& reach, uint32_t state,
                                        uint32_t max_horizon);

// True when no text of at most `horizon` bytes tells states `s` and `t` of a string automaton
// apart: from both, every such text is refused at the same byte or taken through states that
// need the same code points to match (MinToAccept's `to_accept`) at every byte. Such states
// let the same tokens through with the same needs (a count far from its bound:
// `(\S+\s+){0,99}` in word 3 and in word 40). Each pair of states stepped costs one of
// `budget`; false, with the budget spent, when it runs out first.
bool SameWithin(const ByteDfa& dfa, const std::vector<uint32_t>& to_accept, uint32_t s, uint32_t t,
                uint32_t horizon, size_t& budget);

// One alternative of a value position: a merged conjunction of schema nodes.
struct ValueSpec {
  uint8_t types = kTypeAny;  // TypeBits; kTypeInteger without kTypeNumber: integers only
  // enum/const: the value is one of the canonical texts in Specs::literal_sets[literals] or,
  // for numbers, equal to one of number.points; nothing else applies. kNone: no enum.
  uint32_t literals = kNone;
  bool has_enum = false;
  StringSpec string;
  NumberSpec number;
  uint32_t array = kNone;   // index into Specs::arrays (kNone: any array)
  uint32_t object = kNone;  // index into Specs::objects (kNone: any object)
};

// The compiled grammar tables.
struct Specs {
  std::vector<ValueSpec> values;
  std::vector<std::vector<SpecId>> alts;
  std::vector<ArraySpec> arrays;
  std::vector<ObjectSpec> objects;
  std::vector<LiteralTrie> literal_sets;
  std::vector<ByteDfa> dfas;
  // Per automaton: what it was compiled from (its sources, and whether all must match), the
  // same text wherever the same automaton is compiled, so that what is derived from it can be
  // shared by grammars.
  std::vector<std::string> dfa_keys;
  std::vector<std::vector<ByteSet>> dfa_live_bytes;  // per automaton and state: bytes not dead
  // Per automaton and state: the fewest code points to a state where every source matches
  // (UINT32_MAX: none).
  std::vector<std::vector<uint32_t>> dfa_min_to_accept;
  std::vector<DfaReach> dfa_reach;  // per automaton
  AltsId root = kNone;
  AltsId any_value = kNone;  // alternatives of an unconstrained value
  size_t seen_words = 1;     // the largest ObjectSpec::seen_words (at least 1)
  std::vector<NotEnforced> not_enforced;
  size_t memory_bytes() const;
};

// Empties the process's token sets of automaton states (shared by every grammar whose automaton
// has the same Specs::dfa_keys text; matcher.cc), as ClearAutomatonCache does with the
// automata they derive from.
void ClearSharedStringInsides();

// Compiles `schema` into grammar tables. Errors: kLimit past kMaxGrammarAlternatives or
// kMaxGrammarSpecs, or when an automaton is too large; kUnsupported when a pattern cannot be
// compiled.
Expected<Specs> BuildSpecs(const SchemaIr& schema, const GrammarOptions& options);

}  // namespace crux::constrain::grammar
