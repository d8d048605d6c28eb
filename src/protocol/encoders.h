// Pieces shared by the three stream encoders, and the per-protocol factories (internal to
// crux_protocol).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/parse/events.h"
#include "crux/parse/result.h"
#include "crux/protocol/codec.h"

namespace crux::protocol::internal {

// The lifecycle every encoder shares: Begin runs once (implicitly before the first frame
// when the caller skipped it), nothing is written after End or Fail, and End with a
// cancelled or failed completion fails the stream.
class EncoderBase : public StreamEncoder {
 public:
  void Begin(std::string& out) final;
  void Event(const parse::Event& event, std::string& out) final;
  void Executed(const ExecutedToolCall& call, std::string& out) final;
  void End(const parse::Completion& completion, std::string& out) final;
  void Fail(const Error& error, std::string& out) final;

 protected:
  virtual void OnBegin(std::string& out) = 0;
  virtual void OnEvent(const parse::Event& event, std::string& out) = 0;
  virtual void OnExecuted(const ExecutedToolCall& call, std::string& out) = 0;
  // `completion.reason` is never kCancelled or kError here.
  virtual void OnEnd(const parse::Completion& completion, std::string& out) = 0;
  virtual void OnFail(const Error& error, std::string& out) = 0;

 private:
  enum class State { kNew, kOpen, kDone };
  State state_ = State::kNew;
};

// Maps the canonical index of a tool call (its position among the live calls; a cancelled
// call's index is reused by the next call) to the wire slot the encoder gave it.
class CallSlots {
 public:
  void Begin(int index, int slot);
  // The slot of live call `index`, or -1.
  int Find(int index) const;
  // Forgets call `index` (later calls move down one position); returns its slot or -1.
  int Cancel(int index);
  // Number of calls begun and not cancelled.
  int live() const;

 private:
  std::vector<int> slots_;
};

// Text that arrived while a tool call's block was open. Anthropic blocks and Responses items
// cannot interleave, so it is held and sent once the call closes. Adjacent pieces of one
// kind are merged.
class HeldText {
 public:
  void Add(parse::EventKind kind, std::string_view text);
  bool empty() const { return pieces_.empty(); }
  std::vector<std::pair<parse::EventKind, std::string>> Take() { return std::move(pieces_); }

 private:
  std::vector<std::pair<parse::EventKind, std::string>> pieces_;
};

// The model name a response reports: the served name, else the requested one.
const std::string& ResponseModel(const ChatRequest& request, const ResponseMeta& meta);

// The error a stream reports when End() receives a cancelled or failed completion.
Error CompletionError(const parse::Completion& completion);

std::unique_ptr<StreamEncoder> MakeCompletionsStreamEncoder(const ChatRequest& request,
                                                            const ResponseMeta& meta);
std::string EncodeCompletionsBody(const ChatRequest& request, const ResponseMeta& meta,
                                  const std::vector<ExecutedToolCall>& executed,
                                  const parse::ParseResult& result,
                                  const parse::Completion& completion);
std::unique_ptr<StreamEncoder> MakeChatStreamEncoder(const ChatRequest& request,
                                                     const ResponseMeta& meta);
std::unique_ptr<StreamEncoder> MakeAnthropicStreamEncoder(const ChatRequest& request,
                                                          const ResponseMeta& meta);
std::unique_ptr<StreamEncoder> MakeResponsesStreamEncoder(const ChatRequest& request,
                                                          const ResponseMeta& meta);

std::string EncodeChatBody(const ChatRequest& request, const ResponseMeta& meta,
                           const std::vector<ExecutedToolCall>& executed,
                           const parse::ParseResult& result, const parse::Completion& completion);
std::string EncodeAnthropicBody(const ChatRequest& request, const ResponseMeta& meta,
                                const std::vector<ExecutedToolCall>& executed,
                                const parse::ParseResult& result,
                                const parse::Completion& completion);
std::string EncodeResponsesBody(const ChatRequest& request, const ResponseMeta& meta,
                                const std::vector<ExecutedToolCall>& executed,
                                const parse::ParseResult& result,
                                const parse::Completion& completion);

}  // namespace crux::protocol::internal
