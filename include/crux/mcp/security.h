// Launch security: validation of a server's launch configuration before crux starts or
// contacts it (runtime.md §3.3, with its corrections).
//
// A stdio server's command, arguments, environment and working directory, and an http
// server's URL and headers, are checked in that order; the first violation is the error, its
// message prefixed "MCP server '<name>': ". The rules:
// - every value: no newline, carriage return or NUL byte;
// - path traversal: no `..` path segment in a value or in its percent-decoded forms (`%2e`,
//   `%2f`, `%5c`, double-encoded `%252e`, overlong UTF-8), with `\` read as `/`;
// - command: no shell metacharacters (`;` `|` `&` backtick `$` `>` `<` `~` `../`); its basename
//   on the allow-list (DefaultAllowedCommands() plus SecurityOptions::extra_commands); a bare
//   name must resolve on PATH to an executable file, an absolute path must be one, and a
//   relative path with a `/` is refused;
// - arguments: no `;` `|` `&&` backtick `$(` `${`, and no redirection to a path (`> /x`);
//   no flag that makes an interpreter named by the command or an earlier argument evaluate
//   code (python -c, node/bun -e/-p/--eval/--print, npx/npm -c/--call, sh/bash/... -c),
//   load code from a data: or http(s) URL (node -r/--require/--import/--loader), or open a
//   debugger port (node --inspect);
// - environment: names are ^[A-Za-z_][A-Za-z0-9_]*$ and not ones that change what the child
//   loads or runs (LD_*, DYLD_*, PATH, PYTHONPATH, NODE_OPTIONS, BASH_ENV, …; any case);
//   values pass the argument patterns;
// - url: http or https with a host (no user info), no traversal in its path, no `;` `|` `&&`
//   backtick `$(` `>` `<` `~`; header names are tokens the transport does not own;
// - cwd: an absolute path to an existing directory (existence checked with check_path).
//
// The development bypass (SecurityOptions::allow_unsafe, from CRUX_MCP_ALLOW_UNSAFE=1) skips
// every rule; the caller must then log each of SecurityWarnings() loudly.
//
// Thread-safety: every function is reentrant. ValidateServer touches the file system (stat,
// access) for the command and cwd checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/mcp/config.h"

namespace crux::mcp {

struct SecurityOptions {
  // Skip every launch check (development only; see SecurityWarnings).
  bool allow_unsafe = false;
  // Basenames allowed as commands besides DefaultAllowedCommands().
  std::vector<std::string> extra_commands;
  // Require commands to exist: bare names on PATH, absolute paths as executable files. Tests
  // that validate configurations of machines other than this one turn it off.
  bool check_path = true;
  // PATH used to resolve bare command names; empty: the process's PATH.
  std::string path_env;
};

// The environment variable that turns the development bypass on when exactly "1".
inline constexpr std::string_view kAllowUnsafeEnv = "CRUX_MCP_ALLOW_UNSAFE";

// Default options, with allow_unsafe read from CRUX_MCP_ALLOW_UNSAFE.
SecurityOptions SecurityOptionsFromEnv();

// The command basenames allowed by default, sorted.
const std::vector<std::string>& DefaultAllowedCommands();

// Checks `server` against every rule above; ok under allow_unsafe.
Status ValidateServer(const ServerConfig& server, const SecurityOptions& options);

// What the caller must log at warning level when it launches `server`: under allow_unsafe,
// "Security validation bypassed (CRUX_MCP_ALLOW_UNSAFE=1): " and each violation skipped;
// otherwise advisories that are not errors (plain http to a host other than loopback).
std::vector<std::string> SecurityWarnings(const ServerConfig& server,
                                          const SecurityOptions& options);

// The executable a stdio server's `command` names: an absolute path as given, a bare name
// looked up in options.path_env (or PATH), skipping empty and relative entries. kNotFound when
// nothing executable is found. A launcher should exec this path, so that what runs is what
// was validated.
Expected<std::string> ResolveCommand(std::string_view command, const SecurityOptions& options);

// True when `value` or one of its percent-decoded forms has a `..` path segment (`\` counts
// as `/`).
bool ContainsPathTraversal(std::string_view value);

}  // namespace crux::mcp
