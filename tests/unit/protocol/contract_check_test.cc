// The contract checker must itself catch each kind of violation the SDKs punish
// (protocols.md §2.6): every stream below breaks one rule.
#include "unit/protocol/contract_check.h"

#include <gtest/gtest.h>

namespace crux::testing {
namespace {

std::string Chat(const std::string& delta, const std::string& finish = "null") {
  return R"(data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":)" +
         delta + R"(,"finish_reason":)" + finish + "}]}\n\n";
}

const std::string kRole = Chat(R"({"role":"assistant"})");
const std::string kFinish = Chat("{}", "\"stop\"");
const std::string kDone = "data: [DONE]\n\n";

bool Flags(protocol::Api api, const std::string& sse, const std::string& needle) {
  for (const std::string& v : CheckStreamContract(api, sse)) {
    if (v.find(needle) != std::string::npos) return true;
  }
  ADD_FAILURE() << "no violation containing '" << needle << "' for:\n" << sse;
  return false;
}

TEST(ContractChecker, AcceptsAMinimalValidChatStream) {
  EXPECT_TRUE(
      CheckStreamContract(protocol::Api::kChatCompletions, kRole + kFinish + kDone).empty());
}

TEST(ContractChecker, CatchesChatViolations) {
  const auto api = protocol::Api::kChatCompletions;
  Flags(api, Chat(R"({"content":"x"})") + kFinish + kDone, "rule 5");
  Flags(
      api,
      kRole +
          Chat(
              R"({"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":""}}]})") +
          kFinish + kDone,
      "rule 6");
  Flags(
      api,
      kRole +
          Chat(R"({"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]})") +
          kFinish + kDone,
      "rule 7");
  Flags(api, kRole + kDone, "rule 8");
  Flags(api, kRole + kFinish, "rule 9");
  Flags(api, kRole + kFinish + kDone + kFinish, "after [DONE]");
  Flags(api, kRole + "event: ping\n\n" + kFinish + kDone, "exactly one data line");
  Flags(api, kRole + "data: {not json}\n\n" + kFinish + kDone, "rule 2");
  Flags(api, kRole + kFinish + kDone.substr(0, kDone.size() - 1), "blank line");
}

std::string Ant(const std::string& type, const std::string& body, bool named = true) {
  return (named ? "event: " + type + "\n" : std::string()) + R"(data: {"type":")" + type + "\"" +
         body + "}\n\n";
}

const std::string kStart = Ant(
    "message_start",
    R"(,"message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}})");
const std::string kText =
    Ant("content_block_start", R"(,"index":0,"content_block":{"type":"text","text":""})") +
    Ant("content_block_delta", R"(,"index":0,"delta":{"type":"text_delta","text":"Hi"})") +
    Ant("content_block_stop", R"(,"index":0)");
const std::string kDelta =
    Ant("message_delta",
        R"(,"delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1})");
const std::string kStop = Ant("message_stop", "");

TEST(ContractChecker, CatchesAnthropicViolations) {
  const auto api = protocol::Api::kAnthropicMessages;
  EXPECT_TRUE(CheckStreamContract(api, kStart + kText + kDelta + kStop).empty());
  Flags(api,
        kStart +
            Ant("content_block_start", R"(,"index":0,"content_block":{"type":"text","text":""})",
                false) +
            kDelta + kStop,
        "rule 18");
  Flags(api,
        kStart +
            Ant("content_block_delta", R"(,"index":0,"delta":{"type":"text_delta","text":"x"})") +
            kDelta + kStop,
        "rule 19");
  Flags(api, kStart + kStart + kDelta + kStop, "second message_start");
  Flags(api,
        kStart + kText +
            Ant("message_delta", R"(,"delta":{"stop_reason":"end_turn","stop_sequence":null})") +
            kStop,
        "usage.output_tokens");
  Flags(api, kStart + kText + kDelta, "message_stop");
  Flags(api,
        kStart +
            Ant("content_block_start", R"(,"index":1,"content_block":{"type":"text","text":""})") +
            Ant("content_block_stop", R"(,"index":1)") + kDelta + kStop,
        "position in content");
  Flags(
      api,
      kStart +
          Ant("content_block_start",
              R"(,"index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}})") +
          Ant("content_block_delta",
              R"(,"index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"})") +
          Ant("content_block_stop", R"(,"index":0)") + kDelta + kStop,
      "rule 20");
}

std::string Resp(int seq, const std::string& type, const std::string& body) {
  return "event: " + type + "\ndata: {\"type\":\"" + type +
         "\",\"sequence_number\":" + std::to_string(seq) + body + "}\n\n";
}

const std::string kResponse =
    R"({"id":"r","object":"response","created_at":1,"status":"in_progress","model":"m","output":[],"error":null,"incomplete_details":null,"instructions":null,"metadata":{},"parallel_tool_calls":true,"temperature":null,"tool_choice":"auto","tools":[],"top_p":null})";

std::string Completed(int seq, const std::string& output) {
  std::string r = kResponse;
  r.replace(r.find("\"in_progress\""), 13, "\"completed\"");
  r.replace(r.find("\"output\":[]"), 11, "\"output\":" + output);
  r.insert(r.size() - 1, R"(,"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2})");
  return Resp(seq, "response.completed", ",\"response\":" + r);
}

TEST(ContractChecker, CatchesResponsesViolations) {
  const auto api = protocol::Api::kResponses;
  const std::string created = Resp(0, "response.created", ",\"response\":" + kResponse);
  const std::string item =
      R"({"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]})";
  const std::string added =
      Resp(1, "response.output_item.added", R"(,"output_index":0,"item":)" + item);
  EXPECT_TRUE(CheckStreamContract(api, created + Completed(1, "[]")).empty());
  Flags(api, Resp(0, "response.in_progress", ",\"response\":" + kResponse), "rule 11");
  Flags(
      api,
      created +
          Resp(
              1, "response.output_text.delta",
              R"(,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"x","logprobs":[])"),
      "missing output at index 0");
  Flags(
      api,
      created + added +
          Resp(
              2, "response.output_text.delta",
              R"(,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"x","logprobs":[])"),
      "missing content at index 0");
  Flags(api, created + Resp(1, "response.custom_thing", ""), "rule 13");
  Flags(api, created + added + Completed(2, "[]"), "rule 14");
  Flags(api, created + Completed(5, "[]"), "rule 15");
  Flags(api, created, "no terminal event");
}

}  // namespace
}  // namespace crux::testing
