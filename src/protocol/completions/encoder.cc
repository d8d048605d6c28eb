// Canonical content events → OpenAI Completions chunks (`object: "text_completion"`), and the
// non-streaming body. Stream: one chunk per text delta (`choices[0].text`), a chunk with the
// finish reason, the usage chunk (`choices: []`) when stream_options.include_usage is set,
// then `data: [DONE]`.
#include "protocol/encoders.h"
#include "protocol/errors.h"
#include "protocol/json.h"
#include "protocol/sse.h"

namespace crux::protocol::internal {
namespace {

std::string_view FinishReason(parse::FinishReason reason) {
  return reason == parse::FinishReason::kLength ? "length" : "stop";
}

Json Usage(const parse::Usage& usage) {
  Json u = Json::object();
  u["prompt_tokens"] = usage.prompt_tokens;
  u["completion_tokens"] = usage.completion_tokens;
  u["total_tokens"] = usage.prompt_tokens + usage.completion_tokens;
  u["prompt_tokens_details"] = {{"cached_tokens", usage.cached_tokens}};
  return u;
}

Json Head(const ChatRequest& request, const ResponseMeta& meta) {
  Json head = Json::object();
  head["id"] = meta.id;
  head["object"] = "text_completion";
  head["created"] = meta.created;
  head["model"] = ResponseModel(request, meta);
  return head;
}

class CompletionsStreamEncoder final : public EncoderBase {
 public:
  CompletionsStreamEncoder(const ChatRequest& request, const ResponseMeta& meta)
      : head_(Head(request, meta)), include_usage_(request.include_usage) {
    std::string head = Dump(head_);
    head.pop_back();
    prefix_ = head + R"(,"choices":[{"text":)";
    echo_ = request.echo ? request.prompt_text : "";
  }

  std::string_view KeepAlive() const override { return kSseKeepAlive; }

 protected:
  void OnBegin(std::string& out) override {
    if (!echo_.empty()) Text(echo_, out);
  }

  // A raw prompt has no tools, so the server runs none.
  void OnExecuted(const ExecutedToolCall& /*call*/, std::string& /*out*/) override {}

  void OnEvent(const parse::Event& event, std::string& out) override {
    // Without parsers every event is content; anything else is written as text too, so no
    // byte of the output is lost.
    if (!event.text.empty()) Text(event.text, out);
  }

  void OnEnd(const parse::Completion& completion, std::string& out) override {
    Json chunk = head_;
    chunk["choices"] = Json::array({{{"text", ""},
                                     {"index", 0},
                                     {"logprobs", nullptr},
                                     {"finish_reason", FinishReason(completion.reason)}}});
    AppendData(out, Dump(chunk));
    if (include_usage_) {
      Json usage = head_;
      usage["choices"] = Json::array();
      usage["usage"] = Usage(completion.usage);
      AppendData(out, Dump(usage));
    }
    out += kSseDone;
  }

  void OnFail(const Error& error, std::string& out) override {
    AppendData(out, EncodeError(Api::kCompletions, error).body);
    out += kSseDone;
  }

 private:
  void Text(std::string_view text, std::string& out) {
    line_ = prefix_;
    AppendJsonString(line_, text);
    line_ += R"(,"index":0,"logprobs":null,"finish_reason":null}]})";
    AppendData(out, line_);
  }

  Json head_;
  bool include_usage_;
  std::string prefix_;
  std::string echo_;
  std::string line_;
};

}  // namespace

std::unique_ptr<StreamEncoder> MakeCompletionsStreamEncoder(const ChatRequest& request,
                                                            const ResponseMeta& meta) {
  return std::make_unique<CompletionsStreamEncoder>(request, meta);
}

std::string EncodeCompletionsBody(const ChatRequest& request, const ResponseMeta& meta,
                                  const std::vector<ExecutedToolCall>& /*executed*/,
                                  const parse::ParseResult& result,
                                  const parse::Completion& completion) {
  Json body = Head(request, meta);
  std::string text = request.echo ? request.prompt_text : "";
  if (result.reasoning) text += *result.reasoning;
  text += result.content.value_or("");
  body["choices"] = Json::array({{{"text", text},
                                  {"index", 0},
                                  {"logprobs", nullptr},
                                  {"finish_reason", FinishReason(completion.reason)}}});
  body["usage"] = Usage(completion.usage);
  return Dump(body);
}

}  // namespace crux::protocol::internal
