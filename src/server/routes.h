// The resources the server answers, the methods each accepts, and which protocol's error
// shape a target gets.
#pragma once

#include <boost/beast/http/verb.hpp>
#include <string>
#include <string_view>

#include "crux/protocol/codec.h"

namespace crux::server {

enum class Resource {
  kNone,
  kRoot,
  kWebAsset,  // a file of the chat page, under /ui/
  kHealth,
  kMetrics,
  kModels,
  kModel,
  kApi,
  kStoredResponse,
  kTokenize,
  kDetokenize,
  kMcpTools,
  kMcpServers,
  kMcpExecute,
};

struct Route {
  Resource resource = Resource::kNone;
  protocol::Api api = protocol::Api::kChatCompletions;  // kApi, kStoredResponse
  std::string id;  // kModel, kStoredResponse; kWebAsset: the whole path ("/ui/app.js")
};

// The route of a request target (without its query); the /v1 prefix is optional.
Route RouteFor(std::string_view target);

// The methods a resource answers, for `Allow` (HEAD wherever GET is; OPTIONS everywhere).
std::string_view AllowFor(Resource resource);
bool Allows(Resource resource, boost::beast::http::verb method);

// The protocol whose error shape a target gets when it matches no route, or before routing.
protocol::Api ApiForTarget(std::string_view target);

}  // namespace crux::server
