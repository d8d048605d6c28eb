#include "protocol/responses/response.h"

#include "crux/text/ids.h"
#include "protocol/encoders.h"
#include "protocol/errors.h"

namespace crux::protocol::internal {
namespace {

// An echoed JSON member the decoder stored as text ("" = `fallback`).
Json Echo(const std::string& text, const Json& fallback) {
  if (text.empty()) return fallback;
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? fallback : value;
}

Json OptionalNumber(const std::optional<double>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

std::string ItemId(std::string_view prefix, text::IdGenerator& ids) {
  return std::string(prefix) + ids.NextHex(32);
}

Json PartJson(const OutputItem& item, std::string_view text) {
  if (item.type == OutputItem::Type::kReasoning && item.summary) {
    return {{"type", "summary_text"}, {"text", text}};
  }
  if (item.type == OutputItem::Type::kReasoning) {
    return {{"type", "reasoning_text"}, {"text", text}};
  }
  return {{"type", "output_text"},
          {"annotations", Json::array()},
          {"logprobs", Json::array()},
          {"text", text}};
}

Json ItemJson(const OutputItem& item, bool with_parts) {
  Json content = Json::array();
  if (with_parts) content.push_back(PartJson(item, item.text));
  switch (item.type) {
    case OutputItem::Type::kReasoning: {
      Json summary = Json::array();
      if (item.summary) std::swap(summary, content);
      return {{"id", item.id},
              {"type", "reasoning"},
              {"status", item.status},
              {"summary", std::move(summary)},
              {"content", std::move(content)}};
    }
    case OutputItem::Type::kMessage:
      return {{"id", item.id},
              {"type", "message"},
              {"status", item.status},
              {"role", "assistant"},
              {"content", std::move(content)}};
    case OutputItem::Type::kMcpCall: {
      // Before it has run (output_item.added): no output yet.
      const bool done = with_parts;
      return {{"id", item.id},
              {"type", "mcp_call"},
              {"status", item.status},
              {"server_label", item.server},
              {"name", item.name},
              {"arguments", item.arguments},
              {"output", done && !item.is_error ? Json(item.output) : Json(nullptr)},
              {"error", done && item.is_error ? Json(item.output) : Json(nullptr)}};
    }
    case OutputItem::Type::kFunctionCall:
      break;
  }
  return {{"id", item.id},           {"type", "function_call"},
          {"status", item.status},   {"arguments", item.arguments},
          {"call_id", item.call_id}, {"name", item.name}};
}

OutputItem McpCallItem(const ExecutedToolCall& call, std::string id) {
  OutputItem item;
  item.type = OutputItem::Type::kMcpCall;
  item.id = std::move(id);
  item.server = call.server;
  item.name = call.tool;
  item.arguments = call.arguments;
  item.output = call.output;
  item.is_error = call.is_error;
  return item;
}

Json BaseResponse(const ChatRequest& request, const ResponseMeta& meta) {
  Json r = Json::object();
  r["id"] = meta.id;
  r["object"] = "response";
  r["created_at"] = meta.created;
  r["status"] = "in_progress";
  r["background"] = false;
  r["error"] = nullptr;
  r["incomplete_details"] = nullptr;
  r["instructions"] = request.instructions.empty() ? Json(nullptr) : Json(request.instructions);
  r["max_output_tokens"] = request.max_tokens ? Json(*request.max_tokens) : Json(nullptr);
  r["max_tool_calls"] = nullptr;
  r["model"] = ResponseModel(request, meta);
  r["output"] = Json::array();
  r["parallel_tool_calls"] = request.parallel_tool_calls;
  r["previous_response_id"] =
      request.previous_response_id ? Json(*request.previous_response_id) : Json(nullptr);
  r["reasoning"] = {
      {"effort", request.reasoning_effort.empty() ? Json(nullptr) : Json(request.reasoning_effort)},
      {"summary",
       request.reasoning_summary.empty() ? Json(nullptr) : Json(request.reasoning_summary)}};
  r["store"] = request.store;
  r["temperature"] = OptionalNumber(request.temperature);
  r["text"] = Echo(request.text_format_json, {{"format", {{"type", "text"}}}});
  r["tool_choice"] = Echo(request.tool_choice_json, "auto");
  r["tools"] = Echo(request.tools_json, Json::array());
  r["top_p"] = OptionalNumber(request.top_p);
  r["truncation"] = request.truncation;
  r["usage"] = nullptr;
  r["user"] = request.user.empty() ? Json(nullptr) : Json(request.user);
  r["metadata"] = Echo(request.metadata_json, Json::object());
  r["output_text"] = "";
  return r;
}

Json UsageJson(const parse::Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens},
          {"input_tokens_details", {{"cached_tokens", usage.cached_tokens}}},
          {"output_tokens", usage.completion_tokens},
          {"output_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

void SetOutput(Json& response, const std::vector<OutputItem>& items) {
  Json output = Json::array();
  std::string output_text;
  for (const OutputItem& item : items) {
    const bool cancelled_call =
        item.type == OutputItem::Type::kFunctionCall && item.status == "incomplete";
    if (cancelled_call) continue;
    if (item.type == OutputItem::Type::kMessage) output_text += item.text;
    output.push_back(ItemJson(item));
  }
  response["output"] = std::move(output);
  response["output_text"] = std::move(output_text);
}

std::string EncodeResponsesBody(const ChatRequest& request, const ResponseMeta& meta,
                                const std::vector<ExecutedToolCall>& executed,
                                const parse::ParseResult& result,
                                const parse::Completion& completion) {
  text::IdGenerator ids(meta.id_seed);
  std::vector<OutputItem> items;
  auto add = [&](OutputItem::Type type, std::string_view prefix) -> OutputItem& {
    OutputItem& item = items.emplace_back();
    item.type = type;
    item.id = ItemId(prefix, ids);
    item.status = "completed";
    return item;
  };
  if (result.reasoning) {
    OutputItem& item = add(OutputItem::Type::kReasoning, "rs_");
    item.text = *result.reasoning;
    item.summary = !request.reasoning_summary.empty();
  }
  for (const ExecutedToolCall& call : executed) {
    OutputItem& item = items.emplace_back(McpCallItem(call, ItemId("mcp_", ids)));
    item.status = call.is_error ? "failed" : "completed";
  }
  if (result.content) add(OutputItem::Type::kMessage, "msg_").text = *result.content;
  for (const parse::ToolCall& call : result.tool_calls) {
    OutputItem& item = add(OutputItem::Type::kFunctionCall, "fc_");
    item.call_id = call.id.empty() ? ids.NextCallId() : call.id;
    item.name = call.name;
    item.arguments = call.arguments;
  }
  Json response = BaseResponse(request, meta);
  SetOutput(response, items);
  response["usage"] = UsageJson(completion.usage);
  switch (completion.reason) {
    case parse::FinishReason::kLength:
      response["status"] = "incomplete";
      response["incomplete_details"] = {{"reason", "max_output_tokens"}};
      break;
    case parse::FinishReason::kCancelled:
      response["status"] = "cancelled";
      break;
    case parse::FinishReason::kError:
      response["status"] = "failed";
      response["error"] = {{"code", ResponsesErrorCode(500)}, {"message", "generation failed"}};
      break;
    default:
      response["status"] = "completed";
      break;
  }
  return Dump(response);
}

}  // namespace crux::protocol::internal
