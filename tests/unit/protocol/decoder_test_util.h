// Helpers for the request decoder tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "crux/protocol/codec.h"

namespace crux::protocol::testutil {

// Decodes `body` and fails the test (returning an empty request) on error.
inline ChatRequest MustDecode(Api api, const std::string& body) {
  auto request = DecodeRequest(api, body);
  EXPECT_TRUE(request.ok()) << (request.ok() ? "" : request.error().message()) << "\n" << body;
  return request.ok() ? *request : ChatRequest{};
}

// One request that must be rejected: its error code, a substring of the message, and the
// `param` the OpenAI error body must name ("" for none).
struct BadRequest {
  std::string body;
  ErrorCode code;
  std::string message;
  std::string param;
};

inline void ExpectRejected(Api api, const BadRequest& bad) {
  auto request = DecodeRequest(api, bad.body);
  if (request.ok()) {
    ADD_FAILURE() << "accepted: " << bad.body;
    return;
  }
  const Error& error = request.error();
  EXPECT_EQ(error.code(), bad.code) << bad.body << " -> " << error.message();
  EXPECT_NE(error.message().find(bad.message), std::string::npos)
      << "message '" << error.message() << "' lacks '" << bad.message << "'";
  if (api == Api::kAnthropicMessages) return;
  const HttpError http = EncodeError(api, error);
  const std::string param =
      bad.param.empty() ? "\"param\":null" : "\"param\":\"" + bad.param + "\"";
  EXPECT_NE(http.body.find(param), std::string::npos) << http.body;
  EXPECT_EQ(http.status, 400) << http.body;
}

}  // namespace crux::protocol::testutil
