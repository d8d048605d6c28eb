#include "server/webui.h"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include "server/routes.h"

namespace crux::server {
namespace {

TEST(WebUiAcceptsGzip, Codings) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("GZIP"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br, zstd"));  // what browsers send
  EXPECT_TRUE(AcceptsGzip("deflate, gzip;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("br ,\tgzip ; q=1.000"));
  EXPECT_TRUE(AcceptsGzip("gzip;Q=0.001"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("br"));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
  EXPECT_FALSE(AcceptsGzip(" , ,"));
}

TEST(WebUiAcceptsGzip, ZeroWeightRefuses) {
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000"));
  EXPECT_FALSE(AcceptsGzip("GZip;q=0."));
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
  EXPECT_FALSE(AcceptsGzip("br, gzip;q=0"));
  // An explicit entry wins over "*", either way.
  EXPECT_FALSE(AcceptsGzip("gzip;q=0, *"));
  EXPECT_TRUE(AcceptsGzip("*;q=0, gzip"));
  // A malformed weight does not admit gzip (identity always works).
  EXPECT_FALSE(AcceptsGzip("gzip;q=x"));
  EXPECT_FALSE(AcceptsGzip("gzip;q="));
}

TEST(WebUiEtagMatches, Lists) {
  const std::string_view etag = "\"3f2a9c\"";
  EXPECT_TRUE(EtagMatches("*", etag));
  EXPECT_TRUE(EtagMatches(" * ", etag));
  EXPECT_TRUE(EtagMatches("\"3f2a9c\"", etag));
  EXPECT_TRUE(EtagMatches("\"a\", \"3f2a9c\"", etag));
  EXPECT_TRUE(EtagMatches("\"a\",\"b\",\t\"3f2a9c\"", etag));
  EXPECT_TRUE(EtagMatches("\"a,b\", \"3f2a9c\"", etag));  // a comma inside a tag
  EXPECT_FALSE(EtagMatches("\"3f2a9d\"", etag));
  EXPECT_FALSE(EtagMatches("\"a\", \"b\"", etag));
  EXPECT_FALSE(EtagMatches("3f2a9c", etag));  // unquoted
  EXPECT_FALSE(EtagMatches("", etag));
  EXPECT_FALSE(EtagMatches("   ", etag));
  EXPECT_FALSE(EtagMatches("\"3f2a9c", etag));  // unterminated
  EXPECT_FALSE(EtagMatches("\"3f2a9\"", etag));
}

// If-None-Match compares weakly (RFC 9110 13.1.2): W/ is ignored on either side.
TEST(WebUiEtagMatches, WeakCompareWeakly) {
  EXPECT_TRUE(EtagMatches("W/\"3f2a9c\"", "\"3f2a9c\""));
  EXPECT_TRUE(EtagMatches("\"x\", W/\"3f2a9c\"", "\"3f2a9c\""));
  EXPECT_TRUE(EtagMatches("\"3f2a9c\"", "W/\"3f2a9c\""));
  EXPECT_FALSE(EtagMatches("W/\"3f2a9d\"", "\"3f2a9c\""));
}

constexpr std::array<WebAsset, 2> kHandMade = {{
    {"/", "text/html; charset=utf-8", "<!doctype html>", "\x1f\x8b", "\"1\""},
    {"/ui/app.js", "text/javascript; charset=utf-8", "main()", "\x1f\x8b", "\"2\""},
}};

TEST(WebUiFindWebAsset, HandMadeTable) {
  ASSERT_NE(FindWebAsset(kHandMade, "/"), nullptr);
  EXPECT_EQ(FindWebAsset(kHandMade, "/")->identity, "<!doctype html>");
  ASSERT_NE(FindWebAsset(kHandMade, "/ui/app.js"), nullptr);
  EXPECT_EQ(FindWebAsset(kHandMade, "/ui/app.js")->etag, "\"2\"");
  EXPECT_EQ(FindWebAsset(kHandMade, "/ui/App.js"), nullptr);
  EXPECT_EQ(FindWebAsset(kHandMade, "/ui/"), nullptr);
  EXPECT_EQ(FindWebAsset(kHandMade, ""), nullptr);
  EXPECT_EQ(FindWebAsset({}, "/"), nullptr);
}

// The table this binary embeds (empty without the page): an unknown path is absent, and
// every file is one the routes reach, with a type, bytes, a gzip stream and a quoted ETag.
TEST(WebUiFindWebAsset, EmbeddedTable) {
  EXPECT_EQ(FindWebAsset("/ui/no-such-file.js"), nullptr);
  EXPECT_EQ(FindWebAsset("/index.html"), nullptr);
  for (const WebAsset& asset : WebAssets()) {
    SCOPED_TRACE(asset.path);
    EXPECT_TRUE(asset.path == "/" || asset.path.starts_with("/ui/"));
    EXPECT_EQ(FindWebAsset(asset.path), &asset);
    EXPECT_FALSE(asset.content_type.empty());
    EXPECT_FALSE(asset.identity.empty());
    EXPECT_TRUE(asset.gzip.starts_with("\x1f\x8b"));
    EXPECT_TRUE(asset.etag.size() > 2 && asset.etag.starts_with('"') && asset.etag.ends_with('"'));
  }
}

TEST(WebUiRouteFor, PageFiles) {
  EXPECT_EQ(RouteFor("/").resource, Resource::kRoot);
  const Route asset = RouteFor("/ui/app.js");
  EXPECT_EQ(asset.resource, Resource::kWebAsset);
  EXPECT_EQ(asset.id, "/ui/app.js");
  EXPECT_EQ(RouteFor("/ui/").resource, Resource::kWebAsset);
  EXPECT_EQ(RouteFor("/ui").resource, Resource::kNone);
  EXPECT_EQ(RouteFor("/v1/ui/app.js").resource, Resource::kNone);
  EXPECT_EQ(RouteFor("/index.html").resource, Resource::kNone);
  EXPECT_EQ(AllowFor(Resource::kWebAsset), "GET, HEAD, OPTIONS");
  EXPECT_TRUE(Allows(Resource::kWebAsset, boost::beast::http::verb::head));
  EXPECT_FALSE(Allows(Resource::kWebAsset, boost::beast::http::verb::post));
}

}  // namespace
}  // namespace crux::server
