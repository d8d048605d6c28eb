// The parser chain of one stream, built from the parser names a user configured (flags,
// config or request fields).
//
// Most families split the work: a reasoning parser separates reasoning from the answer, and a
// tool parser reads calls out of the answer. Channel formats (Harmony for gpt-oss, Muse
// Glimmer's ATEM) cannot be split that way: one framing carries every message — reasoning,
// answer and calls — so the format's one parser (the tool parser row flagged `channel`) emits
// reasoning, content and tool-call events. It runs whether the reasoning name, the tool name
// or both name the format, and the text is parsed once: no reasoning parser runs before it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "crux/base/error.h"
#include "crux/parse/output_parser.h"
#include "crux/parse/parser.h"
#include "crux/parse/registry.h"

namespace crux::parse {

struct ParserChainOptions {
  std::string reasoning_parser;  // name or alias; "" = no reasoning parser
  std::string tool_parser;       // name or alias ("auto" included); "" = no tool parser
  ReasoningOptions reasoning;
  ToolParserOptions tools;  // also given to a channel format's parser, whichever name chose it
  // Closed tool-call blocks the tool format declares (ToolParserInfo::promoted_blocks) found
  // inside reasoning are promoted to the answer, where the tool parser reads them.
  bool tool_call_promotion = true;
};

// The channel format that either name selects, or nullptr. The tool parser's name decides when
// both are channel formats; unknown names select nothing.
const ToolParserInfo* FindChannelFormat(std::string_view reasoning_parser,
                                        std::string_view tool_parser);

// The chain for `options`: the channel format's parser alone when either name selects one,
// else the named reasoning and tool parsers (either may be absent). An unknown name is
// kNotFound with the registry's "unknown … parser 'x'; available: …" message.
Expected<std::unique_ptr<OutputParser>> CreateOutputParser(const ParserChainOptions& options);

}  // namespace crux::parse
