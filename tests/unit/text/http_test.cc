#include "crux/text/http.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace crux::text {
namespace {

TEST(HttpUrlTest, SplitsHostPortAndTarget) {
  auto url = ParseHttpUrl("http://127.0.0.1:8080/v1?x=1");
  ASSERT_TRUE(url.ok()) << url.error().message();
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, "8080");
  EXPECT_EQ(url->authority, "127.0.0.1:8080");
  EXPECT_EQ(url->target, "/v1?x=1");
  auto v6 = ParseHttpUrl("HTTP://[::1]");
  ASSERT_TRUE(v6.ok()) << v6.error().message();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "80");
  EXPECT_EQ(v6->target, "/");
}

TEST(HttpUrlTest, RefusesWhatItCannotReach) {
  auto https = ParseHttpUrl("https://example.com/");
  ASSERT_FALSE(https.ok());
  EXPECT_EQ(https.error().code(), ErrorCode::kUnsupported);
  for (const char* bad : {"ftp://host/x", "http://", "http://user@host/", "http://host:/",
                          "http://host:123456/", "http://[::1/"}) {
    auto url = ParseHttpUrl(bad);
    ASSERT_FALSE(url.ok()) << bad;
    EXPECT_EQ(url.error().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

// Every way to cut the stream into two or three pieces gives the same events.
TEST(SseParserTest, EveryCutGivesTheSameEvents) {
  const std::string stream =
      "id: p\r\ndata:\r\n\r\n: comment\nevent: message\nid: 1\ndata: {\"a\":1}\n\n"
      "data: x\ndata: y\r\rretry: 5\nevent: other\ndata:z\n\n";
  const std::vector<std::string> expected = {"message {\"a\":1}", "message x\ny", "other z"};
  for (size_t i = 0; i <= stream.size(); ++i) {
    for (size_t j = i; j <= stream.size(); ++j) {
      std::vector<std::string> events;
      SseParser parser(1000, [&](std::string_view type, std::string_view data) {
        events.push_back(std::string(type) + " " + std::string(data));
      });
      ASSERT_TRUE(parser.Feed(std::string_view(stream).substr(0, i)).ok());
      ASSERT_TRUE(parser.Feed(std::string_view(stream).substr(i, j - i)).ok());
      ASSERT_TRUE(parser.Feed(std::string_view(stream).substr(j)).ok());
      EXPECT_EQ(events, expected) << i << " " << j;
    }
  }
}

TEST(SseParserTest, AnEventAboveTheLimitIsAnError) {
  SseParser parser(16, [](std::string_view, std::string_view) {});
  EXPECT_TRUE(parser.Feed("data: 0123456789\n").ok());
  const Status over = parser.Feed("data: 0123456789\n");
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code(), ErrorCode::kLimit);
  SseParser unterminated(16, [](std::string_view, std::string_view) {});
  EXPECT_FALSE(unterminated.Feed(std::string(40, 'x')).ok());
}

}  // namespace
}  // namespace crux::text
