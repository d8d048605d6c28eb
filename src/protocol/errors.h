// Error vocabulary of each vendor (internal to crux_protocol), shared by the pre-stream
// error bodies and the in-stream error events.
#pragma once

#include <string>
#include <string_view>

#include "crux/base/error.h"
#include "protocol/json.h"

namespace crux::protocol::internal {

// OpenAI error `type` for an HTTP status: invalid_request_error (all 4xx but 403 and 429, as
// OpenAI's API answers them), permission_error, rate_limit_error, server_error.
std::string_view OpenAiErrorType(int status);

// Anthropic error `type` for an HTTP status: invalid_request_error, authentication_error,
// permission_error, not_found_error, request_too_large, rate_limit_error, api_error,
// overloaded_error.
std::string_view AnthropicErrorType(int status);

// Responses `error.code` for a failed response: rate_limit_exceeded, invalid_prompt or
// server_error.
std::string_view ResponsesErrorCode(int status);

// The field an error message starts with ("messages[1].content must be …" →
// "messages[1].content"), or "" when the message does not name one.
std::string ParamOf(std::string_view message);

// {"message","type","param","code"}: the object under OpenAI's "error" key.
// `tag` (an Error's tag) becomes `code` when given.
Json OpenAiErrorObject(int status, std::string_view message, std::string_view param,
                       std::string_view tag = "");

// A non-empty message: `message`, or a generic one for the status.
std::string ErrorMessage(int status, std::string_view message);

}  // namespace crux::protocol::internal
