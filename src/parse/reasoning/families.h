// Factories of the reasoning families; the registry table in registry.cc lists them.
#pragma once

#include <memory>

#include "crux/parse/parser.h"

namespace crux::parse {

std::unique_ptr<ReasoningParser> MakeThinkParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeQwen3Parser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeDeepSeekR1Parser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeGlm4Parser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeMistralParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakePoolsideV1Parser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeStep3p5Parser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeCommandRParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeApertusParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeGemma4Parser(const ReasoningOptions& options);
// Channel formats (channel.cc): harmony and gpt_oss share one factory.
std::unique_ptr<ReasoningParser> MakeHarmonyParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeMuseGlimmerReasoningParser(const ReasoningOptions& options);

}  // namespace crux::parse
