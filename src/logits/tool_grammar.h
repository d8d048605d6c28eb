// The compiled form of a tool-call grammar and the byte-level cursor that follows it (private
// to logits/). See crux/logits/tool_calls.h for what is recognised.
//
// A family's CallGrammar becomes a small program of ops: text (forced bytes), slots (name,
// id, index, arguments, key, value type, value) and two branch points (after a call: another
// call or the close; in key-value arguments: another argument or the end). A Cursor is the
// position in that program, a plain 48-byte value that is copied freely; the only state that
// is not in it is the JSON matcher of an argument or value being written, which lives in a
// list of holes beside it, changed through a journal that can be undone.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/logits/tool_calls.h"
#include "token_index.h"

namespace crux::logits::tools {

inline constexpr uint32_t kNone = UINT32_MAX;

enum class OpKind : uint8_t {
  kText,        // forced bytes (text)
  kName,        // a tool's name, bare; once chosen in this call, that name again
  kNameString,  // a tool's name as a JSON string literal
  kId,          // 1 to 32 of [a-z0-9]
  kIndex,       // the call's position, from 0
  kIndex1,      // from 1
  kArgs,        // the arguments (JSON hole, or the key-value members)
  kAfterCall,   // branch: separator + next call, or close
  kEnd,         // only end-of-generation
  kMembers,     // branch: another argument, or the end of the arguments
  kKey,         // a parameter name not yet written
  kKeyAgain,    // the parameter name just written, again
  kValueType,   // the value's JSON type name
  kIsString,    // "true" / "false"
  kValue,       // the value
};

struct Op {
  OpKind kind = OpKind::kText;
  std::string text;
  uint32_t next = kNone;
  // A kValue op of a format with quoted strings (Grammar::quote): the op a string value takes
  // instead (the quote, the raw value, the quote, then this op's next).
  uint32_t quoted = kNone;
  // The text after a raw value (its terminator): the length of its shortest prefix that holds
  // a marker the value must not hold (MiniMax-M3's namespace token opens the terminator); once
  // a pending match reaches it, the value is over and only the rest of the terminator follows.
  uint32_t sealed = kNone;
};

// A byte trie over a few names (tool names, parameter names, enum strings, type words).
struct SmallTrie {
  struct Node {
    std::vector<std::pair<uint8_t, uint32_t>> edges;  // sorted by byte
    uint32_t terminal = kNone;                        // the name ending here
    uint64_t below = 0;                               // names 0..63 in the subtree (bitset)
  };
  std::vector<Node> nodes = {Node{}};
  void Add(std::string_view text, uint32_t index);
  uint32_t Step(uint32_t node, uint8_t byte) const;
};

struct Param {
  std::string name;
  std::string key;  // the name as the arguments write it (a JSON string where it cannot be bare)
  constrain::NodeId node = constrain::kNoNode;
  bool raw = false;  // a string-typed parameter: written raw
  uint8_t types = constrain::kTypeAny;
  // The types a JSON value of it may take (TypeBits; 0: any its schema allows), where the
  // family's parser reads only some as JSON (CallGrammar::untyped_scalars).
  uint8_t json_types = 0;
  bool required = false;
  // Raw strings.
  uint64_t min_length = 0;
  uint64_t max_length = UINT64_MAX;
  bool has_enum = false;
  SmallTrie enum_trie;
  // kValueType words (string, number, …) and kIsString words (true, false) it admits.
  std::vector<std::string> type_words;
  std::vector<uint8_t> type_bits;  // the TypeBits of each word
  SmallTrie type_trie;
};

// Where a key-value argument format announces a value's type: a kValueType slot (the JSON
// Schema type name) and a kIsString slot ("true" / "false"). kIsString wins when both are set.
struct TypeWordSlots {
  bool value_type = false;
  bool is_string = false;
};

// The words a value admitting `types` (TypeBits) may be announced with under `slots`, each with
// the TypeBits it selects: kIsString gives "true" (a string) and "false" (the other types);
// kValueType gives the type names in a fixed order, without "integer" when "number" is
// admitted. Empty with neither slot. The words are string literals. The token grammar
// (DescribeParam) admits exactly these; the GBNF writer (gbnf_tools.cc) starts from them.
std::vector<std::pair<std::string_view, uint8_t>> TypeWords(uint8_t types, TypeWordSlots slots);

// The TypeBits of an enum's (or const's) values (a number counts as integer too), which narrow
// the type words of a parameter.
uint8_t EnumTypes(const constrain::SchemaNode& node);

struct Tool {
  std::string name;
  std::string name_json;
  std::shared_ptr<const constrain::SchemaIr> ir;
  std::vector<Param> params;
  SmallTrie key_trie;
  uint64_t required = 0;
  uint64_t all = 0;
  // Every value the mask allows validates (ToolCallGrammar::exact).
  bool exact = true;
};

enum class Phase : uint8_t {
  kBlanks,  // blanks before the block (a: how many)
  kAnchor,  // auto, anchored: matching the block's opening text (a: offset)
  kFree,    // auto: free text, watching for the trigger (a: KMP state)
  kPlain,   // auto: free text for good
  kText,    // op's text at offset a (kText ops and dynamic texts)
  kBranch,  // op's alternatives at offset a, live bits b (1: continue, 2: finish)
  kName,    // name trie node a
  kId,      // a characters written
  kJson,    // JSON hole `hole` (a: its first byte + 1, 0 before it; b: PyEscape state)
  kKey,     // key trie node a
  kWord,    // type-word trie node a
  kRaw,     // raw string: a code points, b KMP over the terminator, c over its core, d UTF-8
  kEnum,    // raw enum trie node a
  kEnd,     // end-of-generation only
  kDone,    // ended
};

struct Cursor {
  Phase phase = Phase::kBlanks;
  uint8_t type = 0;  // kv: the value type chosen by kValueType/kIsString (TypeBits; 0: none)
  // Auto mode, anchored on an opening text followed by a bare name (pythonic's "[" f(…)):
  // until the first call's arguments begin, a byte off the call makes the answer plain text.
  uint8_t tentative = 0;
  uint16_t calls = 0;
  uint32_t op = 0;
  uint32_t tool = kNone;
  uint32_t param = kNone;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
  uint32_t d = 0;
  uint32_t hole = kNone;
  uint64_t used = 0;
  uint32_t marker = 0;  // kRaw: the state of Grammar::marker_next over the value's bytes
};

// Python-keyword arguments (f(a="x", n=True)) are key-value arguments whose values are JSON with
// Python's keywords (GrammarOptions::python_literals). Where a JSON string and a Python string
// literal read differently, the string is refused: the escape \/ (Python keeps the backslash)
// and \u escapes of surrogates (Python keeps the lone surrogate; a pair is not joined). A
// small lexer over the bytes of each value follows strings and escapes for that, its state in
// the cursor (Cursor::b of a kJson phase).
enum PyEscape : uint32_t {
  kPyOutside,    // not in a string
  kPyString,     // in a string
  kPyBackslash,  // after a backslash
  kPyU,          // after \u
  kPyUD,         // after \uD or \ud: a surrogate if the next digit is 8-F
};

// The state after `byte` from `state`; false for a byte that makes a refused escape.
inline bool PyEscapeStep(uint32_t& state, uint8_t byte) {
  switch (state) {
    case kPyOutside:
      if (byte == '"') state = kPyString;
      return true;
    case kPyString:
      if (byte == '"') state = kPyOutside;
      if (byte == '\\') state = kPyBackslash;
      return true;
    case kPyBackslash:
      if (byte == '/') return false;
      state = byte == 'u' ? kPyU : kPyString;
      return true;
    case kPyU:
      state = byte == 'd' || byte == 'D' ? kPyUD : kPyString;
      return true;
    default:  // kPyUD
      if ((byte >= '8' && byte <= '9') || (byte >= 'a' && byte <= 'f') ||
          (byte >= 'A' && byte <= 'F'))
        return false;
      state = kPyString;
      return true;
  }
}

struct Grammar {
  std::shared_ptr<const constrain::Vocabulary> vocabulary;
  std::shared_ptr<const TokenIndex> index;
  ToolCallOptions options;
  bool key_value = false;
  bool cdata = false;
  bool python = false;  // Python-keyword arguments: values are JSON with Python's keywords
  std::string quote;    // custom key-value arguments: the delimiter of string values
  std::vector<Op> ops;
  uint32_t block_op = 0;        // the block's first op (the open text)
  uint32_t call_op = 0;         // the call's first op
  uint32_t end_op = 0;          // kEnd
  uint32_t args_op = 0;         // the call's kArgs
  bool tentative_name = false;  // auto, anchored, the call opening with a bare name
  std::string lead;             // open + the call's leading text
  std::string trigger;          // auto: the start marker (empty: anchored)
  std::vector<uint32_t> kmp;    // failure function of `trigger`
  SmallTrie names;
  std::vector<Tool> tools;
  // Raw string values: tokens that are always safe inside one (no byte of the terminator's
  // first byte, well-formed UTF-8), and the tokens that must be stepped.
  std::vector<uint32_t> raw_safe;
  // The tokens (not special) that hold the terminator's first byte, its marker's first byte,
  // or (CDATA formats) '<' or '&': they must be stepped.
  std::vector<uint32_t> raw_candidates;
  // The special tokens that begin with a raw value's terminator (Gemma 4's quote `<|"|>` is
  // one token), or begin it and reach the point where it cannot be given up (Op::sealed): a raw
  // value may end with one, never hold one.
  std::vector<uint32_t> raw_special;
  // Key-value formats: markers a value must not hold, since the family's parser scans the text
  // for them (`</parameter>`, `<parameter=`, `</tool_call>`: the texts after the arguments
  // begin, without blanks, two bytes or longer). An automaton over them, its state in Cursor::c
  // of a kJson phase and Cursor::marker of a kRaw one (where the value's own terminator ends
  // it instead): the next state per byte, whether a state ends a marker, and the tokens holding
  // a whole marker.
  std::vector<std::array<uint16_t, 256>> marker_next;
  std::vector<uint8_t> marker_hit;
  std::vector<uint32_t> marker_tokens;
  std::string marker_key;  // the vocabulary and the markers, for the tables shared across grammars
  // The state after `bytes` from `state`; false when a marker ends on the way.
  bool MarkerStep(uint32_t& state, std::string_view bytes) const {
    for (const char ch : bytes) {
      state = marker_next[state][static_cast<uint8_t>(ch)];
      if (marker_hit[state] != 0) return false;
    }
    return true;
  }
  // For a value at a character boundary, at least its minimum length and far from its maximum,
  // which candidates are allowed depends only on the pending matches of the terminator and its
  // marker and on whether the value has begun and ends on a blank. Per such class: the
  // candidates that stay in the value and are allowed, and those that may leave it (stepped
  // each time, since what follows the value depends on the call). Filled on first use and
  // kept for the process (src/logits/tool_calls.cc).
  struct RawClass {
    std::vector<uint32_t> allowed;  // mask
    std::vector<uint32_t> leaving;  // token ids
  };
  // The classes of this grammar's vocabulary, terminator and CDATA rule: shared by every
  // grammar with the same three (kept for the process), keyed by the class's state bits.
  struct RawClasses {
    std::mutex mutex;
    std::map<uint64_t, std::shared_ptr<const RawClass>> by_state;
  };
  std::shared_ptr<RawClasses> raw_classes;
  // Free text (kFree) allows the same tokens at every step with the same trigger match, so the
  // mask of each match length is computed once.
  mutable std::mutex free_mutex;
  mutable std::vector<std::shared_ptr<const std::vector<uint32_t>>> free_masks;

  // Branch alternatives of op `op` for `cursor`: text and the op entered after it.
  struct Alternative {
    std::string text;
    uint32_t target = kNone;
  };
  std::vector<Alternative> continue_alt;    // per branch op: another call / another argument
  std::vector<Alternative> continue_first;  // per kMembers op: the first argument
  std::vector<Alternative> finish_alt;      // per branch op: close / end of arguments

  // JSON grammars of argument objects and values, compiled on first use: key (tool, param,
  // type bits), param kNone for the arguments object.
  mutable std::mutex mutex;
  mutable std::map<uint64_t, std::shared_ptr<const constrain::CompiledGrammar>> grammars;
  std::shared_ptr<const constrain::CompiledGrammar> JsonGrammar(uint32_t tool, uint32_t param,
                                                                uint8_t types) const;
};

// One undoable change to the holes.
struct JournalEntry {
  uint32_t hole;
  bool created;  // true: the hole was created (undo removes it); false: one matcher step
};

// Follows bytes from a cursor over the grammar, changing the holes through the journal.
class Walker {
 public:
  Walker(const Grammar& grammar, std::vector<constrain::Matcher>& holes,
         std::vector<JournalEntry>& journal)
      : g_(grammar), holes_(holes), journal_(journal) {}

  // Enters op `op` (skipping empty texts) with the rest of `cursor` kept.
  bool Enter(Cursor& cursor, uint32_t op);
  // Feeds one byte; false (cursor unspecified) when refused. `literal` is cleared when the
  // byte went anywhere but forced text, free text or a raw value's terminator (special tokens
  // need it kept; see SpecialFits).
  bool Feed(Cursor& cursor, uint8_t byte, bool& literal);
  bool FeedBytes(Cursor& cursor, std::string_view bytes, bool& literal);
  bool CanEnd(const Cursor& cursor) const;
  // Undoes journal entries down to `mark`.
  void Undo(size_t mark);
  // The cursor after the hole of `cursor` (a kJson cursor) is complete.
  bool Exit(Cursor& cursor);
  // The opening position of the block after `consumed` bytes of its leading text.
  bool EnterLead(Cursor& cursor, size_t consumed);

 private:
  bool EnterBranch(Cursor& cursor, uint32_t op);
  bool FeedBranch(Cursor& cursor, uint8_t byte, bool& literal);
  bool FeedTrie(Cursor& cursor, uint8_t byte, bool& literal);
  bool FeedRaw(Cursor& cursor, uint8_t byte, bool& literal);
  bool FeedLead(Cursor& cursor, uint8_t byte, bool& literal);
  bool FeedTentative(Cursor& cursor, uint8_t byte, bool& literal);
  bool EnterValue(Cursor& cursor);
  bool OpenHole(Cursor& cursor, uint32_t param, uint8_t types);
  // Alternative `which` (1: go on, 2: finish) of branch op `op` for `cursor`.
  const Grammar::Alternative& Alternative(const Cursor& cursor, uint32_t op, int which) const;
  void TakeAlternative(Cursor& cursor, int which);
  std::string_view DynamicText(const Cursor& cursor, char* buffer) const;

  const Grammar& g_;
  std::vector<constrain::Matcher>& holes_;
  std::vector<JournalEntry>& journal_;
};

// Whether a special token whose bytes took `cursor` to where it is, `literal` kept, may be
// sampled: its bytes went to forced or free text, or completed a raw value's terminator, or
// took its pending match past the point where it can no longer be given up (Op::sealed). A
// token that stops inside a raw value otherwise, after its first byte, could put a special
// token in the value.
inline bool SpecialFits(const Grammar& g, bool literal, const Cursor& cursor) {
  return literal && (cursor.phase != Phase::kRaw || cursor.a == 0 ||
                     cursor.b >= g.ops[g.ops[cursor.op].next].sealed);
}

Expected<std::unique_ptr<Grammar>> CompileGrammar(
    const parse::CallGrammar& family, std::vector<parse::ToolSpec> tools,
    std::shared_ptr<const constrain::Vocabulary> vocabulary, ToolCallOptions options);

}  // namespace crux::logits::tools
