// What the matcher precomputes once per vocabulary (private to constrain/): the token trie and
// the string classes. Shared by every grammar compiled against the vocabulary, through a
// process-wide cache keyed by the vocabulary's identity.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crux/constrain/vocab.h"
#include "grammar_specs.h"

namespace crux::constrain::grammar {

// A byte trie stored flat in depth-first order: node i has byte byte[i] at depth depth[i]
// (1 = a child of the root), its subtree ends before skip[i], and the values (token ids, or
// group ids) ending there are values[begin[i] .. begin[i+1]).
struct FlatTrie {
  std::vector<uint8_t> byte;
  std::vector<uint16_t> depth;
  std::vector<uint32_t> skip;
  std::vector<uint32_t> begin;  // size() + 1 entries
  std::vector<uint32_t> values;
  size_t max_depth = 0;
  // The root's child by byte, or kNoNode: a walk or a lookup from the root reads only the
  // subtrees it needs instead of every child's scattered entries.
  static constexpr uint32_t kNoNode = UINT32_MAX;
  std::array<uint32_t, 256> root{};
  // Each node's children as a list: node i's are child_node[child_begin[i] ..
  // child_begin[i + 1]), their bytes in child_byte. A walk that can take few of a node's
  // bytes reads the packed bytes of all its children (64 to a cache line) instead of the
  // scattered entries of every child in depth-first order.
  std::vector<uint32_t> child_begin;  // size() + 1 entries
  std::vector<uint8_t> child_byte;
  std::vector<uint32_t> child_node;

  // Per node, what its subtree (the node and every node below it) holds, for scans that skip
  // whole subtrees: `groups` has bit ByteGroup(b) for each byte b there, `deepest` the
  // largest depth. Made by Summarize (the vocabulary's trie only); empty otherwise.
  std::vector<uint64_t> groups;
  std::vector<uint16_t> deepest;
  void Summarize();
  // Bytes in 64 groups: control bytes, the quote, the backslash (no split keeps them safe)
  // and the blank each a group, digits one by one, letters in pairs (a-b, ..., y-z), the other
  // printable bytes in pairs, the bytes from 0x80 by UTF-8 role in runs of 16. A split whose
  // safe bytes fill a group lets a subtree of that group's bytes through without reading it.
  static uint8_t ByteGroup(uint8_t byte);
  size_t size() const { return byte.size(); }
  // The node reached from the root by `path`, or SIZE_MAX. O(path × children).
  size_t Find(std::string_view path) const;
  // The child of `node` (SIZE_MAX: the root) by byte `next`, or SIZE_MAX.
  size_t Child(size_t node, uint8_t next) const;
  // Builds the trie of (key, value) pairs; keys must be non-empty.
  static FlatTrie Build(std::vector<std::pair<std::string, uint32_t>> items);
  size_t memory_bytes() const;
};

// Lists of items by group, stored in one array (group g is items[offsets[g] ..
// offsets[g + 1])): a walk that visits many groups reads one contiguous array instead of
// chasing one heap block per group.
template <typename T>
class Groups {
 public:
  Groups() = default;
  explicit Groups(const std::vector<std::vector<T>>& lists) {
    offsets_.reserve(lists.size() + 1);
    offsets_.push_back(0);
    for (const std::vector<T>& list : lists) {
      items_.insert(items_.end(), list.begin(), list.end());
      offsets_.push_back(static_cast<uint32_t>(items_.size()));
    }
  }
  size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  std::span<const T> operator[](size_t group) const {
    return {items_.data() + offsets_[group], offsets_[group + 1] - offsets_[group]};
  }
  size_t memory_bytes() const { return offsets_.size() * 4 + items_.size() * sizeof(T); }

 private:
  std::vector<uint32_t> offsets_;
  std::vector<T> items_;
};

// A set of tokens, as a bitmask over the vocabulary (bit t%32 of word t/32), kept as its
// non-zero words alone when few words are non-zero: OR-ing a class of a thousand tokens into a
// mask then reads 4 KB instead of the whole 16 KB bitmask of a 128K vocabulary.
class TokenMask {
 public:
  TokenMask() = default;
  explicit TokenMask(std::vector<uint32_t> words);
  // mask |= this.
  void OrInto(std::span<uint32_t> mask) const;
  // mask |= this & other (other a whole bitmask).
  void OrIntoAnd(std::span<uint32_t> mask, std::span<const uint32_t> other) const;
  bool Has(uint32_t token) const;
  size_t memory_bytes() const { return dense_.size() * 4 + sparse_.size() * 8; }

 private:
  std::vector<uint32_t> dense_;                        // every word, or empty when sparse
  std::vector<std::pair<uint32_t, uint32_t>> sparse_;  // (word index, bits), by index
};

// Tokens seen from inside a JSON string whose lexer is in one state (no \u digits pending).
struct StringClass {
  // Tokens whose bytes all stay inside the string, and the largest number of code points one
  // of them adds.
  TokenMask inside;
  uint32_t max_inside_code_points = 0;
  // For the start state only: inside tokens of at most k code points, for k up to the
  // longest inside token (at most kMaxLengthMasks), so that any length bound is a copy.
  std::vector<TokenMask> inside_at_most;
  // Tokens that close the string, grouped by what follows the closing quote: group g has
  // suffix trie values g; members[g] = (token, code points before the quote).
  FlatTrie suffixes;
  Groups<std::pair<uint32_t, uint32_t>> members;
  std::vector<uint8_t> suffix_first;                         // the first byte of group g's suffix
  std::vector<std::pair<uint32_t, uint32_t>> close_exactly;  // tokens ending at the quote
  // Closing tokens with a backslash before the quote (their decoded prefix differs from
  // their bytes): checked one by one where the name matters (object keys).
  // With what the escapes decode to before the quote: only a name that this decoded prefix
  // completes is declared, and only then is the token decided one by one.
  std::vector<std::pair<uint32_t, std::string>> escaped_prefix;
};

inline constexpr uint32_t kMaxLengthMasks = 256;

// Tokens seen from inside a JSON number in one lexer phase, for one kind of number.
struct NumberClass {
  TokenMask inside;  // tokens whose bytes all continue the number
  // The most integer, fraction and exponent digits one inside token adds.
  uint32_t max_int_digits = 0;
  uint32_t max_frac_digits = 0;
  uint32_t max_exp_digits = 0;
  // Tokens that end the number (in a complete phase) after at least one byte of it and go
  // on: grouped by the rest, from the byte that ended it; rests trie value g = members[g].
  // (Tokens that end it at their first byte are walked from the state after the number.)
  FlatTrie rests;
  Groups<uint32_t> members;
};

// Tokens that begin with JSON whitespace (space, tab, newline, carriage return), for a state
// between the values of containers: there a run of whitespace changes nothing but its length,
// and the byte after the run resets it, so what follows the run does not depend on its length.
struct WhitespaceClass {
  // Tokens of whitespace only: (run length, token), shortest first.
  std::vector<std::pair<uint32_t, uint32_t>> only;
  // The others, grouped by what follows their leading run (rests trie value g = members[g]):
  // (run length, token).
  FlatTrie rests;
  Groups<std::pair<uint32_t, uint32_t>> members;
};

// Kinds of numbers with their own lexer.
enum NumberVariant : uint8_t {
  kNumberAny,                  // fraction and exponent
  kNumberInteger,              // digits only (draft 4)
  kNumberIntegerZeroFraction,  // digits, then `.` and zeros (draft 6 on)
  kNumberVariants,
};
inline constexpr uint32_t kNumberPhases = 9;  // kNumStart .. kNumExp

// The tokens as a string automaton's state sees them through its ByteSplit (grammar_specs.h),
// from the start state of a string's lexer: `safe_only` (a bitmask) holds the tokens of safe
// bytes only. Those whose first byte outside the safe ones neither kills nor closes the string
// (a backslash among them: its escape decodes to another byte) must be stepped: they are whole
// subtrees of the vocabulary's trie, root node stepped_roots[k] reached through the safe bytes
// stepped_paths[stepped_path_begin[k] .. stepped_path_begin[k + 1]), so that tokens sharing a
// beginning are stepped through it once. The rest are refused, or close the string.
struct ClassTrie;
struct SplitTokens {
  ByteSet safe;  // the split these tokens are for
  ByteSet kill;
  std::vector<uint32_t> safe_only;
  size_t safe_count = 0;  // tokens in safe_only
  size_t safe_depth = 0;  // the longest run of safe text bytes from the root of the trie
  // The trie nodes at the end of a run of more than kDeepRun safe text bytes from the root, in
  // trie order: what a run limit cuts (VocabIndex::SplitTokensFor). Found on first use.
  const std::vector<uint32_t>& DeepRuns(const FlatTrie& trie) const;
  static constexpr size_t kDeepRun = 4;
  std::vector<uint32_t> stepped_roots;
  std::string stepped_paths;
  std::vector<uint32_t> stepped_path_begin;  // stepped_roots.size() + 1 entries
  size_t stepped_bytes = 0;  // byte steps of a walk that prunes nothing (paths and subtrees)
  size_t memory_bytes() const;
  SplitTokens() = default;
  SplitTokens(const SplitTokens&) = delete;
  SplitTokens& operator=(const SplitTokens&) = delete;
  ~SplitTokens();
  // The stepped tokens merged by `classes` (see ClassTrie), kept for a few partitions
  // (within kMaxKeptClassTrieBytes for the process). A build costs one to two walks that
  // prune nothing, so it is made only where `may_build` (a grammar's compile, not a mask
  // step, whose time a whole batch waits on) and once a walk of these tokens as they are
  // (reported by NoteWalk) stepped at least half of stepped_bytes; null until then, and when
  // merging saves too little.
  std::shared_ptr<const ClassTrie> ClassesFor(const FlatTrie& trie,
                                              const std::array<uint8_t, 256>& classes,
                                              bool may_build) const;
  // A walk of these tokens byte by byte from a state whose automaton's classes are `classes`
  // stepped `steps` bytes.
  void NoteWalk(const std::array<uint8_t, 256>& classes, size_t steps) const;
  static constexpr size_t kMaxKeptClassTrieBytes = size_t{64} << 20;

 private:
  mutable std::once_flag deep_once_;
  mutable std::vector<uint32_t> deep_runs_;
  static constexpr size_t kMaxClassTries = 4;
  struct KeptClasses {
    std::array<uint8_t, 256> partition;
    bool built = false;  // false: not worth it yet
    std::shared_ptr<const ClassTrie> trie;
  };
  mutable std::mutex class_mutex_;
  mutable std::vector<KeptClasses> class_tries_;
};

// The stepped tokens of a SplitTokens (paths and subtrees) as a trie over byte classes: bytes
// of one class (classes[byte], or kLexerByte for the bytes the string lexer treats apart:
// controls, the quote and the backslash) are stepped alike by an automaton whose classes the
// partition refines, from the lexer's plain state through UTF-8 text. So tokens whose bytes
// fall in the same classes, one by one, are stepped once, by one representative byte per node:
// for a pattern over words and blanks, Llama 3's 67,000 stepped tokens share a few thousand
// nodes. Flat in depth-first order like FlatTrie; node 0 is the root (depth 0, no byte). Below
// node i, the byte-trie subtrees raw[raw_begin[i] .. raw_begin[i + 1]) start with a lexer byte
// and are stepped byte by byte.
struct ClassTrie {
  static constexpr uint8_t kLexerByte = 0xFF;
  // The partition a ClassTrie is keyed and built by: the lexer's own bytes as kLexerByte,
  // every other byte numbered by its class_of(byte) in order of first appearance.
  template <typename ClassOf>
  static std::array<uint8_t, 256> Partition(ClassOf class_of) {
    std::array<uint8_t, 256> partition{};
    std::array<uint8_t, 256> renumbered{};
    renumbered.fill(kLexerByte);
    uint8_t next = 0;
    for (size_t byte = 0; byte < 256; ++byte) {
      if (byte < 0x20 || byte == '"' || byte == '\\') {
        partition[byte] = kLexerByte;
        continue;
      }
      uint8_t& number = renumbered[class_of(static_cast<uint8_t>(byte))];
      if (number == kLexerByte) number = next++;
      partition[byte] = number;
    }
    return partition;
  }
  std::vector<uint8_t> byte;  // a byte of the node's class
  std::vector<uint16_t> depth;
  std::vector<uint32_t> skip;
  std::vector<uint32_t> begin;  // tokens ending at node i: values[begin[i] .. begin[i + 1])
  std::vector<uint32_t> values;
  std::vector<uint32_t> raw_begin;  // size() + 1 entries
  std::vector<uint32_t> raw;        // FlatTrie nodes
  size_t size() const { return byte.size(); }
  size_t memory_bytes() const;
  // Null when the merged trie would keep more than a third of the nodes it merges (then a
  // build costs more than its walks save), or grow past the build's bounds.
  static std::shared_ptr<const ClassTrie> Build(const FlatTrie& trie, const SplitTokens& tokens,
                                                const std::array<uint8_t, 256>& classes);
};

// Makes room, in the calling thread, for ClassTrie builds over a vocabulary of `tokens`
// tokens (kept between builds, about 29 bytes a token), so that a build in a later mask step
// touches no fresh memory for its scratch.
void ReadyClassTrieScratch(size_t tokens);

struct VocabIndex {
  std::shared_ptr<const Vocabulary> vocabulary;
  FlatTrie trie;                            // every allowed (non-special) token
  std::vector<StringClass> string_classes;  // by lexer state, kLexClassStates of them
  std::vector<NumberClass> number_classes;  // [variant * kNumberPhases + phase]
  WhitespaceClass whitespace;
  // The tokens that open a string and go on (a quote, then more), seen from after the quote:
  // a value's string start comes from it as the string's content does from string_classes.
  StringClass after_quote;
  size_t max_token_bytes = 0;
  double build_ms = 0;
  size_t memory_bytes() const;
  // The tokens through one split of bytes (safe, kill): computed on first use, kept while
  // they are among the most recently used within kMaxSplitTokenBytes. Thread-safe.
  // With a `run_limit` under the trie's depth (at least SplitTokens::kDeepRun; null under it
  // when it binds), a run of more safe bytes than the limit is refused, for a count's split
  // (SplitForCount), which vouches for that; such cuts are not kept.
  std::shared_ptr<const SplitTokens> SplitTokensFor(const ByteSet& safe, const ByteSet& kill,
                                                    size_t run_limit = SIZE_MAX) const;

 private:
  std::shared_ptr<SplitTokens> ScanSplit(const ByteSet& safe, const ByteSet& kill) const;
  std::shared_ptr<SplitTokens> WithRunLimit(const SplitTokens& whole, size_t limit) const;
  static constexpr size_t kMaxSplitTokenBytes = size_t{48} << 20;
  using SplitKey = std::array<uint64_t, 8>;  // safe and kill
  struct SplitKeyHash {
    size_t operator()(const SplitKey& key) const {
      uint64_t h = 0;
      for (uint64_t w : key)
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
      return static_cast<size_t>(h ^ h >> 29);
    }
  };
  struct KeptSplit {
    std::shared_ptr<const SplitTokens> tokens;
    uint64_t last_use = 0;
  };
  mutable std::mutex split_mutex_;
  mutable std::unordered_map<SplitKey, KeptSplit, SplitKeyHash> split_sets_;
  mutable uint64_t split_uses_ = 0;
  mutable size_t split_bytes_ = 0;
};

// The index of `vocabulary`, built on first use and kept while any grammar uses it.
// Thread-safe.
std::shared_ptr<const VocabIndex> IndexFor(const std::shared_ptr<const Vocabulary>& vocabulary);

}  // namespace crux::constrain::grammar
