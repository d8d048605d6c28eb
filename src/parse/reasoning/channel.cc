// The reasoning rows of the channel formats (harmony, gpt_oss, muse_glimmer). Their framing
// carries reasoning, answer and calls in one message sequence, read by one parser: the tool
// parser registered under the same name (src/parse/tools/harmony.cc, muse_glimmer.cc). These
// rows run that parser, so a reasoning parser of a channel format emits tool-call events too
// (untyped: no tools are known here). A parser chain does not use them: CreateOutputParser
// runs the format's parser directly, with the request's tools (crux/parse/chain.h).
//
// harmony vs gpt_oss: the reference has a strict `harmony` (an analysis block needs `<|end|>`,
// the answer needs `<|return|>`, text without channels yields nothing) and a lenient `gpt_oss`.
// Both names run the lenient parser: the strict rules drop model output that a truncated or
// unterminated message still carries, and the reference server falls back to the raw text
// where strict `harmony` yields nothing, which is what the lenient parser returns as content.
#include <memory>
#include <string_view>

#include "crux/base/check.h"
#include "crux/parse/tools/registry.h"
#include "parse/reasoning/families.h"

namespace crux::parse {
namespace {

class ChannelFormatParser final : public ReasoningParser {
 public:
  explicit ChannelFormatParser(std::unique_ptr<ToolParser> format) : format_(std::move(format)) {}

  void Feed(std::string_view delta, EventSink& out) override { format_->Feed(delta, out); }
  void Finish(EventSink& out) override { format_->Finish(out); }
  void Reset() override { format_->Reset(); }

 private:
  std::unique_ptr<ToolParser> format_;
};

std::unique_ptr<ReasoningParser> MakeChannelFormatParser(std::string_view tool_parser,
                                                         const ReasoningOptions& options) {
  ToolParserOptions tools;
  tools.id_seed = options.id_seed;
  auto created = CreateToolParser(tool_parser, tools);
  CRUX_CHECK(created.ok());
  return std::make_unique<ChannelFormatParser>(std::move(*created));
}

}  // namespace

std::unique_ptr<ReasoningParser> MakeHarmonyParser(const ReasoningOptions& options) {
  return MakeChannelFormatParser("harmony", options);
}
std::unique_ptr<ReasoningParser> MakeMuseGlimmerReasoningParser(const ReasoningOptions& options) {
  return MakeChannelFormatParser("muse_glimmer", options);
}

}  // namespace crux::parse
