#include "server/routes.h"

namespace crux::server {

namespace http = boost::beast::http;

protocol::Api ApiForTarget(std::string_view target) {
  if (target.find("/messages") != std::string_view::npos) return protocol::Api::kAnthropicMessages;
  if (target.find("/responses") != std::string_view::npos) return protocol::Api::kResponses;
  return protocol::Api::kChatCompletions;
}

Route RouteFor(std::string_view target) {
  auto under = [&](std::string_view prefix, std::string& id) {
    for (std::string_view p : {std::string_view("/v1"), std::string_view("")}) {
      const std::string full = std::string(p) + std::string(prefix);
      if (target.size() > full.size() && target.starts_with(full) &&
          target.substr(full.size()).find('/') == std::string_view::npos) {
        id = std::string(target.substr(full.size()));
        return true;
      }
    }
    return false;
  };
  Route route;
  if (target == "/") {
    route.resource = Resource::kRoot;
  } else if (target.starts_with("/ui/")) {
    route.resource = Resource::kWebAsset;
    route.id = std::string(target);
  } else if (target == "/health" || target == "/v1/health") {
    route.resource = Resource::kHealth;
  } else if (target == "/metrics") {
    route.resource = Resource::kMetrics;
  } else if (target == "/v1/models" || target == "/models") {
    route.resource = Resource::kModels;
  } else if (target == "/v1/chat/completions" || target == "/chat/completions") {
    route = {Resource::kApi, protocol::Api::kChatCompletions, ""};
  } else if (target == "/v1/messages" || target == "/messages") {
    route = {Resource::kApi, protocol::Api::kAnthropicMessages, ""};
  } else if (target == "/v1/completions" || target == "/completions") {
    route = {Resource::kApi, protocol::Api::kCompletions, ""};
  } else if (target == "/tokenize") {
    route.resource = Resource::kTokenize;
  } else if (target == "/detokenize") {
    route.resource = Resource::kDetokenize;
  } else if (target == "/v1/mcp/tools" || target == "/mcp/tools") {
    route.resource = Resource::kMcpTools;
  } else if (target == "/v1/mcp/servers" || target == "/mcp/servers") {
    route.resource = Resource::kMcpServers;
  } else if (target == "/v1/mcp/execute" || target == "/mcp/execute") {
    route.resource = Resource::kMcpExecute;
  } else if (target == "/v1/responses" || target == "/responses") {
    route = {Resource::kApi, protocol::Api::kResponses, ""};
  } else if (under("/responses/", route.id)) {
    route.resource = Resource::kStoredResponse;
    route.api = protocol::Api::kResponses;
  } else if (under("/models/", route.id)) {
    route.resource = Resource::kModel;
  }
  return route;
}

std::string_view AllowFor(Resource resource) {
  switch (resource) {
    case Resource::kApi:
    case Resource::kTokenize:
    case Resource::kDetokenize:
    case Resource::kMcpExecute:
      return "POST, OPTIONS";
    case Resource::kStoredResponse:
      return "GET, HEAD, DELETE, OPTIONS";
    default:
      return "GET, HEAD, OPTIONS";
  }
}

bool Allows(Resource resource, http::verb method) {
  switch (resource) {
    case Resource::kApi:
    case Resource::kTokenize:
    case Resource::kDetokenize:
    case Resource::kMcpExecute:
      return method == http::verb::post;
    case Resource::kStoredResponse:
      return method == http::verb::get || method == http::verb::head ||
             method == http::verb::delete_;
    default:
      return method == http::verb::get || method == http::verb::head;
  }
}

}  // namespace crux::server
