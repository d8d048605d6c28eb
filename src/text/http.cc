#include "crux/text/http.h"

#include <algorithm>
#include <cctype>

namespace crux::text {

Expected<HttpUrl> ParseHttpUrl(std::string_view url) {
  constexpr std::string_view kHttp = "http://";
  auto lower = std::string(url.substr(0, 8));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.starts_with("https://")) {
    return Error(ErrorCode::kUnsupported,
                 "https URLs need TLS, which this build lacks: " + std::string(url));
  }
  if (!lower.starts_with(kHttp)) {
    return Error(ErrorCode::kInvalidArgument, "not an http:// URL: " + std::string(url));
  }
  std::string_view rest = url.substr(kHttp.size());
  rest = rest.substr(0, rest.find('#'));
  const size_t slash = std::min(rest.find('/'), rest.find('?'));
  HttpUrl out;
  out.authority = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    out.target = rest[slash] == '/' ? std::string(rest.substr(slash))
                                    : "/" + std::string(rest.substr(slash));
  }
  std::string_view host = out.authority;
  if (host.empty() || host.find_first_of("@ \t\r\n") != std::string_view::npos) {
    return Error(ErrorCode::kInvalidArgument, "a malformed host in URL " + std::string(url));
  }
  size_t colon = host.rfind(':');
  if (host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) {
      return Error(ErrorCode::kInvalidArgument, "a malformed host in URL " + std::string(url));
    }
    colon = close + 1 < host.size() && host[close + 1] == ':' ? close + 1 : std::string_view::npos;
    out.host = std::string(host.substr(1, close - 1));
  } else {
    out.host = std::string(host.substr(0, colon));
  }
  if (colon != std::string_view::npos) {
    out.port = std::string(host.substr(colon + 1));
    if (out.port.empty() || out.port.size() > 5 ||
        out.port.find_first_not_of("0123456789") != std::string::npos) {
      return Error(ErrorCode::kInvalidArgument, "a malformed port in URL " + std::string(url));
    }
  }
  return out;
}

Status SseParser::Feed(std::string_view bytes) {
  if (failed_) return Error(ErrorCode::kLimit, "an SSE event above the limit");
  while (!bytes.empty()) {
    if (skip_lf_ && bytes.front() == '\n') bytes.remove_prefix(1);
    skip_lf_ = false;
    const size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (line_.size() + data_.size() + bytes.size() > max_event_bytes_) break;
      line_.append(bytes);
      return {};
    }
    if (line_.size() + data_.size() + end > max_event_bytes_) break;
    skip_lf_ = bytes[end] == '\r';
    Status done;
    if (line_.empty()) {
      done = Line(bytes.substr(0, end));
    } else {
      line_.append(bytes.substr(0, end));
      done = Line(line_);
      line_.clear();
    }
    if (!done.ok()) {
      failed_ = true;
      return done;
    }
    bytes.remove_prefix(end + 1);
  }
  if (bytes.empty()) return {};
  failed_ = true;
  return Error(ErrorCode::kLimit,
               "an SSE event above " + std::to_string(max_event_bytes_) + " bytes");
}

Status SseParser::Line(std::string_view line) {
  if (line.empty()) {                      // the event ends
    if (!data_.empty()) data_.pop_back();  // the "\n" after the last data line
    // An event without data (the 2025-11-25 priming event) carries nothing.
    if (!data_.empty()) {
      on_event_(type_.empty() ? std::string_view("message") : std::string_view(type_), data_);
    }
    data_.clear();
    type_.clear();
    return {};
  }
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  if (field == "data") {
    if (data_.size() + value.size() + 1 > max_event_bytes_) {
      return Error(ErrorCode::kLimit,
                   "an SSE event above " + std::to_string(max_event_bytes_) + " bytes");
    }
    data_.append(value);
    data_.push_back('\n');
  } else if (field == "event") {
    type_ = value;
  } else if (field == "id" && value.find('\0') == std::string_view::npos) {
    last_event_id_ = value;
  } else if (field == "retry" && !value.empty() && value.size() < 10 &&
             value.find_first_not_of("0123456789") == std::string_view::npos) {
    retry_ms_ = std::stoll(std::string(value));
  }
  return {};  // comments (":…") and unknown fields
}

}  // namespace crux::text
