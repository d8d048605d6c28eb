// The crux extension fields that choose a request's parsers, decoded the same way by the three
// APIs: typed on the request, and a non-string value is the API's own 400 naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "crux/protocol/codec.h"
#include "unit/protocol/decoder_test_util.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::json;

// A minimal valid body of `api` with `extra` members added at the top level.
std::string Body(Api api, const std::string& extra) {
  switch (api) {
    case Api::kChatCompletions:
      return R"({"model":"m","messages":[{"role":"user","content":"x"}])" + extra + "}";
    case Api::kAnthropicMessages:
      return R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}])" + extra +
             "}";
    case Api::kResponses:
      return R"({"model":"m","input":"x")" + extra + "}";
    case Api::kCompletions:
      return R"({"model":"m","prompt":"x")" + extra + "}";
  }
  return "";
}

constexpr Api kApis[] = {Api::kChatCompletions, Api::kAnthropicMessages, Api::kResponses};

TEST(ParserFields, DecodedIntoTheRequestByEveryApi) {
  for (Api api : kApis) {
    ChatRequest r = testutil::MustDecode(
        api, Body(api, R"(,"reasoning_parser":"qwen3","tool_call_parser":"hermes")"));
    EXPECT_EQ(r.reasoning_parser, "qwen3") << ApiName(api);
    EXPECT_EQ(r.tool_parser, "hermes") << ApiName(api);

    ChatRequest unset = testutil::MustDecode(api, Body(api, R"(,"reasoning_parser":null)"));
    EXPECT_FALSE(unset.reasoning_parser.has_value()) << ApiName(api);
    EXPECT_FALSE(unset.tool_parser.has_value()) << ApiName(api);

    ChatRequest off = testutil::MustDecode(api, Body(api, R"(,"reasoning_parser":"")"));
    EXPECT_EQ(off.reasoning_parser, "") << ApiName(api);  // parsing turned off, not unset
  }
}

TEST(ParserFields, NonStringIsA400InTheApisOwnShape) {
  for (Api api : kApis) {
    for (const char* field : {"reasoning_parser", "tool_call_parser"}) {
      for (const char* value : {"5", "true", "[\"qwen3\"]", "{\"name\":\"qwen3\"}"}) {
        const std::string body = Body(api, std::string(",\"") + field + "\":" + value);
        testutil::ExpectRejected(api, {body, ErrorCode::kInvalidArgument,
                                       std::string(field) + " must be a string", field});
        auto decoded = DecodeRequest(api, body);
        ASSERT_FALSE(decoded.ok());
        const HttpError http = EncodeError(api, decoded.error());
        EXPECT_EQ(http.status, 400);
        const Json error = Json::parse(http.body);
        if (api == Api::kAnthropicMessages) {
          EXPECT_EQ(error["type"], "error");
          EXPECT_EQ(error["error"]["type"], "invalid_request_error");
          EXPECT_EQ(error["error"]["message"], std::string(field) + " must be a string");
        } else {
          EXPECT_EQ(error["error"]["type"], "invalid_request_error");
          EXPECT_EQ(error["error"]["param"], field);
        }
      }
    }
  }
}

}  // namespace
}  // namespace crux::protocol
