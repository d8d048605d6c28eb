// Conversion between template values and JSON (nlohmann): a request's messages and tools
// become a template context; JSON objects keep their key order.
#pragma once

#include <nlohmann/json.hpp>

#include "crux/chat_template/value.h"

namespace crux::chat_template {

// JSON → Value: objects become dicts (in order), arrays lists, null none.
Value FromJson(const nlohmann::ordered_json& json);

}  // namespace crux::chat_template
