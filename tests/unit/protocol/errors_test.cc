#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "crux/protocol/codec.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::json;

TEST(ProtocolErrors, HttpStatusForEveryCode) {
  EXPECT_EQ(HttpStatusFor(ErrorCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kParse), 400);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kUnsupported), 400);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kLimit), 413);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kCancelled), 499);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kIo), 500);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kInternal), 500);
  EXPECT_EQ(HttpStatusFor(ErrorCode::kUnavailable), 503);
}

TEST(ProtocolErrors, OpenAiShape) {
  HttpError e = EncodeError(Api::kChatCompletions,
                            Error(ErrorCode::kInvalidArgument, "messages[1].content must be x"));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(
      e.body,
      R"({"error":{"message":"messages[1].content must be x","type":"invalid_request_error","param":"messages[1].content","code":null}})");
  e = EncodeError(Api::kResponses, Error(ErrorCode::kUnauthenticated, "Invalid API key"));
  EXPECT_EQ(e.status, 401);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "invalid_request_error");  // as OpenAI's
  EXPECT_EQ(Json::parse(e.body)["error"]["code"], "invalid_api_key");
  e = EncodeError(Api::kChatCompletions,
                  Error(ErrorCode::kNotFound, "The model `x` does not exist"));
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "invalid_request_error");
  EXPECT_TRUE(Json::parse(e.body)["error"]["param"].is_null());
  EXPECT_TRUE(Json::parse(e.body)["error"]["code"].is_null());
  // A tagged error reports its tag as `code`, and the member it is about as `param`.
  e = EncodeError(Api::kChatCompletions, Error(ErrorCode::kNotFound,
                                               "The model `x` does not exist or you do not have "
                                               "access to it.")
                                             .WithTag("model_not_found"));
  EXPECT_EQ(Json::parse(e.body)["error"]["code"], "model_not_found");
  EXPECT_EQ(Json::parse(e.body)["error"]["param"], "model");
  e = EncodeError(Api::kResponses,
                  Error(ErrorCode::kNotFound, "Previous response with id 'resp_1' not found.")
                      .WithTag("previous_response_not_found"));
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(
      e.body,
      R"({"error":{"message":"Previous response with id 'resp_1' not found.","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}})");
  e = EncodeError(Api::kChatCompletions, 429, "Rate limit exceeded. Retry after 3 seconds.");
  EXPECT_EQ(e.status, 429);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "rate_limit_error");
  EXPECT_EQ(Json::parse(e.body)["error"]["code"], "rate_limit_exceeded");
  e = EncodeError(Api::kResponses, 504, "Request timed out after 300.0 seconds");
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "server_error");
  e = EncodeError(Api::kChatCompletions, Error(ErrorCode::kInternal, ""));
  EXPECT_FALSE(Json::parse(e.body)["error"]["message"].get<std::string>().empty());
}

TEST(ProtocolErrors, AnthropicShape) {
  const std::vector<std::pair<int, std::string>> cases = {{400, "invalid_request_error"},
                                                          {401, "authentication_error"},
                                                          {403, "permission_error"},
                                                          {404, "not_found_error"},
                                                          {413, "request_too_large"},
                                                          {429, "rate_limit_error"},
                                                          {500, "api_error"},
                                                          {503, "overloaded_error"},
                                                          {529, "overloaded_error"},
                                                          {504, "timeout_error"}};
  for (const auto& [status, type] : cases) {
    HttpError e = EncodeError(Api::kAnthropicMessages, status, "boom");
    EXPECT_EQ(e.status, status);
    EXPECT_EQ(e.body, R"({"type":"error","error":{"type":")" + type + R"(","message":"boom"}})");
  }
  HttpError e = EncodeError(Api::kAnthropicMessages, Error(ErrorCode::kLimit, "body too large"));
  EXPECT_EQ(e.status, 413);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "request_too_large");
}

// A deadline is the server's timeout, not a client error: 504 in every shape.
TEST(ProtocolErrors, TimeoutIs504) {
  const Error timeout(ErrorCode::kTimeout, "the request exceeded its deadline of 1 s");
  EXPECT_EQ(HttpStatusFor(ErrorCode::kTimeout), 504);
  HttpError e = EncodeError(Api::kAnthropicMessages, timeout);
  EXPECT_EQ(e.status, 504);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "timeout_error");
  e = EncodeError(Api::kChatCompletions, timeout);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "server_error");
  EXPECT_EQ(Json::parse(e.body)["error"]["code"], "timeout");
  e = EncodeError(Api::kResponses, timeout);
  EXPECT_EQ(Json::parse(e.body)["error"]["type"], "server_error");
}

TEST(ProtocolErrors, InvalidUtf8InMessagesIsReplaced) {
  HttpError e = EncodeError(Api::kChatCompletions, Error(ErrorCode::kInvalidArgument, "bad \xff"));
  EXPECT_EQ(Json::parse(e.body)["error"]["message"], "bad \xef\xbf\xbd");
}

}  // namespace
}  // namespace crux::protocol

namespace crux::protocol {
namespace {

// The rejections clients recognise by their words, in each vendor's wording and shape.
TEST(ProtocolErrors, VendorWordingForModelsKeysAndStoredResponses) {
  HttpError e =
      EncodeError(Api::kChatCompletions, UnknownModelError(Api::kChatCompletions, "x", "a, b"));
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(
      e.body,
      R"({"error":{"message":"The model `x` does not exist or you do not have access to it. Available: a, b","type":"invalid_request_error","param":"model","code":"model_not_found"}})");
  e = EncodeError(Api::kAnthropicMessages, UnknownModelError(Api::kAnthropicMessages, "x", ""));
  EXPECT_EQ(
      e.body,
      R"j({"type":"error","error":{"type":"not_found_error","message":"model: x (available: none)"}})j");
  e = EncodeError(Api::kResponses, UnauthorizedError(Api::kResponses, true));
  EXPECT_EQ(e.status, 401);
  EXPECT_EQ(
      e.body,
      R"({"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}})");
  e = EncodeError(Api::kAnthropicMessages, UnauthorizedError(Api::kAnthropicMessages, false));
  EXPECT_EQ(
      e.body,
      R"({"type":"error","error":{"type":"authentication_error","message":"x-api-key header is required"}})");
  e = EncodeError(Api::kResponses, ResponseNotFoundError("resp_1"));
  EXPECT_EQ(e.status, 404);
  EXPECT_EQ(Json::parse(e.body)["error"]["code"], "response_not_found");
  EXPECT_EQ(EncodeDeletedResponse("resp_1"),
            R"({"id":"resp_1","object":"response","deleted":true})");
}

}  // namespace
}  // namespace crux::protocol
