// Launch-configuration checks (crux/mcp/security.h). Each Check* function returns the first
// violation of one value (or appends one per offending value); Violations() runs them in the
// order runtime.md §3.3 gives: command, arguments, interpreter flags, environment, url, then
// headers and working directory.
#include "crux/mcp/security.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>

namespace crux::mcp {
namespace {

using Finding = std::optional<std::string>;

// The value as a message shows it: control bytes escaped, so a message is one log line.
std::string Printable(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The program an argument names: its basename without an npx-style `@version` (`node@22`).
std::string_view ProgramName(std::string_view arg) {
  const std::string_view base = Basename(arg);
  const size_t at = base.find('@', 1);
  return at == std::string_view::npos ? base : base.substr(0, at);
}

// ---- shared value checks ----

// Line breaks and NUL bytes, which split a value in a log line, a header or an argv entry.
Finding CheckText(std::string_view context, std::string_view value, std::string_view target) {
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return std::string(context) + " contains newline characters. Potential " + std::string(target) +
           " injection blocked.";
  }
  if (value.find('\0') != std::string_view::npos) {
    return std::string(context) + " contains a NUL byte. Potential " + std::string(target) +
           " injection blocked.";
  }
  return std::nullopt;
}

Finding CheckTraversal(std::string_view context, std::string_view value) {
  if (!ContainsPathTraversal(value)) return std::nullopt;
  return std::string(context) + " contains path traversal: '" + Printable(value) + "'.";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecodeOnce(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
        HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// True when a `/`- or `\`-separated segment of `text` is `..`; the overlong UTF-8 forms of
// `.`, `/` and `\` (C0 AE, C0 AF, C1 9C), which lenient decoders accept, count as those.
bool HasDotDotSegment(std::string_view text) {
  std::string folded;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (lead == 0xC0 && (next == 0xAE || next == 0xAF)) {
      folded += next == 0xAE ? '.' : '/';
      ++i;
    } else if (lead == 0xC1 && next == 0x9C) {
      folded += '/';
      ++i;
    } else {
      folded += text[i] == '\\' ? '/' : text[i];
    }
  }
  size_t start = 0;
  while (start <= folded.size()) {
    size_t end = folded.find('/', start);
    if (end == std::string::npos) end = folded.size();
    if (std::string_view(folded).substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

// `>` or `<` followed by optional spaces and `/`: a redirection to an absolute path.
bool HasRedirectToPath(std::string_view value) {
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] != '>' && value[i] != '<') continue;
    size_t j = i + 1;
    while (j < value.size() && (value[j] == ' ' || value[j] == '\t'))
      ++j;
    if (j < value.size() && value[j] == '/') return true;
  }
  return false;
}

bool HasArgumentPattern(std::string_view value) {
  static constexpr std::array<std::string_view, 6> kPatterns = {";", "|", "&&", "`", "$(", "${"};
  return std::any_of(kPatterns.begin(), kPatterns.end(),
                     [&](std::string_view p) { return Contains(value, p); }) ||
         HasRedirectToPath(value);
}

// ---- command ----

bool IsPython3Minor(std::string_view base) {
  if (!base.starts_with("python3.") || base.size() == 8) return false;
  return std::all_of(base.begin() + 8, base.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsAllowedCommand(std::string_view base, const SecurityOptions& options) {
  const std::vector<std::string>& defaults = DefaultAllowedCommands();
  return std::find(defaults.begin(), defaults.end(), base) != defaults.end() ||
         std::find(options.extra_commands.begin(), options.extra_commands.end(), base) !=
             options.extra_commands.end() ||
         IsPython3Minor(base);
}

std::string AllowedCommandList(const SecurityOptions& options) {
  std::set<std::string> names(DefaultAllowedCommands().begin(), DefaultAllowedCommands().end());
  names.insert(options.extra_commands.begin(), options.extra_commands.end());
  std::string list;
  for (const std::string& name : names) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

bool IsExecutableFile(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

Finding CheckCommand(std::string_view command, const SecurityOptions& options) {
  if (Finding f = CheckText("Command", command, "command")) return f;
  if (Finding f = CheckTraversal("Command", command)) return f;
  static constexpr std::array<std::string_view, 9> kPatterns = {";", "|", "&",   "`", "$",
                                                                ">", "<", "../", "~"};
  if (std::any_of(kPatterns.begin(), kPatterns.end(),
                  [&](std::string_view p) { return Contains(command, p); })) {
    return "Command contains dangerous pattern: '" + Printable(command) +
           "'. Command injection attempt blocked.";
  }
  const std::string_view base = Basename(command);
  if (!IsAllowedCommand(base, options)) {
    return "Command '" + Printable(base) +
           "' is not in the allowed commands whitelist. Allowed commands: " +
           AllowedCommandList(options);
  }
  if (Contains(command, "/") && !command.starts_with('/')) {
    return "Command '" + Printable(command) +
           "' must be a bare name found on PATH or an absolute path.";
  }
  if (!options.check_path) return std::nullopt;
  if (Expected<std::string> resolved = ResolveCommand(command, options); !resolved) {
    return resolved.error().message();
  }
  return std::nullopt;
}

// ---- arguments ----

void CheckArgs(const std::vector<std::string>& args, std::vector<std::string>& out) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string context = "Argument " + std::to_string(i);
    Finding f = CheckText(context, args[i], "command");
    if (!f) f = CheckTraversal(context, args[i]);
    if (!f && HasArgumentPattern(args[i])) {
      f = context + " contains dangerous pattern: '" + Printable(args[i]) +
          "'. Potential command injection blocked.";
    }
    if (f) out.push_back(std::move(*f));
  }
}

enum class Family : uint8_t { kNone, kPython, kNode, kNpx, kShell };

Family FamilyOf(std::string_view base) {
  if (base == "python" || base == "python2" || base == "python3" || IsPython3Minor(base) ||
      base == "pypy" || base == "pypy3") {
    return Family::kPython;
  }
  if (base == "node" || base == "nodejs" || base == "bun") return Family::kNode;
  if (base == "npx" || base == "npm") return Family::kNpx;
  static constexpr std::array<std::string_view, 6> kShells = {"sh",   "bash", "zsh",
                                                              "dash", "ksh",  "fish"};
  if (std::find(kShells.begin(), kShells.end(), base) != kShells.end()) return Family::kShell;
  return Family::kNone;
}

// True for `-xyz`: one dash, then letters only.
bool IsShortCluster(std::string_view arg) {
  return arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' &&
         std::all_of(arg.begin() + 1, arg.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); });
}

// Python's short options: `c` anywhere in `-Ic`, `-uc`, `-cprint(1)`, before an option that
// takes the rest of the argument as its value (-m, -W, -X, -Q).
bool IsPythonInline(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  for (const char c : arg.substr(1)) {
    if (c == 'c') return true;
    if (c == 'm' || c == 'W' || c == 'X' || c == 'Q' ||
        !std::isalpha(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return false;
}

bool IsRemoteModule(std::string_view value) {
  const std::string lower = Lower(value);
  return lower.starts_with("data:") || lower.starts_with("http:") || lower.starts_with("https:");
}

bool IsNodeLoaderFlag(std::string_view arg) {
  return arg == "-r" || arg == "--require" || arg == "--import" || arg == "--loader" ||
         arg == "--experimental-loader";
}

const char* NodeFlag(std::string_view arg, std::string_view previous) {
  if (arg == "-e" || arg == "--eval" || arg.starts_with("--eval=")) {
    return "inline JavaScript evaluation";
  }
  if (arg == "-p" || arg == "--print" || arg.starts_with("--print=")) {
    return "JavaScript evaluation/print";
  }
  // Node's boolean short flags combine (`-pe`); clusters of other letters are not node's.
  const bool node_cluster =
      IsShortCluster(arg) && arg.find_first_not_of("ceipv", 1) == std::string_view::npos;
  if (node_cluster && Contains(arg, "e")) return "inline JavaScript evaluation";
  if (node_cluster && Contains(arg, "p")) return "JavaScript evaluation/print";
  const size_t equals = arg.find('=');
  if ((IsNodeLoaderFlag(previous) && IsRemoteModule(arg)) ||
      (equals != std::string_view::npos && IsNodeLoaderFlag(arg.substr(0, equals)) &&
       IsRemoteModule(arg.substr(equals + 1)))) {
    return "loading code from a data: or http(s) URL";
  }
  const std::string_view flag = arg.substr(0, equals);
  if (flag == "--inspect" || flag == "--inspect-brk" || flag == "--inspect-wait") {
    return "a debugger port (remote code execution)";
  }
  return nullptr;
}

// What `arg` makes an interpreter of `family` do that is refused, or nullptr.
const char* EvaluatingFlag(Family family, std::string_view arg, std::string_view previous) {
  switch (family) {
    case Family::kPython:
      return IsPythonInline(arg) ? "inline Python execution" : nullptr;
    case Family::kNode:
      return NodeFlag(arg, previous);
    case Family::kNpx:
      return arg == "-c" || arg == "--call" || arg.starts_with("--call=")
                 ? "shell command execution"
                 : nullptr;
    case Family::kShell:
      return (IsShortCluster(arg) && Contains(arg, "c")) || arg == "--command"
                 ? "shell command execution"
                 : nullptr;
    case Family::kNone:
      return nullptr;
  }
  return nullptr;
}

// Flags of the command's interpreter are refused anywhere in the arguments (as the reference
// does). An argument naming an interpreter (`uv run python`, `npx node`, `docker run img sh`)
// starts a nested one, whose options last until its first operand.
void CheckInterpreterFlags(const ServerConfig& server, std::vector<std::string>& out) {
  std::string_view base = Basename(server.command);
  Family family = FamilyOf(base);
  bool whole_line = true;
  for (size_t i = 0; i < server.args.size(); ++i) {
    const std::string_view arg = server.args[i];
    const std::string_view previous = i > 0 ? std::string_view(server.args[i - 1]) : "";
    if (const char* what = EvaluatingFlag(family, arg, previous)) {
      out.push_back("Argument " + std::to_string(i) + " '" + Printable(arg) + "' enables " + what +
                    " for '" + Printable(base) + "', which is not allowed.");
      continue;
    }
    if (const Family nested = FamilyOf(ProgramName(arg)); nested != Family::kNone) {
      family = nested;
      base = ProgramName(arg);
      whole_line = false;
    } else if (!whole_line && !arg.starts_with('-') && !IsNodeLoaderFlag(previous)) {
      family = Family::kNone;
    }
  }
}

// ---- environment ----

bool IsEnvName(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool IsForbiddenEnv(std::string_view key) {
  static const std::set<std::string, std::less<>> forbidden = {"PATH",
                                                               "PYTHONPATH",
                                                               "PYTHONSTARTUP",
                                                               "PYTHONHOME",
                                                               "NODE_PATH",
                                                               "NODE_OPTIONS",
                                                               "BASH_ENV",
                                                               "ENV",
                                                               "PERL5OPT",
                                                               "PERL5LIB",
                                                               "RUBYOPT",
                                                               "GCONV_PATH",
                                                               "IFS",
                                                               "SHELLOPTS",
                                                               "BASHOPTS",
                                                               "NPM_CONFIG_CALL",
                                                               "NPM_CONFIG_SHELL",
                                                               "NPM_CONFIG_SCRIPT_SHELL",
                                                               "NPM_CONFIG_NODE_OPTIONS"};
  const std::string upper = Upper(key);
  return forbidden.count(upper) > 0 || upper.starts_with("LD_") || upper.starts_with("DYLD_");
}

void CheckEnv(const std::map<std::string, std::string>& env, std::vector<std::string>& out) {
  for (const auto& [key, value] : env) {
    const std::string context = "Environment variable '" + Printable(key) + "'";
    Finding f;
    if (!IsEnvName(key)) {
      f = "Environment variable name '" + Printable(key) +
          "' is not valid (letters, digits and '_', not starting with a digit).";
    }
    if (!f) f = CheckText(context, value, "command");
    if (!f) f = CheckTraversal(context, value);
    if (!f && IsForbiddenEnv(key)) {
      f = "Setting '" + key + "' environment variable is not allowed for security reasons.";
    }
    if (!f && HasArgumentPattern(value)) {
      f = context + " contains dangerous pattern. Potential injection blocked.";
    }
    if (f) out.push_back(std::move(*f));
  }
}

// ---- url, headers, cwd ----

struct UrlParts {
  std::string_view authority;  // between `//` and the path, query or fragment
  std::string_view path;
};

UrlParts SplitUrl(std::string_view url) {
  const size_t start = url.find("://") + 3;
  const size_t end = std::min(url.find_first_of("/?#", start), url.size());
  const size_t path_end = std::min(url.find_first_of("?#", end), url.size());
  return {url.substr(start, end - start), url.substr(end, path_end - end)};
}

// host[:port] with host a name ([A-Za-z0-9._-]) or a bracketed IPv6 address.
bool IsValidAuthority(std::string_view authority) {
  std::string_view host = authority;
  std::string_view port;
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    const bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(std::string(port)) > 65535) return false;
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
    });
  }
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
}

Finding CheckUrl(std::string_view url) {
  if (Finding f = CheckText("URL", url, "command")) return f;
  const std::string lower = Lower(url);
  if (!lower.starts_with("http://") && !lower.starts_with("https://")) {
    return "URL must use http:// or https:// scheme. Got: " + Printable(url);
  }
  const UrlParts parts = SplitUrl(url);
  if (Contains(parts.authority, "@")) {
    return std::string("URL must not contain user information (user:password@); ") +
           "put credentials in 'headers'.";
  }
  if (parts.authority.empty()) return "URL has no host: " + Printable(url);
  if (!IsValidAuthority(parts.authority)) {
    return "URL has an invalid host or port: " + Printable(url);
  }
  if (Finding f = CheckTraversal("URL", parts.path)) return f;
  static constexpr std::array<std::string_view, 9> kPatterns = {";", "|", "&&",  "`", "$(",
                                                                ">", "<", "../", "~"};
  if (std::any_of(kPatterns.begin(), kPatterns.end(),
                  [&](std::string_view p) { return Contains(url, p); })) {
    return "URL contains dangerous pattern: " + Printable(url);
  }
  return std::nullopt;
}

bool IsHeaderToken(std::string_view name) {
  static constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           kSymbols.find(c) != std::string_view::npos;
  });
}

void CheckHeaders(const std::map<std::string, std::string>& headers,
                  std::vector<std::string>& out) {
  static const std::set<std::string, std::less<>> reserved = {
      "host",         "content-length", "transfer-encoding",
      "connection",   "upgrade",        "te",
      "trailer",      "keep-alive",     "accept",
      "content-type", "mcp-session-id", "mcp-protocol-version",
      "mcp-method",   "mcp-name"};
  for (const auto& [name, value] : headers) {
    const std::string context = "Header '" + Printable(name) + "'";
    Finding f;
    if (!IsHeaderToken(name)) f = context + " is not a valid HTTP header name.";
    if (!f && reserved.count(Lower(name)) > 0) {
      f = context + " is set by the transport and cannot be configured.";
    }
    if (!f) f = CheckText(context, value, "header");
    if (f) out.push_back(std::move(*f));
  }
}

Finding CheckCwd(std::string_view cwd, const SecurityOptions& options) {
  const std::string context = "Working directory";
  if (Finding f = CheckText(context, cwd, "command")) return f;
  if (Finding f = CheckTraversal(context, cwd)) return f;
  if (!cwd.starts_with('/')) {
    return "Working directory '" + Printable(cwd) + "' must be an absolute path.";
  }
  struct stat info {};
  if (options.check_path &&
      (::stat(std::string(cwd).c_str(), &info) != 0 || !S_ISDIR(info.st_mode))) {
    return "Working directory '" + Printable(cwd) + "' does not exist or is not a directory.";
  }
  return std::nullopt;
}

// Every violation of `server`, unprefixed, in rule order.
std::vector<std::string> Violations(const ServerConfig& server, const SecurityOptions& options) {
  std::vector<std::string> out;
  auto add = [&](Finding f) {
    if (f) out.push_back(std::move(*f));
  };
  if (!server.command.empty()) add(CheckCommand(server.command, options));
  CheckArgs(server.args, out);
  if (!server.command.empty()) CheckInterpreterFlags(server, out);
  CheckEnv(server.env, out);
  if (!server.url.empty()) add(CheckUrl(server.url));
  CheckHeaders(server.headers, out);
  if (!server.cwd.empty()) add(CheckCwd(server.cwd, options));
  return out;
}

std::string Prefix(const ServerConfig& server) {
  return "MCP server '" + server.name + "': ";
}

bool IsLoopbackHost(std::string_view authority) {
  const size_t colon = authority.rfind(':');
  std::string host(
      authority.substr(0, authority.starts_with('[') ? authority.find(']') + 1 : colon));
  host = Lower(host);
  return host == "localhost" || host.ends_with(".localhost") || host.starts_with("127.") ||
         host == "[::1]";
}

}  // namespace

SecurityOptions SecurityOptionsFromEnv() {
  SecurityOptions options;
  const char* value = std::getenv(std::string(kAllowUnsafeEnv).c_str());
  options.allow_unsafe = value != nullptr && std::string_view(value) == "1";
  return options;
}

const std::vector<std::string>& DefaultAllowedCommands() {
  static const std::vector<std::string> commands = {
      "docker",
      "mcp-server-brave-search",
      "mcp-server-fetch",
      "mcp-server-filesystem",
      "mcp-server-github",
      "mcp-server-google-maps",
      "mcp-server-memory",
      "mcp-server-postgres",
      "mcp-server-puppeteer",
      "mcp-server-slack",
      "mcp-server-sqlite",
      "node",
      "npm",
      "npx",
      "pip",
      "pipx",
      "python",
      "python3",
      "uv",
      "uvx",
  };
  return commands;
}

Status ValidateServer(const ServerConfig& server, const SecurityOptions& options) {
  if (options.allow_unsafe) return {};
  std::vector<std::string> violations = Violations(server, options);
  if (violations.empty()) return {};
  return Error(ErrorCode::kInvalidArgument, Prefix(server) + violations.front());
}

std::vector<std::string> SecurityWarnings(const ServerConfig& server,
                                          const SecurityOptions& options) {
  std::vector<std::string> warnings;
  if (options.allow_unsafe) {
    for (const std::string& violation : Violations(server, options)) {
      warnings.push_back(Prefix(server) + "security validation bypassed (" +
                         std::string(kAllowUnsafeEnv) + "=1): " + violation);
    }
  }
  const std::string lower = Lower(server.url);
  if (lower.starts_with("http://") && !IsLoopbackHost(SplitUrl(server.url).authority)) {
    warnings.push_back(Prefix(server) + "URL uses unencrypted http:// to a host other than " +
                       "loopback: " + Printable(server.url));
  }
  return warnings;
}

Expected<std::string> ResolveCommand(std::string_view command, const SecurityOptions& options) {
  const std::string name(command);
  if (command.starts_with('/')) {
    if (IsExecutableFile(name)) return name;
    return Error(ErrorCode::kNotFound, "Command '" + Printable(command) +
                                           "' does not exist or is not an executable file.");
  }
  if (command.empty() || Contains(command, "/")) {
    return Error(ErrorCode::kInvalidArgument,
                 "Command '" + Printable(command) +
                     "' must be a bare name found on PATH or an absolute path.");
  }
  std::string path = options.path_env;
  if (path.empty()) {
    const char* env = std::getenv("PATH");
    path = env != nullptr ? env : "";
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    // Empty and relative entries would resolve against the working directory.
    if (dir.starts_with('/') && IsExecutableFile(dir + "/" + name)) return dir + "/" + name;
    start = end + 1;
  }
  return Error(ErrorCode::kNotFound, "Command '" + Printable(command) +
                                         "' not found in PATH. Ensure the command is " +
                                         "installed and accessible.");
}

bool ContainsPathTraversal(std::string_view value) {
  std::string current(value);
  // The value, then up to three rounds of percent-decoding (`%252e` → `%2e` → `.`).
  for (int round = 0; round < 4; ++round) {
    if (HasDotDotSegment(current)) return true;
    std::string decoded = PercentDecodeOnce(current);
    if (decoded == current) break;
    current = std::move(decoded);
  }
  return false;
}

}  // namespace crux::mcp
