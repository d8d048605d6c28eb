// Factories of the reasoning families with a parser of their own; the registry table in
// registry.cc lists them (the declared families run the think engine, think.h).
#pragma once

#include <memory>

#include "crux/parse/parser.h"

namespace crux::parse {

std::unique_ptr<ReasoningParser> MakeGemma4Parser(const ReasoningOptions& options);
// Channel formats (channel.cc): harmony and gpt_oss share one factory.
std::unique_ptr<ReasoningParser> MakeHarmonyParser(const ReasoningOptions& options);
std::unique_ptr<ReasoningParser> MakeMuseGlimmerReasoningParser(const ReasoningOptions& options);

}  // namespace crux::parse
