#include "crux/mcp/policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace crux::mcp {
namespace {

using Json = nlohmann::ordered_json;

TEST(McpGlob, Table) {
  struct Case {
    std::string pattern;
    std::string text;
    bool match;
  };
  const std::vector<Case> cases = {
      {"*", "", true},
      {"*", "fs__read_file", true},
      {"fs__*", "fs__read_file", true},
      {"fs__*", "fsx__read_file", false},
      {"*__read_*", "fs__read_file", true},
      {"*__delete", "fs__delete_all", false},
      {"fs__read_fil?", "fs__read_file", true},
      {"fs__read_fil?", "fs__read_fil", false},
      {"?", "", false},
      {"", "", true},
      {"", "x", false},
      {"a*b*c", "axxbyyc", true},
      {"a*b*c", "axxbyy", false},
      {"**a", "a", true},
      {"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
      {"exact", "exact", true},
      {"exact", "Exact", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(GlobMatch(c.pattern, c.text), c.match) << c.pattern << " ~ " << c.text;
  }
}

Config PolicyConfig() {
  Config config;
  config.deny_tools = {"fs__write*", "*__delete_?"};
  config.allowed_high_risk_tools = {"shell__run_command", " Exec_Tool "};
  return config;
}

struct PolicyCase {
  std::string server;
  std::string tool;
  Json arguments;
  std::string error;  // empty: allowed
};

TEST(McpToolPolicy, Table) {
  const ToolPolicy policy(PolicyConfig());
  const std::vector<PolicyCase> cases = {
      {"fs", "read_file", {{"path", "/tmp/a.txt"}}, ""},
      {"fs", "write_file", Json::object(),
       "Tool 'fs__write_file' is blocked by security policy (deny_tools pattern 'fs__write*')"},
      {"FS", "Write_File", Json::object(), "Tool 'FS__Write_File' is blocked"},
      {"db", "delete_x", Json::object(), "deny_tools pattern '*__delete_?'"},
      {"db", "delete_xy", Json::object(), ""},
      {"ops", "execute_sql", Json::object(),
       "High-risk tool 'execute_sql' is blocked by security policy. Add 'ops__execute_sql' or "
       "'execute_sql' to allowed_high_risk_tools to allow it explicitly."},
      {"sys", "get_system_info", Json::object(), "High-risk tool 'get_system_info'"},
      {"x", "ShellOut", Json::object(), "High-risk tool 'ShellOut'"},
      {"x", "py_eval", Json::object(), "High-risk tool"},
      {"x", "spawn_subprocess", Json::object(), "High-risk tool"},
      {"system", "list", Json::object(), ""},  // only the tool name counts
      {"shell", "run_command", Json::object(), ""},
      {"other", "run_command", Json::object(), "High-risk tool 'run_command'"},
      {"any", "EXEC_TOOL", Json::object(), ""},
      {"fs",
       "read_file",
       {{"path", "../../etc/passwd"}},
       "Tool 'read_file' argument 'path' contains blocked pattern: ../"},
      {"fs",
       "read_file",
       {{"paths", {"/tmp/a", "/etc/shadow"}}},
       "Tool 'read_file' argument 'paths[1]' contains blocked pattern: /etc/"},
      {"fs",
       "read_file",
       {{"opts", {{"deep", {{"p", "/proc/self/environ"}}}}}},
       "argument 'opts.deep.p' contains blocked pattern: /proc/"},
      {"fs", "read_file", {{"a", {{{"b", "/sys/kernel"}}}}}, "argument 'a[0].b' contains"},
      {"fs", "read_file", {{"p", "~root/.ssh"}}, "blocked pattern: ~root"},
      {"fs", "read_file", {{"p", "/root/.bashrc"}}, "blocked pattern: /root/"},
      {"fs", "read_file", {{"p", "/data/.."}}, "argument 'p' contains blocked pattern: .."},
      {"fs", "read_file", {{"p", "..\\secret"}}, "blocked pattern: .."},
      {"fs", "read_file", Json("/etc/passwd"), "argument 'root' contains blocked pattern"},
      {"fs", "read_file", {{"/etc/", "keys are not checked"}}, ""},
      {"fs", "read_file", {{"n", 3}, {"ok", true}, {"x", nullptr}}, ""},
  };
  for (const PolicyCase& c : cases) {
    const Status status = policy.Check(c.server, c.tool, c.arguments);
    if (c.error.empty()) {
      EXPECT_TRUE(status.ok()) << c.server << "__" << c.tool << ": " << status.error().message();
      continue;
    }
    ASSERT_FALSE(status.ok()) << c.server << "__" << c.tool;
    EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(status.error().message().find(c.error), std::string::npos)
        << status.error().message();
  }
}

TEST(McpToolPolicy, AllowListAndCustomPatterns) {
  Config config;
  config.allow_tools = {"fs__read_*", "memory__*"};
  const ToolPolicy policy(config, {"secret"});
  EXPECT_TRUE(policy.Check("fs", "read_file", Json::object()).ok());
  EXPECT_TRUE(policy.Check("memory", "store", {{"p", "/etc/x"}}).ok());
  EXPECT_EQ(policy.Check("fs", "list_dir", Json::object()).error().message(),
            "Tool 'fs__list_dir' is not in the allowed tools list");
  EXPECT_FALSE(policy.Check("FS", "read_file", Json::object()).ok());  // allow is exact
  EXPECT_FALSE(policy.Check("memory", "store", {{"p", "a secret"}}).ok());
}

TEST(McpToolPolicy, DeepArgumentsDoNotExhaustTheStack) {
  Json deep = "/etc/passwd";
  for (int i = 0; i < 100000; ++i) {
    Json outer = Json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  const Status status = ToolPolicy(Config()).Check("fs", "read", deep);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("/etc/"), std::string::npos);
}

TEST(McpAudit, SanitizeForAudit) {
  const std::string long_text(1500, 'x');
  const Json in = {
      {"path", "/tmp/a"},
      {"Password", "hunter2"},
      {"api_key", {{"nested", "value"}}},
      {"AuthHeader", "Bearer x"},
      {"client_credentials", 1},
      {"access_TOKEN", "t"},
      {"mySecret", "s"},
      {"list", {{{"token", "t"}, {"ok", "v"}}, long_text}},
      {"exact", std::string(1000, 'y')},
      {"n", 5},
  };
  const Json out = SanitizeForAudit(in);
  EXPECT_EQ(out["path"], "/tmp/a");
  for (const char* key :
       {"Password", "api_key", "AuthHeader", "client_credentials", "access_TOKEN", "mySecret"}) {
    EXPECT_EQ(out[key], "[REDACTED]") << key;
  }
  EXPECT_EQ(out["list"][0]["token"], "[REDACTED]");
  EXPECT_EQ(out["list"][0]["ok"], "v");
  EXPECT_EQ(out["list"][1], std::string(100, 'x') + "... [truncated, 1500 chars total]");
  EXPECT_EQ(out["exact"], std::string(1000, 'y'));
  EXPECT_EQ(out["n"], 5);
  EXPECT_EQ(in["Password"], "hunter2");  // the input is untouched
}

// Characters are code points, and the cut never splits one (dump() would throw on it).
TEST(McpAudit, TruncatesOnCodePoints) {
  std::string text;
  for (int i = 0; i < 1001; ++i)
    text += "é";
  const Json out = SanitizeForAudit(Json{{"text", text}});
  std::string expected;
  for (int i = 0; i < 100; ++i)
    expected += "é";
  EXPECT_EQ(out["text"], expected + "... [truncated, 1001 chars total]");
  EXPECT_NO_THROW((void)out.dump());
  std::string under;
  for (int i = 0; i < 1000; ++i)
    under += "é";  // 2000 bytes, 1000 characters: kept
  EXPECT_EQ(SanitizeForAudit(Json(under)), under);
}

}  // namespace
}  // namespace crux::mcp
