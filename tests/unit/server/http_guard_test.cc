#include "server/http_guard.h"

#include <gtest/gtest.h>

namespace crux::server {
namespace {

TEST(HostNameOf, Authorities) {
  EXPECT_EQ(HostNameOf("localhost:8000"), "localhost");
  EXPECT_EQ(HostNameOf("LocalHost"), "localhost");
  EXPECT_EQ(HostNameOf("[::1]:8000"), "::1");
  EXPECT_EQ(HostNameOf("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(HostNameOf("example.com."), "example.com");
  EXPECT_EQ(HostNameOf(""), std::nullopt);
  EXPECT_EQ(HostNameOf(":80"), std::nullopt);
  EXPECT_EQ(HostNameOf("a:b:c"), std::nullopt);
  EXPECT_EQ(HostNameOf("host:port"), std::nullopt);
  EXPECT_EQ(HostNameOf("[::1"), std::nullopt);
  EXPECT_EQ(HostNameOf("evil.example/x"), std::nullopt);
  EXPECT_EQ(HostNameOf("user@evil.example"), std::nullopt);
}

// Bound to loopback, only loopback names pass by default: a DNS-rebinding name that
// resolves to 127.0.0.1 is still refused because the browser sends that name as Host.
TEST(HostPolicy, LoopbackDefaults) {
  const HostPolicy p = HostPolicy::For("127.0.0.1", {}, {});
  EXPECT_EQ(p.CheckHost("localhost:8000"), std::nullopt);
  EXPECT_EQ(p.CheckHost("127.0.0.1:8000"), std::nullopt);
  EXPECT_EQ(p.CheckHost("[::1]:8000"), std::nullopt);
  EXPECT_EQ(p.CheckHost("app.localhost"), std::nullopt);
  ASSERT_NE(p.CheckHost("attacker.example:8000"), std::nullopt);
  EXPECT_NE(p.CheckHost("attacker.example:8000")->find("--allowed-hosts"), std::string::npos);
  EXPECT_NE(p.CheckHost("localhost.attacker.example"), std::nullopt);
  EXPECT_NE(p.CheckHost("127.0.0.2"), std::nullopt);
  EXPECT_EQ(p.CheckOrigin("http://localhost:3000"), std::nullopt);
  EXPECT_NE(p.CheckOrigin("https://evil.example"), std::nullopt);
  EXPECT_NE(p.CheckOrigin("null"), std::nullopt);
  EXPECT_NE(p.CheckOrigin("file://"), std::nullopt);
  EXPECT_FALSE(p.CorsAllowed("http://localhost:3000"));
}

TEST(HostPolicy, BoundAddressAndExtraHosts) {
  const HostPolicy p = HostPolicy::For("127.0.0.5", {"models.internal", "*.corp.example"}, {});
  EXPECT_EQ(p.CheckHost("127.0.0.5:9000"), std::nullopt);
  EXPECT_EQ(p.CheckHost("models.internal"), std::nullopt);
  EXPECT_EQ(p.CheckHost("a.corp.example"), std::nullopt);
  EXPECT_NE(p.CheckHost("corp.example.evil"), std::nullopt);
  EXPECT_EQ(HostPolicy::For("::1", {}, {}).CheckHost("[::1]:1"), std::nullopt);
}

TEST(HostPolicy, BoundElsewhereAcceptsAnyHostUnlessConfigured) {
  EXPECT_EQ(HostPolicy::For("0.0.0.0", {}, {}).CheckHost("whatever.example"), std::nullopt);
  EXPECT_EQ(HostPolicy::For("0.0.0.0", {}, {}).Describe(), "*");
  const HostPolicy p = HostPolicy::For("0.0.0.0", {"api.example"}, {});
  EXPECT_EQ(p.CheckHost("api.example:443"), std::nullopt);
  EXPECT_NE(p.CheckHost("whatever.example"), std::nullopt);
  EXPECT_EQ(HostPolicy::For("127.0.0.1", {"*"}, {}).CheckHost("x.example"), std::nullopt);
}

TEST(HostPolicy, CorsOrigins) {
  const HostPolicy p = HostPolicy::For("127.0.0.1", {}, {"http://App.example:3000/", "null"});
  EXPECT_TRUE(p.CorsAllowed("http://app.example:3000"));
  EXPECT_EQ(p.CheckOrigin("http://app.example:3000"), std::nullopt);
  EXPECT_EQ(p.CheckOrigin("null"), std::nullopt);
  EXPECT_FALSE(p.CorsAllowed("http://app.example:3001"));
  EXPECT_NE(p.CheckOrigin("http://app.example:3001"), std::nullopt);
  EXPECT_TRUE(HostPolicy::For("127.0.0.1", {}, {"*"}).CorsAllowed("https://any.example"));
}

TEST(JsonContentType, OnlyJsonPasses) {
  EXPECT_EQ(CheckJsonContentType("application/json"), std::nullopt);
  EXPECT_EQ(CheckJsonContentType("Application/JSON; charset=utf-8"), std::nullopt);
  EXPECT_EQ(CheckJsonContentType("application/vnd.api+json"), std::nullopt);
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded",
                           "multipart/form-data; boundary=x", "application/jsonx", ""}) {
    ASSERT_NE(CheckJsonContentType(type), std::nullopt) << type;
    EXPECT_NE(CheckJsonContentType(type)->find("application/json"), std::string::npos);
  }
  ASSERT_NE(CheckJsonContentType(std::nullopt), std::nullopt);
  EXPECT_NE(CheckJsonContentType(std::nullopt)->find("none was sent"), std::string::npos);
}

}  // namespace
}  // namespace crux::server
