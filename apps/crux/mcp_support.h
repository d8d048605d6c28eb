// What `crux mcp` and `crux serve --mcp-config` share: loading a config, starting its servers,
// and logging the manager's lines and audit records through spdlog.
#pragma once

#include <memory>
#include <string>

#include "crux/base/error.h"
#include "crux/mcp/manager.h"

namespace crux::app {

// Loads `config_path` (security options from the environment: CRUX_MCP_ALLOW_UNSAFE), starts
// every enabled server, and returns the running manager. Errors: the config's.
Expected<std::shared_ptr<mcp::Manager>> StartMcpManager(const std::string& config_path);

}  // namespace crux::app
