// Dispatch by protocol, response ids, and the encoder pieces every protocol shares.
#include "crux/protocol/codec.h"

#include "crux/text/ids.h"
#include "protocol/encoders.h"

namespace crux::protocol {
namespace internal {

void EncoderBase::Begin(std::string& out) {
  if (state_ != State::kNew) return;
  state_ = State::kOpen;
  OnBegin(out);
}

void EncoderBase::Event(const parse::Event& event, std::string& out) {
  Begin(out);
  if (state_ == State::kOpen) OnEvent(event, out);
}

void EncoderBase::Executed(const ExecutedToolCall& call, std::string& out) {
  Begin(out);
  if (state_ == State::kOpen) OnExecuted(call, out);
}

void EncoderBase::End(const parse::Completion& completion, std::string& out) {
  Begin(out);
  if (state_ != State::kOpen) return;
  state_ = State::kDone;
  if (completion.reason == parse::FinishReason::kCancelled ||
      completion.reason == parse::FinishReason::kError) {
    OnFail(CompletionError(completion), out);
  } else {
    OnEnd(completion, out);
  }
}

void EncoderBase::Fail(const Error& error, std::string& out) {
  Begin(out);
  if (state_ != State::kOpen) return;
  state_ = State::kDone;
  OnFail(error, out);
}

void CallSlots::Begin(int index, int slot) {
  if (index < 0) return;
  const auto i = static_cast<size_t>(index);
  if (slots_.size() <= i) slots_.resize(i + 1, -1);
  slots_[i] = slot;
}

int CallSlots::Find(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= slots_.size()) return -1;
  return slots_[static_cast<size_t>(index)];
}

int CallSlots::Cancel(int index) {
  const int slot = Find(index);
  if (index >= 0 && static_cast<size_t>(index) < slots_.size()) {
    slots_.erase(slots_.begin() + index);
  }
  return slot;
}

int CallSlots::live() const {
  int n = 0;
  for (int slot : slots_)
    n += slot >= 0 ? 1 : 0;
  return n;
}

void HeldText::Add(parse::EventKind kind, std::string_view text) {
  if (text.empty()) return;
  if (!pieces_.empty() && pieces_.back().first == kind) {
    pieces_.back().second += text;
  } else {
    pieces_.emplace_back(kind, std::string(text));
  }
}

const std::string& ResponseModel(const ChatRequest& request, const ResponseMeta& meta) {
  return meta.model.empty() ? request.model : meta.model;
}

Error CompletionError(const parse::Completion& completion) {
  if (completion.reason == parse::FinishReason::kCancelled) {
    return Error(ErrorCode::kCancelled, "the request was cancelled before generation finished");
  }
  return Error(ErrorCode::kInternal, "generation failed");
}

}  // namespace internal

Expected<ChatRequest> DecodeRequest(Api api, std::string_view body, ResponseStore* store) {
  switch (api) {
    case Api::kChatCompletions:
      return DecodeChatCompletions(body);
    case Api::kAnthropicMessages:
      return DecodeAnthropicMessages(body);
    case Api::kResponses:
      return DecodeResponses(body, store);
    case Api::kCompletions:
      return DecodeCompletions(body);
  }
  return Error(ErrorCode::kInternal, "unknown api");
}

std::string NewResponseId(Api api) {
  thread_local text::IdGenerator ids(0);
  switch (api) {
    case Api::kChatCompletions:
      return ids.Next("chatcmpl-", 24);
    case Api::kAnthropicMessages:
      return ids.Next("msg_", 24);
    case Api::kResponses:
      return "resp_" + ids.NextHex(32);
    case Api::kCompletions:
      return ids.Next("cmpl-", 24);
  }
  return ids.Next("id_", 24);
}

std::unique_ptr<StreamEncoder> MakeStreamEncoder(const ChatRequest& request,
                                                 const ResponseMeta& meta) {
  switch (request.api) {
    case Api::kChatCompletions:
      return internal::MakeChatStreamEncoder(request, meta);
    case Api::kAnthropicMessages:
      return internal::MakeAnthropicStreamEncoder(request, meta);
    case Api::kResponses:
      return internal::MakeResponsesStreamEncoder(request, meta);
    case Api::kCompletions:
      return internal::MakeCompletionsStreamEncoder(request, meta);
  }
  return internal::MakeChatStreamEncoder(request, meta);
}

std::string EncodeBody(const ChatRequest& request, const ResponseMeta& meta,
                       const parse::ParseResult& result, const parse::Completion& completion,
                       const std::vector<ExecutedToolCall>& executed) {
  switch (request.api) {
    case Api::kChatCompletions:
      return internal::EncodeChatBody(request, meta, executed, result, completion);
    case Api::kAnthropicMessages:
      return internal::EncodeAnthropicBody(request, meta, executed, result, completion);
    case Api::kResponses:
      return internal::EncodeResponsesBody(request, meta, executed, result, completion);
    case Api::kCompletions:
      return internal::EncodeCompletionsBody(request, meta, executed, result, completion);
  }
  return internal::EncodeChatBody(request, meta, executed, result, completion);
}

}  // namespace crux::protocol
