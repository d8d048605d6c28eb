// A tool-call block as GBNF, for an upstream engine to constrain decoding with (see
// crux/constrain/gbnf.h): the GBNF counterpart of ToolCallGrammar (crux/logits/tool_calls.h),
// read from the same family declaration (parse::CallGrammar) and meaning the same thing.
//
// The block is  open call (separator call)* close  (one call when not parallel). Each call is
// one alternative per declared tool — its call parts with that tool's name in the name slots
// and that tool's arguments in the arguments slot — so a name always comes with its own
// arguments:
// * kName: the bare name; kNameString: the name as a JSON string; kId: 1 to 32 of [a-z0-9];
//   kIndex / kIndex1: the position's digits when one call is allowed, else any digits
//   (loosened: a grammar does not count);
// * kJsonObject arguments: the tool's parameter schema (an object), as GbnfWriter::AddSchema;
// * kKeyValue arguments: the declared parameters in schema order, each optional unless
//   required, as the `argument` parts joined by `argument_separator`. A value typed by a
//   kValueType / kIsString word follows that word's type. String parameters are raw text up to
//   the text after the value: never holding that text's marker, neither starting nor ending
//   with a blank (the families' parsers trim), without '<' or '&' and with <![CDATA[…]]> as an
//   alternative in CDATA formats, or one of an `enum`'s strings; minLength/maxLength/pattern of
//   raw strings are loosened. Other values are JSON by the parameter's schema (kPythonScalars
//   also True/False/None where the schema admits true/false/null); kPython values are loosened
//   to raw text.
// Unlike the token processor, key-value arguments come in schema order, not any order.
// Loosened parts are recorded in the writer's loosened(), each naming the tool.
//
// Thread-safety: as GbnfWriter (single-threaded). Cost: linear in the tools' schemas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/gbnf.h"
#include "crux/parse/call_grammar.h"
#include "crux/parse/tool_spec.h"

namespace crux::logits {

struct ToolCallGbnfOptions {
  // Non-empty: only this tool may be called (tool_choice naming a function).
  std::string forced_tool;
  // parallel_tool_calls: false allows exactly one call.
  bool parallel = true;
  // JSON arguments and values: blanks in a row between tokens, strict objects.
  uint32_t max_whitespace = 20;
  bool strict_objects = false;
};

// Adds the rules of a whole call block in `grammar`'s format to `writer`; returns the block's
// rule name. Errors: kInvalidArgument (no callable tool, an unknown forced tool, a tool without
// a name), the schema compiler's errors naming the tool, kUnsupported (Python-keyword or custom
// arguments, a key-value format with no text after a value, a required parameter a key-value
// format cannot name).
Expected<std::string> AddToolCallBlock(constrain::GbnfWriter& writer,
                                       const parse::CallGrammar& grammar,
                                       const std::vector<parse::ToolSpec>& tools,
                                       const ToolCallGbnfOptions& options = {});

}  // namespace crux::logits
