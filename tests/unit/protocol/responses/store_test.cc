// The Responses store: what it keeps, for how long, within which bytes, and how the decoder
// resolves previous_response_id and item_reference from it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "crux/protocol/codec.h"
#include "crux/protocol/response_store.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// A fake clock the tests move by hand.
struct FakeClock {
  Clock::time_point now = Clock::time_point{} + std::chrono::hours(1);
};

ResponseStoreOptions Options(FakeClock& clock, size_t max_bytes = 1u << 20,
                             std::chrono::seconds ttl = std::chrono::seconds(60)) {
  ResponseStoreOptions options;
  options.max_bytes = max_bytes;
  options.ttl = ttl;
  options.now = [&clock] { return clock.now; };
  return options;
}

// A response with one assistant message item `msg_<n>` saying `text`, given `input`.
StoredResponse Response(const std::string& n, const std::string& text,
                        const std::string& input_text, const std::string& previous = "") {
  Json output =
      Json::array({{{"id", "msg_" + n},
                    {"type", "message"},
                    {"status", "completed"},
                    {"role", "assistant"},
                    {"content", Json::array({{{"type", "output_text"}, {"text", text}}})}}});
  Json input =
      Json::array({{{"type", "message"},
                    {"role", "user"},
                    {"content", Json::array({{{"type", "input_text"}, {"text", input_text}}})}}});
  return {"resp_" + n, Json{{"id", "resp_" + n}, {"object", "response"}, {"output", output}}.dump(),
          input.dump(), previous};
}

TEST(ResponseStore, KeepsGetsAndDeletes) {
  FakeClock clock;
  ResponseStore store(Options(clock));
  ASSERT_TRUE(store.Put(Response("1", "Paris.", "Capital of France?")));
  auto got = store.Get("resp_1");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(Json::parse(*got)["id"], "resp_1");
  auto item = store.Item("msg_1");
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(Json::parse(*item)["content"][0]["text"], "Paris.");
  EXPECT_FALSE(store.Get("resp_2").has_value());
  EXPECT_FALSE(store.Item("msg_2").has_value());
  EXPECT_TRUE(store.Delete("resp_1"));
  EXPECT_FALSE(store.Delete("resp_1"));
  EXPECT_FALSE(store.Get("resp_1").has_value());
  EXPECT_FALSE(store.Item("msg_1").has_value()) << "a deleted response's items go with it";
  EXPECT_EQ(store.size(), 0u);
  EXPECT_EQ(store.bytes(), 0u);
}

TEST(ResponseStore, ConversationFollowsTheChainOldestFirst) {
  FakeClock clock;
  ResponseStore store(Options(clock));
  ASSERT_TRUE(store.Put(Response("1", "Paris.", "Capital of France?")));
  ASSERT_TRUE(store.Put(Response("2", "About 2 million.", "Population?", "resp_1")));
  auto items = store.Conversation("resp_2");
  ASSERT_TRUE(items.has_value());
  ASSERT_EQ(items->size(), 4u);
  EXPECT_EQ(Json::parse((*items)[0])["content"][0]["text"], "Capital of France?");
  EXPECT_EQ(Json::parse((*items)[1])["content"][0]["text"], "Paris.");
  EXPECT_EQ(Json::parse((*items)[2])["content"][0]["text"], "Population?");
  EXPECT_EQ(Json::parse((*items)[3])["content"][0]["text"], "About 2 million.");
  EXPECT_FALSE(store.Put(Response("3", "x", "y", "resp_gone")))
      << "continuing a response the store no longer holds is not stored";
  EXPECT_FALSE(store.Get("resp_3").has_value());
}

TEST(ResponseStore, ExpiresAfterTheTtl) {
  FakeClock clock;
  ResponseStore store(Options(clock, 1u << 20, std::chrono::seconds(60)));
  ASSERT_TRUE(store.Put(Response("1", "a", "b")));
  clock.now += std::chrono::seconds(59);
  ASSERT_TRUE(store.Put(Response("2", "c", "d")));
  EXPECT_TRUE(store.Get("resp_1").has_value());
  clock.now += std::chrono::seconds(2);
  EXPECT_FALSE(store.Get("resp_1").has_value());
  EXPECT_FALSE(store.Item("msg_1").has_value());
  EXPECT_FALSE(store.Conversation("resp_1").has_value());
  EXPECT_TRUE(store.Get("resp_2").has_value());
  EXPECT_EQ(store.size(), 1u);
}

TEST(ResponseStore, StaysWithinItsBytesEvictingTheOldest) {
  FakeClock clock;
  const StoredResponse sample = Response("0", std::string(1000, 'x'), "q");
  ResponseStore probe(Options(clock));
  ASSERT_TRUE(probe.Put(sample));
  const size_t one = probe.bytes();
  ASSERT_GT(one, 1000u);

  ResponseStore store(Options(clock, 3 * one + one / 2));
  for (int i = 1; i <= 10; ++i) {
    ASSERT_TRUE(store.Put(Response(std::to_string(i), std::string(1000, 'x'), "q")));
    EXPECT_LE(store.bytes(), 3 * one + one / 2);
  }
  EXPECT_EQ(store.size(), 3u);
  EXPECT_FALSE(store.Get("resp_7").has_value());
  EXPECT_TRUE(store.Get("resp_8").has_value());
  EXPECT_TRUE(store.Get("resp_10").has_value());
  EXPECT_FALSE(store.Put(Response("big", std::string(4 * one, 'y'), "q")))
      << "a response larger than the whole store is not kept";
}

TEST(ResponseStore, AForgottenResponseStillServesTheChainOfANewerOne) {
  FakeClock clock;
  ResponseStore store(Options(clock));
  ASSERT_TRUE(store.Put(Response("1", std::string(1000, 'a'), "q")));
  const size_t one = store.bytes();
  ASSERT_TRUE(store.Put(Response("2", std::string(1000, 'b'), "q", "resp_1")));
  // resp_1 can no longer be fetched or named, but resp_2 continues it and keeps its items
  // alive; their bytes are still counted.
  ASSERT_TRUE(store.Delete("resp_1"));
  EXPECT_FALSE(store.Get("resp_1").has_value());
  EXPECT_FALSE(store.Item("msg_1").has_value());
  auto items = store.Conversation("resp_2");
  ASSERT_TRUE(items.has_value());
  EXPECT_EQ(items->size(), 4u);
  EXPECT_GE(store.bytes(), 2 * one - 16);
  ASSERT_TRUE(store.Delete("resp_2"));
  EXPECT_EQ(store.bytes(), 0u) << "the last owner releases the whole chain";
}

TEST(ResponseStore, EvictionCountsTheChainsItKeepsAlive) {
  FakeClock clock;
  const size_t one = [&] {
    ResponseStore probe(Options(clock));
    probe.Put(Response("0", std::string(1000, 'x'), "q"));
    return probe.bytes();
  }();
  ResponseStore store(Options(clock, 2 * one + one / 2));
  ASSERT_TRUE(store.Put(Response("1", std::string(1000, 'a'), "q")));
  ASSERT_TRUE(store.Put(Response("2", std::string(1000, 'b'), "q", "resp_1")));
  // A third response does not fit: evicting resp_1 frees nothing while resp_2 holds it, so
  // resp_2 goes too, and the bytes really held stay under the bound.
  ASSERT_TRUE(store.Put(Response("3", std::string(1000, 'c'), "q")));
  EXPECT_FALSE(store.Get("resp_1").has_value());
  EXPECT_FALSE(store.Get("resp_2").has_value());
  EXPECT_TRUE(store.Get("resp_3").has_value());
  EXPECT_LE(store.bytes(), 2 * one + one / 2);
}

TEST(ResponseStore, ZeroBytesStoresNothing) {
  FakeClock clock;
  ResponseStore store(Options(clock, 0));
  EXPECT_FALSE(store.enabled());
  EXPECT_FALSE(store.Put(Response("1", "a", "b")));
  auto r = DecodeResponses(R"({"model":"m","input":"hi"})", &store);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->store) << "a response says what was really done";
}

TEST(ResponseStore, MalformedResponsesAreRefused) {
  FakeClock clock;
  ResponseStore store(Options(clock));
  EXPECT_FALSE(store.Put({"resp_1", "not json", "[]", ""}));
  EXPECT_FALSE(store.Put({"resp_1", R"({"id":"resp_1"})", "[]", ""}));
  EXPECT_FALSE(store.Put({"resp_1", R"({"output":[]})", "{}", ""}));
  EXPECT_EQ(store.size(), 0u);
}

// The decoder against a store holding one finished turn with reasoning, text and a call.
class ResponsesWithStore : public testing::Test {
 protected:
  void SetUp() override {
    Json output = Json::parse(R"([
      {"id":"rs_1","type":"reasoning","status":"completed","summary":[],
       "content":[{"type":"reasoning_text","text":"Call the tool."}]},
      {"id":"msg_1","type":"message","status":"completed","role":"assistant",
       "content":[{"type":"output_text","text":"Let me check."}]},
      {"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1",
       "name":"get_weather","arguments":"{\"city\":\"Paris\"}"}])");
    Json input = Json::parse(
        R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather?"}]}])");
    ASSERT_TRUE(store_.Put(
        {"resp_1", Json{{"id", "resp_1"}, {"output", output}}.dump(), input.dump(), ""}));
  }

  FakeClock clock_;
  ResponseStore store_{Options(clock_)};
};

TEST_F(ResponsesWithStore, PreviousResponseIdPrependsTheConversation) {
  auto r = DecodeResponses(
      R"({"model":"m","previous_response_id":"resp_1","instructions":"Be brief.",
          "input":[{"type":"function_call_output","call_id":"call_1","output":"sunny"}]})",
      &store_);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->messages.size(), 4u);
  EXPECT_EQ(r->messages[0].role, Role::kSystem);
  EXPECT_EQ(r->messages[0].content, "Be brief.");
  EXPECT_EQ(r->messages[1].content, "Weather?");
  EXPECT_EQ(r->messages[2].role, Role::kAssistant);
  EXPECT_EQ(r->messages[2].reasoning, "Call the tool.");
  EXPECT_EQ(r->messages[2].content, "Let me check.");
  ASSERT_EQ(r->messages[2].tool_calls.size(), 1u);
  EXPECT_EQ(r->messages[2].tool_calls[0].id, "call_1");
  EXPECT_EQ(r->messages[3].role, Role::kTool);
  EXPECT_EQ(r->messages[3].name, "get_weather");
  EXPECT_EQ(r->messages[3].content, "sunny");
  EXPECT_TRUE(r->store);
  EXPECT_EQ(r->previous_response_id, "resp_1");
  // Only this request's own input is kept for it; the chain supplies the rest.
  EXPECT_EQ(Json::parse(r->input_items_json).size(), 1u);
}

TEST_F(ResponsesWithStore, ItemReferencesResolveToTheStoredItems) {
  auto r = DecodeResponses(R"({"model":"m","input":[
      {"role":"user","content":"Weather?"},
      {"type":"item_reference","id":"rs_1"},
      {"type":"item_reference","id":"msg_1"},
      {"id":"fc_1"},
      {"type":"function_call_output","call_id":"call_1","output":"sunny"},
      {"role":"user","content":"And tomorrow?"}]})",
                           &store_);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->messages.size(), 4u);
  EXPECT_EQ(r->messages[1].reasoning, "Call the tool.");
  EXPECT_EQ(r->messages[1].content, "Let me check.");
  ASSERT_EQ(r->messages[1].tool_calls.size(), 1u) << "an item with only an id is a reference";
  EXPECT_EQ(r->messages[2].content, "sunny");
  EXPECT_EQ(r->messages[3].content, "And tomorrow?");
  const Json kept = Json::parse(r->input_items_json);
  ASSERT_EQ(kept.size(), 6u);
  EXPECT_EQ(kept[1]["type"], "reasoning") << "references are kept resolved";
  EXPECT_EQ(kept[3]["name"], "get_weather");
}

TEST_F(ResponsesWithStore, UnknownIdsAreNotFoundNeverIgnored) {
  auto r =
      DecodeResponses(R"({"model":"m","input":[{"type":"item_reference","id":"msg_9"}]})", &store_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(r.error().message(), "Item with id 'msg_9' not found.");
  HttpError http = EncodeError(Api::kResponses, r.error());
  EXPECT_EQ(http.status, 404);
  EXPECT_EQ(Json::parse(http.body)["error"]["code"], "item_not_found");

  r = DecodeResponses(R"({"model":"m","previous_response_id":"resp_9","input":"x"})", &store_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "Previous response with id 'resp_9' not found.");
  http = EncodeError(Api::kResponses, r.error());
  EXPECT_EQ(http.status, 404);
  EXPECT_EQ(Json::parse(http.body)["error"]["param"], "previous_response_id");

  // Without a store nothing can be found either.
  r = DecodeResponses(R"({"model":"m","previous_response_id":"resp_1","input":"x"})", nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
  r = DecodeResponses(R"({"model":"m","input":[{"type":"item_reference","id":""}]})", &store_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
}

TEST_F(ResponsesWithStore, KeepsTheInputOnlyWhenTheResponseIsStored) {
  auto r = DecodeResponses(R"({"model":"m","input":"Hello"})", &store_);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(
      r->input_items_json,
      R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"Hello"}]}])");
  r = DecodeResponses(
      R"({"model":"m","input":[{"type":"item_reference","id":"msg_1"}],"store":false})", &store_);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->messages.size(), 1u) << "references resolve with store false too";
  EXPECT_EQ(r->input_items_json, "[]");
}

TEST_F(ResponsesWithStore, PreviousResponseIdNeedsNewInput) {
  // Continuing with nothing new would generate from the stored turn alone: a 400 naming
  // `input`, whether the input is absent, an empty string or no items (and before the lookup,
  // so an unknown id with no input is the same 400).
  for (const char* body : {R"({"model":"m","previous_response_id":"resp_1"})",
                           R"({"model":"m","previous_response_id":"resp_1","input":""})",
                           R"({"model":"m","previous_response_id":"resp_1","input":[]})",
                           R"({"model":"m","previous_response_id":"resp_9","input":null})"}) {
    auto r = DecodeResponses(body, &store_);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << body;
    EXPECT_EQ(r.error().message(),
              "input is required: previous_response_id continues a conversation with new input "
              "items");
    const HttpError http = EncodeError(Api::kResponses, r.error());
    EXPECT_EQ(http.status, 400);
    const Json error = Json::parse(http.body)["error"];
    EXPECT_EQ(error["type"], "invalid_request_error");
    EXPECT_EQ(error["param"], "input") << http.body;
  }
}

}  // namespace
}  // namespace crux::protocol
