#include "crux/parse/chain.h"

#include "crux/parse/reasoning/registry.h"
#include "crux/parse/tools/registry.h"

namespace crux::parse {

const ToolParserInfo* FindChannelFormat(std::string_view reasoning_parser,
                                        std::string_view tool_parser) {
  if (!tool_parser.empty()) {
    const ToolParserInfo* tools = FindParserInfo(ToolParsers(), tool_parser);
    if (tools != nullptr && tools->channel) return tools;
  }
  if (!reasoning_parser.empty()) {
    const ReasoningParserInfo* reasoning = FindParserInfo(ReasoningParsers(), reasoning_parser);
    if (reasoning != nullptr && !reasoning->channel_parser.empty()) {
      return FindParserInfo(ToolParsers(), reasoning->channel_parser);
    }
  }
  return nullptr;
}

Expected<std::unique_ptr<OutputParser>> CreateOutputParser(const ParserChainOptions& options) {
  const std::string& reasoning_name = options.reasoning_parser;
  const std::string& tool_name = options.tool_parser;
  if (const ToolParserInfo* channel = FindChannelFormat(reasoning_name, tool_name)) {
    // The other name is still checked, though the channel format's parser runs instead.
    if (!reasoning_name.empty() && FindParserInfo(ReasoningParsers(), reasoning_name) == nullptr) {
      return CreateReasoningParser(reasoning_name).error();
    }
    if (!tool_name.empty() && FindParserInfo(ToolParsers(), tool_name) == nullptr) {
      return CreateToolParser(tool_name).error();
    }
    return std::make_unique<OutputParser>(nullptr, channel->create(options.tools));
  }
  std::unique_ptr<ReasoningParser> reasoning;
  if (!reasoning_name.empty()) {
    auto created = CreateReasoningParser(reasoning_name, options.reasoning);
    if (!created.ok()) return created.error();
    reasoning = std::move(*created);
  }
  std::unique_ptr<ToolParser> tools;
  std::vector<ToolCallBlock> promoted_blocks;
  if (!tool_name.empty()) {
    auto created = CreateToolParser(tool_name, options.tools);
    if (!created.ok()) return created.error();
    tools = std::move(*created);
    const ToolParserInfo* info = FindParserInfo(ToolParsers(), tool_name);
    if (options.tool_call_promotion && info != nullptr) promoted_blocks = info->promoted_blocks;
  }
  return std::make_unique<OutputParser>(std::move(reasoning), std::move(tools),
                                        std::move(promoted_blocks));
}

}  // namespace crux::parse
