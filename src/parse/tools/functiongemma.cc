// functiongemma: Google FunctionGemma (functiongemma-270m-it, Gemma 3 based; read from vLLM's
// functiongemma tool parser, its tests and its chat template
// examples/tool_chat_template_functiongemma.jinja). Gemma 4's call syntax with other tokens:
//   <start_function_call>call:get_weather{location:<escape>London<escape>,days:3}
//   <end_function_call>
// (no line break in real output). Several calls are consecutive blocks. The arguments are
// Gemma literals — bare keys, strings between `<escape>` delimiters, bare numbers and
// true/false/null, nested {} and [] — decoded by gemma4's value decoder (gemma_args.h) with
// `<escape>` as the quote, inside the tag engine's container (a custom call decoder for
// `call:NAME{…}`). A malformed call is returned as content with its block; a block cut off
// after complete arguments is a call.
// Deviations from the reference: text after the calls is content (the reference drops it);
// a quoted value is always a string (the reference json-decodes `<escape>42<escape>` to 42;
// the template quotes only strings); pairs must be separated by ',' as the template writes
// them (the reference's regex also reads pairs without one); arguments cut off before their
// closing brace are content, not a call.
#include <memory>
#include <string>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/gemma_args.h"
#include "parse/tools/other_common.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr std::string_view kBlockOpen = "<start_function_call>";
constexpr std::string_view kBlockClose = "<end_function_call>";
constexpr std::string_view kQuote = "<escape>";

const text::MarkerSet& QuoteMarker() {
  static const text::MarkerSet set{kQuote};
  return set;
}

// `NAME{…}` after `call:`: the name up to '{', then the Gemma literal dict as the arguments.
// The call begins at the '{'.
class FunctionGemmaDecoder final : public CallDecoder {
 public:
  void Restart() override {
    name_.clear();
    in_args_ = false;
    begun_ = false;
  }

  Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) override {
    consumed = 0;
    if (!in_args_) {
      while (consumed < text.size() && IsNameByte(text[consumed]) &&
             name_.size() < kMaxNameLength) {
        name_.push_back(text[consumed++]);
      }
      if (consumed == text.size()) return Status::kNeedMore;
      if (text[consumed] != '{' || name_.empty()) return Status::kError;
      args_.Reset();
      in_args_ = true;
    }
    size_t n = 0;
    scratch_.clear();
    const GemmaArgs::Status status = args_.Feed(text.substr(consumed), at_end, n, scratch_);
    consumed += n;
    if (!scratch_.empty()) {  // before the error, so the call begins at the same byte always
      if (!begun_) sink.BeginCall(name_);
      begun_ = true;
      sink.Args(scratch_);
    }
    if (status == GemmaArgs::Status::kDone) sink.EndCall();
    return status;
  }

 private:
  std::string name_;
  bool in_args_ = false;
  bool begun_ = false;
  std::string scratch_;
  GemmaArgs args_{QuoteMarker()};
};

std::unique_ptr<CallDecoder> MakeDecoder(const ToolParserOptions& /*options*/) {
  return std::make_unique<FunctionGemmaDecoder>();
}

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = kBlockOpen,
      .container_close = kBlockClose,
      .custom_start = "call:",
      .custom = MakeDecoder,
  });
  return family;
}

// The arguments object in FunctionGemma literals: {k:<escape>v<escape>,n:1}.
void AppendArguments(std::string& out, std::string_view json) {
  AppendGemmaLiteral<kQuote>(out, json);
}

}  // namespace

std::unique_ptr<ToolParser> MakeFunctionGemmaParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& FunctionGemmaToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<start_function_call>call:"},
               {S::kName},
               {S::kArguments},
               {S::kText, "<end_function_call>"}},
      .args = CallGrammar::Args::kCustom,
      .argument = {{S::kKey}, {S::kText, ":"}, {S::kValue}},
      .argument_separator = ",",
      .write_arguments = tags::AppendArguments,
      .arguments_open = "{",
      .arguments_close = "}",
      .string_quote = tags::kQuote,
  };
  static const ToolParserInfo format{
      .name = "functiongemma",
      .aliases = {},
      .models = "Google FunctionGemma",
      .format = "<start_function_call>call:f{k:<escape>v<escape>,n:1}<end_function_call>",
      .create = tags::MakeFunctionGemmaParser,
      .grammar = &grammar,
      .detect_markers = {"<start_function_call>"},
  };
  return format;
}

}  // namespace crux::parse::tools
