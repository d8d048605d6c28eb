// What the MCP tests that run real servers share: whether the peers can run here (node on
// PATH and the e2e node_modules named by CRUX_MCP_NODE_MODULES, which `npm ci` in tests/e2e
// installs), and the skip when they cannot.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace crux::mcp::peers {

// Why the peers cannot run here, or "" when they can. Computed once.
inline const std::string& MissingPeers() {
  namespace fs = std::filesystem;
  static const std::string missing = [] {
    const char* modules = std::getenv("CRUX_MCP_NODE_MODULES");
    if (modules == nullptr || *modules == '\0') {
      return std::string("CRUX_MCP_NODE_MODULES is not set");
    }
    for (const char* package : {"sdk", "server-everything", "server-memory"}) {
      if (!fs::exists(fs::path(modules) / "@modelcontextprotocol" / package)) {
        return "no @modelcontextprotocol/" + std::string(package) + " in " + std::string(modules) +
               " (run npm ci in tests/e2e)";
      }
    }
    const char* path = std::getenv("PATH");
    const std::string dirs = path != nullptr ? path : "";
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const fs::path node = fs::path(dirs.substr(start, end - start)) / "node";
      if (!node.parent_path().empty() && access(node.c_str(), X_OK) == 0) return std::string();
      start = end + 1;
    }
    return std::string("node is not on PATH");
  }();
  return missing;
}

// The node_modules directory of the peers (valid when MissingPeers() is "").
inline std::string NodeModules() {
  const char* modules = std::getenv("CRUX_MCP_NODE_MODULES");
  return modules != nullptr ? modules : "";
}

}  // namespace crux::mcp::peers

#define REQUIRE_PEERS()                                                       \
  do {                                                                        \
    const std::string& crux_missing = ::crux::mcp::peers::MissingPeers();     \
    if (!crux_missing.empty()) GTEST_SKIP() << "MCP peers: " << crux_missing; \
  } while (false)
