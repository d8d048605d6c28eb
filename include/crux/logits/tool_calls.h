// Constrained tool calls: token masks that make the model write a well-formed call block in a
// family's own format, naming a declared tool, with arguments that obey that tool's parameter
// schema. One mechanism for every family: the grammar is built from the family's
// parse::CallGrammar declaration (markers, slots, argument encoding), never from per-family
// code.
//
// How a call block is followed, byte by byte:
// * literal markers (open, close, separator, the call's text parts) are forced; several
//   continuations (another call or the close; another argument or the end of the arguments)
//   are followed side by side until a byte decides;
// * the function name is one of the tools' names (a byte trie; a named tool_choice allows one);
// * the call index and call id slots are written as the renderer writes them (index: the
//   position in the block; id: 1 to 32 lowercase letters and digits);
// * JSON arguments (kJsonObject) and the non-string values of key-value arguments are held to
//   the schema by the constrain/ matcher (compiled with document_whitespace off, so the value
//   ends with its last byte); string values of key-value arguments are written raw until the
//   argument's closing marker, never containing it, within minLength/maxLength, or as one of
//   an `enum`'s strings. Key-value arguments are the declared parameters, each at most once,
//   every required one present.
// * Python keyword arguments (kPythonKeywords: pythonic, lfm2, olmo3) are key-value arguments
//   `k=v` joined by ", ", each value JSON under the parameter's schema with Python's True,
//   False and None, strings in double quotes without the escapes Python reads differently
//   (`\/`, `\u` of a surrogate). Parameter names must be Python identifiers.
//
// Modes: kRequired (tool_choice "required" or a named tool) — the answer is the call block,
// after at most a few blanks. kAuto — free text until the family's trigger, then the block;
// the trigger is the family's start marker where its block opens with one (`<tool_call>`,
// `[TOOL_CALLS]`, …). A family whose block opens with no marker (Llama 3.x bare JSON, xLAM,
// pythonic lists) is anchored: the answer is a call exactly when it starts (after blanks)
// with the block's opening text (`{"name": `), and free text otherwise; a text that starts
// content. Where the opening text is followed by a bare name (pythonic's `[`), the answer
// becomes a call only once it reaches the arguments (`[get_weather(`): `[1]` or a markdown link
// stays free text. After the block only end-of-generation is allowed.
//
// * Gemma literal arguments (kCustom with a declared key-value form: gemma4, functiongemma) are
//   `{k:<|"|>v<|"|>,n:1}`: bare keys (JSON strings where a name cannot be bare), string values
//   raw between the family's quotes (a special quote token may open and close them), strings
//   held to a pattern, a format or a combination of schemas and every other value JSON.
//
// A custom syntax without a declared form (minimax_m3) is not constrained: Compile returns
// kUnsupported.
//
// Thread-safety: a ToolCallGrammar is immutable and may be shared; a processor belongs to one
// sequence. Cost: Compile builds the skeleton and the name trie (microseconds per tool) and
// checks every tool's schema; a tool's argument grammar is compiled the first time the model
// names that tool, and kept with the grammar. Per step: a literal position walks only
// the vocabulary subtrees that spell the literal; a JSON position costs the matcher's mask
// plus a check of the tokens that can finish the value and continue past it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "crux/base/error.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/vocab.h"
#include "crux/logits/processor.h"
#include "crux/parse/call_grammar.h"
#include "crux/parse/tool_spec.h"

namespace crux::logits {

enum class ToolChoiceMode : uint8_t { kAuto, kRequired };

struct ToolCallOptions {
  ToolChoiceMode mode = ToolChoiceMode::kRequired;
  // Non-empty: only this tool may be called (tool_choice naming a function).
  std::string forced_tool;
  // parallel_tool_calls: false allows exactly one call.
  bool parallel = true;
  // The family's start markers (ToolParserInfo::detect_markers): the auto-mode trigger is the
  // longest one that opens the block.
  std::vector<std::string> start_markers;
  // Blanks allowed before the block (kRequired) or before an anchored block (kAuto).
  uint32_t max_leading_blanks = 4;
  // JSON arguments and values: whitespace inside objects and arrays, strict objects.
  // document_whitespace is always off.
  constrain::GrammarOptions json = {};
};

class ToolCallGrammar {
 public:
  // Errors: kInvalidArgument (no tools, an unknown forced tool, a tool without a name, a
  // key-value tool with more than 64 parameters), the schema compiler's errors naming the tool
  // (kParse, kInvalidArgument, kUnsupported, kLimit), kUnsupported for a family the mechanism
  // cannot follow (custom arguments without a declared form, a Python keyword argument whose
  // parameter name is not an identifier, a tool name that Python or Gemma call syntax cannot
  // hold, or markers that cannot be told apart).
  static Expected<std::shared_ptr<const ToolCallGrammar>> Compile(
      const parse::CallGrammar& family, std::vector<parse::ToolSpec> tools,
      std::shared_ptr<const constrain::Vocabulary> vocabulary, ToolCallOptions options = {});

  // True when every call the mask allows has arguments that validate against its tool's
  // schema: false where a raw string value cannot enforce what its schema asks (a pattern, a
  // format, a combination of schemas) or the schema compiler lists a keyword as not enforced.
  bool exact() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit ToolCallGrammar(std::unique_ptr<Impl> impl);
  ~ToolCallGrammar();

 private:
  std::unique_ptr<Impl> impl_;
};

class ToolCallProcessor final : public LogitsProcessor {
 public:
  explicit ToolCallProcessor(std::shared_ptr<const ToolCallGrammar> grammar);
  ToolCallProcessor(const ToolCallProcessor& other);
  ~ToolCallProcessor() override;

  Stage stage() const override { return Stage::kGrammar; }
  std::string_view name() const override { return "tool_calls"; }
  bool Accept(uint32_t token) override;
  bool Rollback(size_t count) override;
  void Reset() override;
  std::unique_ptr<LogitsProcessor> Clone() const override;
  size_t accepted() const override;
  bool FillMask(std::span<uint32_t> mask) override;

  // True once a call block has started (in kAuto: the trigger was written).
  bool in_block() const;
  // Bytes accepted so far (what the family's parser will read).
  const std::string& text() const;
  const ToolCallGrammar& grammar() const { return *grammar_; }

  struct State;

 private:
  std::shared_ptr<const ToolCallGrammar> grammar_;
  std::unique_ptr<State> state_;
};

}  // namespace crux::logits
