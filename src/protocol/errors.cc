#include "protocol/errors.h"

#include "crux/protocol/codec.h"

namespace crux::protocol {
namespace internal {
namespace {

bool IsPathChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '[' || c == ']';
}

}  // namespace

// OpenAI reports a wrong key and an unknown model or response as invalid_request_error too
// (told apart by `code`: invalid_api_key, model_not_found, previous_response_not_found).
std::string_view OpenAiErrorType(int status) {
  switch (status) {
    case 403:
      return "permission_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 400 && status < 499 ? "invalid_request_error" : "server_error";
  }
}

std::string_view AnthropicErrorType(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 400 && status < 499 ? "invalid_request_error" : "api_error";
  }
}

std::string_view ResponsesErrorCode(int status) {
  if (status == 429) return "rate_limit_exceeded";
  return status >= 400 && status < 499 ? "invalid_prompt" : "server_error";
}

std::string ParamOf(std::string_view message) {
  size_t end = 0;
  while (end < message.size() && IsPathChar(message[end]))
    ++end;
  if (end == 0 || !((message[0] >= 'a' && message[0] <= 'z') || message[0] == '_')) return "";
  std::string_view rest = message.substr(end);
  for (std::string_view verb : {" must ", " is ", " names ", " has ", " nests "}) {
    if (rest.starts_with(verb)) return std::string(message.substr(0, end));
  }
  return "";
}

std::string ErrorMessage(int status, std::string_view message) {
  if (!message.empty()) return std::string(message);
  return "request failed with status " + std::to_string(status);
}

Json OpenAiErrorObject(int status, std::string_view message, std::string_view param,
                       std::string_view tag) {
  Json error = Json::object();
  error["message"] = ErrorMessage(status, message);
  error["type"] = OpenAiErrorType(status);
  error["param"] = param.empty() ? Json(nullptr) : Json(param);
  if (!tag.empty()) {
    error["code"] = tag;
  } else if (status == 401) {
    error["code"] = "invalid_api_key";
  } else if (status == 429) {
    error["code"] = "rate_limit_exceeded";
  } else if (status == 504) {
    error["code"] = "timeout";
  } else {
    error["code"] = nullptr;
  }
  return error;
}

}  // namespace internal

int HttpStatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kParse:
    case ErrorCode::kUnsupported:
      return 400;
    case ErrorCode::kUnauthenticated:
      return 401;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kLimit:
      return 413;
    case ErrorCode::kCancelled:
      return 499;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kTimeout:
      return 504;
    case ErrorCode::kIo:
    case ErrorCode::kInternal:
      return 500;
  }
  return 500;
}

namespace {

// The request member a tagged error is about.
std::string_view ParamOfTag(std::string_view tag) {
  if (tag == "previous_response_not_found") return "previous_response_id";
  if (tag == "item_not_found") return "input";
  if (tag == "model_not_found") return "model";
  return "";
}

HttpError Encode(Api api, int status, std::string_view message, std::string_view param,
                 std::string_view tag = "") {
  internal::Json body = internal::Json::object();
  if (api == Api::kAnthropicMessages) {
    body["type"] = "error";
    body["error"] = {{"type", internal::AnthropicErrorType(status)},
                     {"message", internal::ErrorMessage(status, message)}};
  } else {
    body["error"] = internal::OpenAiErrorObject(status, message, param, tag);
  }
  return HttpError{status, internal::Dump(body)};
}

}  // namespace

HttpError EncodeError(Api api, const Error& error) {
  const int status = HttpStatusFor(error.code());
  const bool names_field =
      error.code() == ErrorCode::kInvalidArgument || error.code() == ErrorCode::kUnsupported;
  std::string param = names_field ? internal::ParamOf(error.message()) : std::string();
  if (param.empty()) param = ParamOfTag(error.tag());
  return Encode(api, status, error.message(), param, error.tag());
}

HttpError EncodeError(Api api, int status, std::string_view message) {
  return Encode(api, status, message, "");
}

Error UnknownModelError(Api api, std::string_view model, std::string_view available) {
  const std::string list = available.empty() ? "none" : std::string(available);
  if (api == Api::kAnthropicMessages) {
    return Error(ErrorCode::kNotFound,
                 "model: " + std::string(model) + " (available: " + list + ")");
  }
  return Error(ErrorCode::kNotFound, "The model `" + std::string(model) +
                                         "` does not exist or you do not have access to it. "
                                         "Available: " +
                                         list)
      .WithTag("model_not_found");
}

Error UnauthorizedError(Api api, bool key_given) {
  if (api == Api::kAnthropicMessages) {
    return Error(ErrorCode::kUnauthenticated,
                 key_given ? "invalid x-api-key" : "x-api-key header is required");
  }
  return Error(ErrorCode::kUnauthenticated,
               key_given ? "Incorrect API key provided."
                         : "You didn't provide an API key. Provide it in an Authorization header "
                           "using Bearer auth (Authorization: Bearer YOUR_KEY).");
}

Error ResponseNotFoundError(std::string_view id) {
  return Error(ErrorCode::kNotFound, "Response with id '" + std::string(id) + "' not found.")
      .WithTag("response_not_found");
}

std::string EncodeDeletedResponse(std::string_view id) {
  return internal::Dump(internal::Json{{"id", id}, {"object", "response"}, {"deleted", true}});
}

}  // namespace crux::protocol
