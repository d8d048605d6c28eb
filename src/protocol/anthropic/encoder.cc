// Canonical events → Anthropic Messages events, and the non-streaming Message.
//
// Stream: message_start, then one content block per run of reasoning (thinking), text
// (text) or tool call (tool_use), each content_block_start → deltas → content_block_stop
// with `index` = its position in `content`, then message_delta (stop_reason, usage) and
// message_stop. Every event has an `event:` line equal to its data.type. A thinking block's
// last delta is a signature_delta, as Anthropic's API sends it: clients that replay thinking
// in multi-step loops (@ai-sdk/anthropic) keep only blocks that carry a signature.
//
// Tool arguments are never parsed: the stream sends them as partial_json fragments, the body
// splices the same text in as `tool_use.input` (AppendToolInput), so the two agree byte for
// byte at any width or depth.
#include "crux/base/utf8.h"
#include "crux/text/ids.h"
#include "crux/text/json_text.h"
#include "protocol/encoders.h"
#include "protocol/errors.h"
#include "protocol/json.h"
#include "protocol/sse.h"

namespace crux::protocol::internal {
namespace {

std::string_view StopReasonFor(parse::FinishReason reason, bool has_calls) {
  if (has_calls) return "tool_use";
  switch (reason) {
    case parse::FinishReason::kLength:
      return "max_tokens";
    case parse::FinishReason::kStopSequence:
      return "stop_sequence";
    default:
      return "end_turn";
  }
}

Json StopSequenceFor(const parse::Completion& completion, bool has_calls) {
  if (has_calls || completion.reason != parse::FinishReason::kStopSequence) return nullptr;
  return completion.stop_sequence;
}

Json UsageObject(int input_tokens, int output_tokens, int cached_tokens) {
  return {{"input_tokens", input_tokens},
          {"cache_creation_input_tokens", 0},
          {"cache_read_input_tokens", cached_tokens},
          {"output_tokens", output_tokens}};
}

// The signature of a thinking block: "crux-" and a 64-bit FNV-1a digest of its text in hex.
// It is opaque to clients, which only send it back with the block; crux accepts any
// signature in history, so it authenticates nothing — it marks the block as complete.
class ThinkingSignature {
 public:
  void Add(std::string_view text) {
    for (unsigned char c : text) {
      hash_ ^= c;
      hash_ *= 0x100000001b3ull;
    }
  }
  std::string Value() const {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "crux-";
    for (int shift = 60; shift >= 0; shift -= 4)
      out += kHex[(hash_ >> shift) & 0xf];
    return out;
  }
  static std::string Of(std::string_view text) {
    ThinkingSignature s;
    s.Add(text);
    return s.Value();
  }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

// Appends a call's arguments as its tool_use `input`: the bytes its input_json_delta
// fragments concatenate to in the stream, so a body and a stream of one output agree at any
// width or depth (the text is never parsed into a tree). Every crux parser emits a JSON
// object; what else an embedder's events carry is kept too (docs/protocols.md):
// * one JSON value → that text as written (invalid UTF-8 repaired, as the stream's string
//   escaping repairs it);
// * no arguments → {} (the stream sends no fragment, so its block's input stays {});
// * text that is not JSON → a JSON string holding it (the stream sent the same text, which
//   a client's JSON parse of the fragments then rejects), never {}.
void AppendToolInput(std::string& out, std::string_view arguments) {
  if (arguments.empty()) {
    out += "{}";
  } else if (text::JsonTextType(arguments)) {
    utf8::AppendRepaired(out, arguments);
  } else {
    AppendJsonString(out, arguments);
  }
}

// The blocks of one executed MCP call, as Anthropic's MCP connector writes them: mcp_tool_use
// {id, name, server_name, input} and mcp_tool_result {tool_use_id, is_error, content}.
std::vector<Json> McpBlocks(const ExecutedToolCall& call, const std::string& id) {
  Json input = Json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
  if (!input.is_object()) input = Json::object();
  return {{{"type", "mcp_tool_use"},
           {"id", id},
           {"name", call.tool},
           {"server_name", call.server},
           {"input", std::move(input)}},
          {{"type", "mcp_tool_result"},
           {"tool_use_id", id},
           {"is_error", call.is_error},
           {"content", Json::array({{{"type", "text"}, {"text", call.output}}})}}};
}

class AnthropicStreamEncoder final : public EncoderBase {
 public:
  AnthropicStreamEncoder(const ChatRequest& request, const ResponseMeta& meta)
      : id_(meta.id),
        model_(ResponseModel(request, meta)),
        prompt_tokens_(meta.prompt_tokens),
        ids_(meta.id_seed) {}

  std::string_view KeepAlive() const override { return kAnthropicPing; }

 protected:
  void OnBegin(std::string& out) override {
    Json message = {{"id", id_},
                    {"type", "message"},
                    {"role", "assistant"},
                    {"model", model_},
                    {"content", Json::array()},
                    {"stop_reason", nullptr},
                    {"stop_sequence", nullptr},
                    {"usage", UsageObject(prompt_tokens_, 0, 0)}};
    Emit("message_start", {{"type", "message_start"}, {"message", std::move(message)}}, out);
  }

  void OnEvent(const parse::Event& event, std::string& out) override {
    switch (event.kind) {
      case parse::EventKind::kReasoning:
      case parse::EventKind::kContent:
        if (open_ == Block::kTool) {
          held_.Add(event.kind, event.text);
        } else {
          Text(event.kind, event.text, out);
        }
        return;
      case parse::EventKind::kToolCallBegin:
        BeginCall(event, out);
        return;
      case parse::EventKind::kToolCallArgs:
        // Fragments of a call whose block is no longer open cannot be placed; parsers send
        // a call's events contiguously, so this does not happen in practice.
        if (open_ == Block::kTool && slots_.Find(event.index) == open_index_ &&
            !event.text.empty()) {
          delta_ = R"({"type":"content_block_delta","index":)" + std::to_string(open_index_) +
                   R"(,"delta":{"type":"input_json_delta","partial_json":)";
          AppendJsonString(delta_, event.text);
          delta_ += "}}";
          AppendEvent(out, "content_block_delta", delta_);
        }
        return;
      case parse::EventKind::kToolCallEnd:
      case parse::EventKind::kToolCallCancel: {
        const int slot = event.kind == parse::EventKind::kToolCallEnd ? slots_.Find(event.index)
                                                                      : slots_.Cancel(event.index);
        if (open_ == Block::kTool && slot == open_index_) CloseBlock(out);
        return;
      }
    }
  }

  // An executed MCP call: its mcp_tool_use block (the whole input in content_block_start; no
  // deltas), then its mcp_tool_result block.
  void OnExecuted(const ExecutedToolCall& call, std::string& out) override {
    const std::string id = ids_.Next("mcptoolu_", 24);
    for (const Json& block : McpBlocks(call, id)) {
      OpenBlock(Block::kServer, Dump(block), out);
      CloseBlock(out);
    }
  }

  void OnEnd(const parse::Completion& completion, std::string& out) override {
    CloseAll(out);
    if (blocks_ == 0) {  // an answer with no output still has one (empty) text block
      OpenBlock(Block::kText, R"({"type":"text","text":""})", out);
      CloseAll(out);
    }
    const bool has_calls = slots_.live() > 0;
    const parse::Usage& usage = completion.usage;
    Json delta = {{"stop_reason", StopReasonFor(completion.reason, has_calls)},
                  {"stop_sequence", StopSequenceFor(completion, has_calls)}};
    Emit(
        "message_delta",
        {{"type", "message_delta"},
         {"delta", std::move(delta)},
         {"usage", UsageObject(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)}},
        out);
    Emit("message_stop", {{"type", "message_stop"}}, out);
  }

  // The stream ends at the error event, as the Anthropic API does (no message_stop): the
  // SDK throws on `event: error`, so nothing after it would be read.
  void OnFail(const Error& error, std::string& out) override {
    const int status = HttpStatusFor(error.code());
    Json body = {{"type", "error"},
                 {"error",
                  {{"type", AnthropicErrorType(status)},
                   {"message", ErrorMessage(status, error.message())}}}};
    Emit("error", body, out);
  }

 private:
  enum class Block { kNone, kThinking, kText, kTool, kServer };

  void Emit(std::string_view name, const Json& data, std::string& out) {
    AppendEvent(out, name, Dump(data));
  }

  void OpenBlock(Block kind, std::string_view block_json, std::string& out) {
    CloseAll(out);
    open_ = kind;
    open_index_ = blocks_++;
    std::string data = R"({"type":"content_block_start","index":)" + std::to_string(open_index_) +
                       R"(,"content_block":)";
    data += block_json;
    data += '}';
    AppendEvent(out, "content_block_start", data);
  }

  // Closes the open block; text held while a tool call was open follows in new blocks.
  void CloseBlock(std::string& out) {
    if (open_ == Block::kNone) return;
    const bool was_tool = open_ == Block::kTool;
    if (open_ == Block::kThinking) {
      delta_ = R"({"type":"content_block_delta","index":)" + std::to_string(open_index_) +
               R"(,"delta":{"type":"signature_delta","signature":)";
      AppendJsonString(delta_, signature_.Value());
      delta_ += "}}";
      AppendEvent(out, "content_block_delta", delta_);
    }
    AppendEvent(out, "content_block_stop",
                R"({"type":"content_block_stop","index":)" + std::to_string(open_index_) + "}");
    open_ = Block::kNone;
    if (was_tool && !held_.empty()) {
      for (auto& [kind, text] : held_.Take())
        Text(kind, text, out);
    }
  }

  void CloseAll(std::string& out) {
    while (open_ != Block::kNone)
      CloseBlock(out);
  }

  void Text(parse::EventKind kind, const std::string& text, std::string& out) {
    if (text.empty()) return;
    const bool thinking = kind == parse::EventKind::kReasoning;
    const Block want = thinking ? Block::kThinking : Block::kText;
    if (open_ != want) {
      if (thinking) signature_ = ThinkingSignature();
      OpenBlock(want,
                thinking ? R"({"type":"thinking","thinking":"","signature":""})"
                         : R"({"type":"text","text":""})",
                out);
    }
    delta_ = R"({"type":"content_block_delta","index":)" + std::to_string(open_index_) +
             (thinking ? R"(,"delta":{"type":"thinking_delta","thinking":)"
                       : R"(,"delta":{"type":"text_delta","text":)");
    AppendJsonString(delta_, text);
    delta_ += "}}";
    AppendEvent(out, "content_block_delta", delta_);
    if (thinking) signature_.Add(text);
  }

  void BeginCall(const parse::Event& event, std::string& out) {
    Json block = {{"type", "tool_use"},
                  {"id", event.id.empty() ? ids_.Next("toolu_", 24) : event.id},
                  {"name", event.name},
                  {"input", Json::object()}};
    OpenBlock(Block::kTool, Dump(block), out);
    slots_.Begin(event.index, open_index_);
  }

  std::string id_;
  std::string model_;
  int prompt_tokens_;
  text::IdGenerator ids_;
  Block open_ = Block::kNone;
  int open_index_ = -1;
  int blocks_ = 0;
  CallSlots slots_;  // canonical call index → content block index
  HeldText held_;
  ThinkingSignature signature_;  // of the open thinking block
  std::string delta_;            // scratch, reused per event
};

}  // namespace

std::unique_ptr<StreamEncoder> MakeAnthropicStreamEncoder(const ChatRequest& request,
                                                          const ResponseMeta& meta) {
  return std::make_unique<AnthropicStreamEncoder>(request, meta);
}

std::string EncodeAnthropicBody(const ChatRequest& request, const ResponseMeta& meta,
                                const std::vector<ExecutedToolCall>& executed,
                                const parse::ParseResult& result,
                                const parse::Completion& completion) {
  text::IdGenerator ids(meta.id_seed);
  // The content array is written by hand so that each tool input is spliced in as text.
  std::string content;
  auto add_block = [&content](const Json& block) {
    if (!content.empty()) content += ',';
    content += Dump(block);
  };
  if (result.reasoning) {
    add_block({{"type", "thinking"},
               {"thinking", *result.reasoning},
               {"signature", ThinkingSignature::Of(*result.reasoning)}});
  }
  for (const ExecutedToolCall& call : executed) {
    for (const Json& block : McpBlocks(call, ids.Next("mcptoolu_", 24)))
      add_block(block);
  }
  if (result.content) add_block({{"type", "text"}, {"text", *result.content}});
  for (const parse::ToolCall& call : result.tool_calls) {
    add_block({{"type", "tool_use"},
               {"id", call.id.empty() ? ids.Next("toolu_", 24) : call.id},
               {"name", call.name}});
    content.pop_back();  // the block's closing brace: `input` comes last
    content += R"(,"input":)";
    AppendToolInput(content, call.arguments);
    content += '}';
  }
  if (content.empty()) add_block({{"type", "text"}, {"text", ""}});
  const bool has_calls = !result.tool_calls.empty();
  const parse::Usage& usage = completion.usage;
  const Json head = {{"id", meta.id},
                     {"type", "message"},
                     {"role", "assistant"},
                     {"model", ResponseModel(request, meta)}};
  const Json tail = {
      {"stop_reason", StopReasonFor(completion.reason, has_calls)},
      {"stop_sequence", StopSequenceFor(completion, has_calls)},
      {"usage", UsageObject(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)}};
  std::string body = Dump(head);
  body.pop_back();
  body += R"(,"content":[)";
  body += content;
  body += "],";
  body.append(Dump(tail), 1);  // without its opening brace
  return body;
}

}  // namespace crux::protocol::internal
