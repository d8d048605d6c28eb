// The asset table of a binary built without the chat page (CRUX_WEBUI_SOURCE unset): GET /
// then answers one line of text naming the endpoints, and /ui/… is a 404.
#include "server/webui.h"

namespace crux::server {

std::span<const WebAsset> WebAssets() {
  return {};
}

}  // namespace crux::server
