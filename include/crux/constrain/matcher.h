// Token masks from a compiled JSON Schema: the grammar (compiled once per schema, vocabulary
// and options, immutable, shared) and the matcher (one per sequence, small and mutable).
//
// The matcher recognises exactly the JSON texts the schema allows, byte by byte: every keyword
// of the SchemaIr is enforced, except those listed in not_enforced(), where the grammar allows
// more (never less). A token is allowed when the bytes it writes keep the output a prefix of
// an allowed text — the mask is exact, not an approximation: every allowed token leaves a
// state from which the document can still be completed. Special tokens are never allowed;
// end-of-generation tokens are allowed exactly when the document is complete.
//
// Thread-safety: a CompiledGrammar may be shared between threads; a Matcher is used by one
// thread at a time. Cost: FillMask walks the vocabulary's token trie, skipping every subtree
// whose first byte cannot follow, and copies precomputed masks for free string content; it
// allocates nothing after the first call. AcceptToken is linear in the token's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/vocab.h"

namespace crux::constrain {

inline constexpr uint32_t kUnboundedWhitespace = UINT32_MAX;

struct GrammarOptions {
  // False: compact JSON, no whitespace between tokens.
  bool flexible_whitespace = true;
  // With flexible whitespace: at most this many whitespace bytes in a row, so that a model
  // cannot loop on blanks. kUnboundedWhitespace: any number (what `crux schema check` uses).
  uint32_t max_whitespace = 64;
  // False: the declared properties of an object come in schema order (any may be skipped
  // unless required); undeclared ones may come anywhere.
  bool any_property_order = true;
  // True: an object schema without `additionalProperties` is closed (as OpenAI's strict mode
  // reads schemas); false: JSON Schema's default, open.
  bool strict_objects = false;
  // False: no whitespace before or after the document's value, so that the document ends
  // with its last byte (for a value embedded in other text, such as a tool call's arguments
  // between markers). Whitespace inside objects and arrays follows flexible_whitespace.
  bool document_whitespace = true;
  // True: true, false and null are written as Python's True, False and None (for values in
  // Python call syntax, f(a=True)); everything else is JSON. A grammar option, so it applies
  // to enum and const values too.
  bool python_literals = false;
  // Compile time, in microseconds, spent making ahead the token sets of pattern and format
  // states that a mask step would otherwise make on first use (each automaton breadth first
  // from its start, the automata in turn; none past 25 ms from the compile's start, or past
  // the budget where it is longer), so that
  // the work is done where a server overlaps it with prefill rather than in a decode step.
  // 0: every state's on first use. Speed only: the grammar and its masks are the same, and
  // GrammarCache does not key by it.
  uint32_t precompute_us = 6000;
};

// Limits past which CompiledGrammar::Compile returns ErrorCode::kLimit.
inline constexpr size_t kMaxGrammarAlternatives = 256;  // anyOf/oneOf branches one value may take
inline constexpr size_t kMaxGrammarSpecs = 50000;       // distinct value constraints in a grammar
inline constexpr size_t kMaxLiveThreads = 64;           // parallel parses a matcher follows

class CompiledGrammar;

// Why a matcher stopped: running, or an end token / bytes it could not take.
class Matcher {
 public:
  explicit Matcher(std::shared_ptr<const CompiledGrammar> grammar);
  Matcher(const Matcher& other);
  Matcher& operator=(const Matcher& other);
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // Writes the allowed tokens into `mask` (vocabulary().mask_words() words; bit i%32 of word
  // i/32 set = token i allowed). Returns true when every non-special token is allowed. Needs a
  // grammar compiled with a vocabulary. After IsTerminated() the mask is empty.
  bool FillMask(std::span<uint32_t> mask);
  // Advances by one token. Returns false, leaving the state unchanged, for a token the mask
  // does not allow. An end-of-generation token terminates the matcher.
  bool AcceptToken(uint32_t token);
  // Advances by raw bytes (a byte-level check: no vocabulary needed); one rollback step.
  bool AcceptBytes(std::string_view bytes);
  // Undoes the last `steps` accepted tokens (or AcceptBytes calls). False when fewer than
  // `steps` are recorded; then nothing changes.
  bool Rollback(size_t steps);
  // An independent copy (for speculative branches).
  Matcher Fork() const { return *this; }
  // Bytes every allowed continuation starts with (jump-forward text), shortened so that no
  // token of the vocabulary could straddle its end: appending it keeps the tokenization
  // canonical. Empty when the next byte is not forced.
  std::string ForcedBytes() const;
  // True when the bytes so far form a complete document (end-of-generation is allowed).
  bool CanEnd() const;
  // True after an end-of-generation token was accepted.
  bool IsTerminated() const { return terminated_; }
  // Accepted steps that Rollback can still undo.
  size_t history_size() const;
  const CompiledGrammar& grammar() const { return *grammar_; }

  // Makes room in the calling thread for the scratch of mask steps over `vocabulary`, kept
  // for the thread (about 37 bytes a token: 4.7 MB for Llama 3), so that the first use of a
  // pattern's state in a later mask step touches no fresh memory for it (a page's first
  // touch can cost 10 us or more on a virtual machine). Optional: a thread that fills masks
  // calls it once before its first (crux serve's engine does).
  static void PrepareThread(const Vocabulary& vocabulary);

 private:
  friend class CompiledGrammar;  // Compile makes pattern states' token sets ahead
  struct State;
  std::shared_ptr<const CompiledGrammar> grammar_;
  std::unique_ptr<State> state_;
  bool terminated_ = false;
};

// A JSON Schema compiled against a vocabulary (or none, for byte-level checks).
class CompiledGrammar : public std::enable_shared_from_this<CompiledGrammar> {
 public:
  // Errors: kLimit for the limits above (the message names the keyword and JSON pointer);
  // kUnsupported for a construct the grammar cannot express.
  static Expected<std::shared_ptr<const CompiledGrammar>> Compile(
      const SchemaIr& schema, std::shared_ptr<const Vocabulary> vocabulary,
      const GrammarOptions& options = {});

  // Keywords not enforced: the SchemaIr's own list plus those the grammar adds (`oneOf` whose
  // branches overlap is enforced as `anyOf`).
  const std::vector<NotEnforced>& not_enforced() const;
  // Null when compiled without a vocabulary.
  const Vocabulary* vocabulary() const;
  const GrammarOptions& options() const;
  // Bytes of memory the grammar holds (specs, automata, precomputed masks), for the cache.
  size_t memory_bytes() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit CompiledGrammar(std::unique_ptr<Impl> impl);
  ~CompiledGrammar();

 private:
  std::unique_ptr<Impl> impl_;
};

// Compiled grammars keyed by (vocabulary identity, schema text without insignificant
// whitespace, options); least recently used first out. Thread-safe; a compile runs outside
// the lock, so two threads may compile the same schema once each.
class GrammarCache {
 public:
  explicit GrammarCache(size_t capacity = 256);
  ~GrammarCache();

  // Compiles on a miss. Errors are CompileSchema's and CompiledGrammar::Compile's (not cached).
  Expected<std::shared_ptr<const CompiledGrammar>> Get(
      std::string_view schema_json, const std::shared_ptr<const Vocabulary>& vocabulary,
      const GrammarOptions& options = {});

  size_t size() const;
  size_t hits() const;
  size_t misses() const;

 private:
  struct Entry;
  mutable std::mutex mutex_;
  size_t capacity_;
  size_t hits_ = 0;
  size_t misses_ = 0;
  uint64_t clock_ = 0;
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace crux::constrain
