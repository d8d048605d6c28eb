// GBNF, llama.cpp's grammar format, written from crux's own representations: what crux hands
// an upstream engine to constrain its decoding (llama-server's `grammar`, vLLM's
// `structured_outputs.grammar` — xgrammar reads GBNF as its EBNF — and SGLang's `ebnf`).
//
// A GbnfWriter accumulates named rules; Text() writes `root ::= …` followed by them. Only the
// common subset of the three readers is written: quoted literals, character classes, groups,
// `?` `*` `+`, `{m,n}` (alone in its rule, never two in one sequence: llama.cpp caps the
// product of a sequence's repetition counts at 2000), rule names of [a-z0-9-] that start with a
// letter.
//
// GBNF matches Unicode code points, so literals and classes are UTF-8 text; JSON values follow
// RFC 8259 (strings: no raw control characters, escapes incl. surrogate pairs, a high surrogate
// escape only before a low one, as crux's own matcher).
//
// A grammar admits a value in one spelling: keys unescaped, listed properties in schema order
// (extra members after them), integers without fraction, exponent or leading zeros, at most
// max_whitespace blanks in a row, none before or after the document. Exact: type, enum and
// const (each value checked against its whole schema with Validate), string lengths, integer
// bounds (digit patterns), a number's minimum of 0, items / prefixItems / minItems / maxItems,
// properties / required / additionalProperties (strict_objects as the matcher reads it),
// anyOf, oneOf whose branches have disjoint types, `$ref` (recursive rules), allOf of one
// member. Where a schema asks for more than a grammar of reasonable size can say, the grammar
// is loosened to a superset and the keyword is recorded in loosened() — pattern, format, other
// number bounds, oneOf's exclusivity, a second conjunct (allOf of several, keywords beside
// `$ref` or anyOf), patternProperties, propertyNames, min/maxProperties, unique keys where
// extra members may repeat a listed name, counts above max_repeat, and ir.not_enforced — so
// every valid value keeps a spelling the grammar admits.
//
// Thread-safety: a writer is single-threaded; the grammar text is a plain string. Cost: linear
// in the schema (each (node, types) pair becomes one rule, `$ref` cycles become recursive
// rules); text automata have one rule per marker code point.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

struct GbnfOptions {
  // Blanks ([ \t\n\r]) allowed in a row between JSON tokens; 0 writes compact JSON.
  uint32_t max_whitespace = 20;
  // Largest count written as `{m,n}` (string lengths, array sizes); a larger bound is loosened
  // (llama.cpp refuses counts above 2000).
  uint32_t max_repeat = 1000;
  // As GrammarOptions::strict_objects: an object schema that lists properties and says nothing
  // of additionalProperties is closed (OpenAI strict mode); false: open, as JSON Schema says.
  bool strict_objects = false;
  // Appended to each loosened() entry this call records (e.g. " (tool 'f')").
  std::string loosened_context;
};

// One value of a compiled schema to write rules for: node `node` (kNoNode: the root), and of
// its values only those of `types` (TypeBits).
struct GbnfValue {
  NodeId node = kNoNode;
  uint8_t types = kTypeAny;
};

// Text that ends on a marker, or avoids one (see GbnfWriter::AddText).
struct GbnfText {
  std::string_view marker = {};  // never inside the free text (not empty)
  // Written after the free text; the first occurrence of `marker` in text + end is the one
  // inside `end` (none when `end` has no marker).
  std::string_view end = {};
  std::string_view excluded = {};  // characters the free text never holds
  bool trimmed = false;  // the free text neither starts nor ends with a blank (text::IsSpace)
};

// One item of GbnfWriter::AddList.
struct GbnfItem {
  std::string rule;  // a rule name (or any GBNF sequence)
  bool required = false;
};

// What GbnfWriter::AddList made.
struct GbnfList {
  std::string rule;           // one or more items; "" when no item can be written
  bool can_be_empty = false;  // no item is required
};

class GbnfWriter {
 public:
  // Rule names this writer makes start with `prefix` ([a-z][a-z0-9-]* or empty; checked).
  explicit GbnfWriter(std::string prefix = "");

  // Rules for the JSON values `ir` admits (a JSON text, no blanks around it); returns the root
  // rule's name. ir.not_enforced and whatever the grammar loosens go to loosened().
  std::string AddSchema(const SchemaIr& ir, const GbnfOptions& options = {});
  // Rules for several values of one schema, sharing the rules of the subschemas they have in
  // common; one rule name per value, in order.
  std::vector<std::string> AddSchemaValues(const SchemaIr& ir, const std::vector<GbnfValue>& values,
                                           const GbnfOptions& options = {});
  // Any JSON value (options: max_whitespace only).
  std::string AddJsonValue(const GbnfOptions& options = {});
  // Free text followed by rule.end, as GbnfText says: a KMP automaton of the marker's code
  // points, one rule per state (and per blank/non-blank last character when trimmed). Rules
  // are shared between equal requests.
  std::string AddText(const GbnfText& rule);
  // Any text that contains `marker` exactly once, at its end.
  std::string AddTextUntil(std::string_view marker);
  // Any text, possibly empty, that does not contain `marker`.
  std::string AddTextWithout(std::string_view marker);
  // Items in order, each optional unless required, joined by `separator` (a GBNF sequence such
  // as a literal; may be empty), then any number of `extra` (a rule name; "" for none): the
  // members of an object or the arguments of a call, in O(n) rules.
  GbnfList AddList(const std::vector<GbnfItem>& items, std::string_view separator,
                   std::string_view extra = "");
  // A rule `name ::= body` (name must be new; not checked against the grammar's syntax).
  void AddRule(std::string name, std::string body);
  // A new rule name: prefix + hint, made unique with a number.
  std::string NewName(std::string_view hint);
  // Records something the grammar admits beyond what was asked.
  void Loosen(std::string what);

  // `root ::= root_body`, then every rule in the order added.
  std::string Text(std::string_view root_body) const;

  // True when nothing was loosened: the grammar admits exactly the values asked for (in the
  // spelling described above).
  bool exact() const { return loosened_.empty(); }
  // What was loosened, each once, in order: keyword and JSON pointer ("pattern at
  // /properties/a"), or what a caller recorded.
  const std::vector<std::string>& loosened() const { return loosened_; }

  // `text` as a quoted GBNF literal: `"` `\` and control characters escaped, other UTF-8 kept.
  // GBNF cannot name bytes, so a byte that is not well-formed UTF-8 is written as the code point
  // of its value (\xHH).
  static std::string Literal(std::string_view text);
  // Items one after another (empty items and "" left out), and alternatives (a | b).
  static std::string Sequence(const std::vector<std::string>& items);
  static std::string Alternatives(const std::vector<std::string>& alternatives);

  const std::string& prefix() const { return prefix_; }

 private:
  class SchemaRules;  // one AddSchemaValues call (gbnf_schema.cc)
  enum class JsonNumberKind : uint8_t {
    kInteger,
    kNonNegativeInteger,
    kPositiveInteger,
    kNumber,
    kNonNegativeNumber,
  };

  // The rule named prefix + `hint`, made by `body` the first time it is asked for.
  std::string Shared(std::string_view hint, const std::function<std::string()>& body);
  std::string Whitespace(uint32_t max_whitespace);  // "" for 0
  std::string JsonChar();
  std::string JsonString();
  std::string JsonNumber(JsonNumberKind kind);
  std::string Never();  // matches nothing

  std::string prefix_;
  std::vector<std::pair<std::string, std::string>> rules_;  // name, body
  std::map<std::string, uint32_t, std::less<>> names_;      // name → next suffix for NewName
  std::map<std::string, std::string, std::less<>> shared_;  // key → shared rule's name
  std::vector<std::string> loosened_;
  uint32_t schemas_ = 0;  // AddSchemaValues calls so far (rule name spaces)
};

}  // namespace crux::constrain
