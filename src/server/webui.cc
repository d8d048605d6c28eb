#include "server/webui.h"

#include <optional>

namespace crux::server {
namespace {

constexpr std::string_view kSpace = " \t";  // OWS (RFC 9110 5.6.3)

std::string_view Trim(std::string_view s) {
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

bool AsciiIEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Whether a qvalue ("0", "0.5", "1.000": RFC 9110 12.4.2) is above zero; false when malformed.
bool PositiveQValue(std::string_view q) {
  if (q.empty() || (q[0] != '0' && q[0] != '1')) return false;
  if (q.size() == 1) return q[0] == '1';
  if (q[1] != '.' || q.size() > 5) return false;
  bool positive = q[0] == '1';
  for (const char c : q.substr(2)) {
    if (c < '0' || c > '9') return false;
    positive = positive || c != '0';
  }
  return positive;
}

// Whether an Accept-Encoding entry with these parameters ("q=0.5", after the coding's ';')
// is acceptable: its q-value is above zero, or it has none (q=1).
bool WeightAdmits(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    const std::string_view param = params.substr(0, semi);
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && AsciiIEquals(Trim(param.substr(0, eq)), "q")) {
      return PositiveQValue(Trim(param.substr(eq + 1)));
    }
  }
  return true;
}

// An entity-tag's opaque part (quotes included), without its weak prefix.
std::string_view OpaqueTag(std::string_view etag) {
  return etag.starts_with("W/") ? etag.substr(2) : etag;
}

}  // namespace

const WebAsset* FindWebAsset(std::span<const WebAsset> assets, std::string_view path) {
  for (const WebAsset& asset : assets) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

const WebAsset* FindWebAsset(std::string_view path) {
  return FindWebAsset(WebAssets(), path);
}

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<bool> gzip;  // an explicit gzip or x-gzip entry admits it
  std::optional<bool> any;   // a "*" entry admits any coding
  std::string_view rest = accept_encoding;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t semi = entry.find(';');
    const std::string_view coding = Trim(entry.substr(0, semi));
    const bool admits = semi == std::string_view::npos || WeightAdmits(entry.substr(semi + 1));
    if (AsciiIEquals(coding, "gzip") || AsciiIEquals(coding, "x-gzip")) {
      gzip = gzip.value_or(false) || admits;
    } else if (coding == "*") {
      any = admits;
    }
  }
  return gzip.value_or(any.value_or(false));
}

bool EtagMatches(std::string_view if_none_match, std::string_view etag) {
  std::string_view list = Trim(if_none_match);
  if (list == "*") return true;
  const std::string_view wanted = OpaqueTag(Trim(etag));
  for (;;) {
    const size_t next = list.find_first_not_of(" \t,");
    if (next == std::string_view::npos) return false;
    list = OpaqueTag(list.substr(next));
    if (list.empty() || list.front() != '"') return false;
    const size_t close = list.find('"', 1);
    if (close == std::string_view::npos) return false;
    if (list.substr(0, close + 1) == wanted) return true;
    list.remove_prefix(close + 1);
  }
}

}  // namespace crux::server
