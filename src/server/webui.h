// The browser chat page that `crux serve` answers at GET / and GET /ui/…: its files, embedded
// in the binary when it is built (web/build.mjs generates the table that defines WebAssets()),
// and the HTTP negotiation they need (gzip, ETag revalidation, the page's security headers).
// Everything here is immutable and thread-safe; lookups are linear over a handful of files.
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace crux::server {

// One file of the page. Every view points into static storage of the generated table.
struct WebAsset {
  std::string_view path;          // "/", "/ui/app.js", "/ui/app.css"
  std::string_view content_type;  // "text/html; charset=utf-8", "text/javascript; charset=utf-8"
  std::string_view identity;      // the bytes
  std::string_view gzip;          // the same bytes, gzip-compressed
  std::string_view etag;          // quoted strong ETag of the bytes: "\"3f2a9c…\""
};

// The chat page's files, embedded at build time (web/build.mjs); empty when this binary was
// built without them. Defined by the generated source, or by webui_none.cc.
std::span<const WebAsset> WebAssets();

// The asset of `assets` whose path is `path` (exact, case-sensitive); nullptr when absent.
const WebAsset* FindWebAsset(std::span<const WebAsset> assets, std::string_view path);
// The same in WebAssets().
const WebAsset* FindWebAsset(std::string_view path);

// Whether an Accept-Encoding header value admits gzip: an entry "gzip" or "x-gzip"
// (case-insensitive) with a non-zero q-value, or else "*" with one. An explicit entry wins
// over "*" ("gzip;q=0, *" refuses gzip). An empty value admits nothing but identity.
bool AcceptsGzip(std::string_view accept_encoding);

// Whether an If-None-Match header value matches `etag`: "*", or any entity-tag of its list,
// compared weakly as RFC 9110 requires for If-None-Match (W/ prefixes are ignored on both
// sides). A malformed list matches nothing from the first malformed entry on.
bool EtagMatches(std::string_view if_none_match, std::string_view etag);

// A response header field.
struct WebHeaderField {
  std::string_view name;
  std::string_view value;
};

// The fields every page response (200, 304, HEAD) carries: the page loads only its own
// scripts, styles and API (no inline code, no framing, no referrer), and is revalidated on
// every load (its ETag makes that a 304).
inline constexpr std::array<WebHeaderField, 5> kWebPageHeaders = {{
    {"Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src "
     "'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
    {"X-Content-Type-Options", "nosniff"},
    {"X-Frame-Options", "DENY"},
    {"Referrer-Policy", "no-referrer"},
    {"Cache-Control", "no-cache"},
}};

}  // namespace crux::server
