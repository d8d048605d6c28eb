// The grammar of one tool-call family, as data: the literal markers a model writes around its
// calls and the slots in between (the function name, an id, the arguments), with the encoding
// of each slot. It is declared once per family, beside the family's parser, and it is what
// the rest of crux reads about the format:
// * RenderToolCalls writes conforming text from it (round-trip tests and benchmarks parse that
//   text back into the same calls);
// * FormatLine writes the format line the documentation shows;
// * constrained decoding builds its token grammar from the same parts.
//
// A block of calls is  open  call (separator call)*  close,  and a call is the sequence of
// `call` parts. The kArguments slot is the arguments object written in `args` encoding; for
// kKeyValue each argument is the sequence of `argument` parts, joined by
// `argument_separator`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/result.h"

namespace crux::parse {

struct CallGrammar {
  enum class Slot : uint8_t {
    kText,        // the part's text, verbatim
    kName,        // the function name, bare ([A-Za-z0-9_.-]+ for the tools people declare)
    kNameString,  // the function name as a JSON string literal, quotes included
    kId,          // a call id the model writes itself (10 lowercase alphanumerics)
    kIndex,       // the call's position in the block, from 0
    kIndex1,      // the call's position in the block, from 1
    kArguments,   // the arguments, in `args` encoding
    kKey,         // kKeyValue: the parameter name
    kKeyAgain,    // kKeyValue: the parameter name again (a closing tag that repeats it)
    kValue,       // kKeyValue: the value (strings verbatim, others in `values` style)
    kValueType,   // kKeyValue: the value's JSON type: string, number, boolean, null, object, array
    kIsString,    // kKeyValue: "true" when the value is a string, else "false"
  };
  struct Part {
    Slot slot = Slot::kText;
    std::string_view text = {};
  };
  enum class Args : uint8_t {
    kJsonObject,      // {"k": "v", "n": 1}
    kKeyValue,        // one `argument` sequence per member
    kPythonKeywords,  // k='v', n=1 (Python literals)
    kCustom,          // written by `write_arguments` (irregular value syntaxes)
  };
  // How kKeyValue writes values that are not strings.
  enum class Values : uint8_t {
    kJson,           // tojson: {"k": true}
    kPythonScalars,  // objects and arrays as JSON, scalars as Python str(): True, 3
    kPython,         // Python repr(): {'k': True}
  };

  std::string_view open = {};       // before the first call
  std::string_view close = {};      // after the last call
  std::string_view separator = {};  // between calls
  std::vector<Part> call;
  Args args = Args::kJsonObject;
  std::vector<Part> argument = {};  // kKeyValue (and kCustom's constrained form)
  std::string_view argument_separator = {};
  Values values = Values::kJson;
  // kKeyValue: string values holding '<', '&' or a newline are written as <![CDATA[…]]>.
  bool cdata_strings = false;
  // kCustom: appends the arguments object `json` (valid JSON text) in the family's syntax.
  void (*write_arguments)(std::string& out, std::string_view json) = nullptr;
  // kCustom: a key-value form of the arguments that the family's parser reads, which a
  // constrained decoder writes (none where `argument` is empty): the `argument` parts joined by
  // `argument_separator` between `arguments_open` and `arguments_close`; string values between
  // two `string_quote`s (never holding it) or, without a quote, raw up to the text after the
  // value; other values JSON.
  std::string_view arguments_open = {};
  std::string_view arguments_close = {};
  std::string_view string_quote = {};
  // Key-value forms: a text the parser cuts a value at wherever it appears (MiniMax-M3's
  // namespace token, which opens every tag), so a constrained value never holds it.
  std::string_view value_stop = {};
  // Key-value forms: the parser reads the value of a parameter without one declared type as a
  // number, true or false (null where the parameter allows null) and anything else as a string,
  // so a constrained value of such a parameter is one of those scalars (MiniMax-M3).
  bool untyped_scalars = false;
  // kJsonObject: the parser takes the arguments as the text up to the markers after them (cwm's
  // `</tool>`) rather than reading them as JSON, so a constrained decoder keeps those markers
  // out of them.
  bool arguments_end_at_marker = false;
};

// Writes `calls` (arguments: JSON objects) as one block in `grammar`. Arguments are walked as
// text, so any width or depth is written in linear time.
std::string RenderToolCalls(const CallGrammar& grammar, const std::vector<ToolCall>& calls);

// The format line of the documentation: one call `f` with a string argument `k` = `v`
// (`{"k": "v"}`), written in `grammar`.
std::string FormatLine(const CallGrammar& grammar);

// Literal markers of `grammar`, in order of appearance, without duplicates (what a constrained
// decoder forces and what a scanner looks for).
std::vector<std::string_view> GrammarMarkers(const CallGrammar& grammar);

}  // namespace crux::parse
