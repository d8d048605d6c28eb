// Browser protection: which `Host` and `Origin` headers the server answers, which origins get
// CORS headers, and the JSON media type the API endpoints require. Without these a web page
// could drive a local crux: a `text/plain` body needs no CORS preflight, and DNS rebinding
// makes a foreign name resolve to the loopback address.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crux::server {

class HostPolicy {
 public:
  // Bound to a loopback address: the loopback names (localhost, *.localhost, 127.0.0.1, ::1)
  // and the bound address, plus `allowed_hosts`. Bound elsewhere: any host, unless
  // `allowed_hosts` is given. An entry "*" allows any host; ".example.com" or "*.example.com"
  // allows the subdomains of example.com. Origins in `cors_origins` ("*": any) get CORS.
  static HostPolicy For(std::string_view bound_address,
                        const std::vector<std::string>& allowed_hosts,
                        const std::vector<std::string>& cors_origins);

  // nullopt when the `Host` header's name is allowed; else the reason, for a 403.
  std::optional<std::string> CheckHost(std::string_view host_header) const;
  // The same for an `Origin` header: allowed when it is a CORS origin or its host is allowed.
  std::optional<std::string> CheckOrigin(std::string_view origin) const;
  // Whether `origin` gets Access-Control-Allow-* headers.
  bool CorsAllowed(std::string_view origin) const;

  // The host names allowed, for messages and the startup log ("*" when any).
  std::string Describe() const;

 private:
  bool HostAllowed(const std::string& name) const;

  bool any_host_ = false;
  std::vector<std::string> hosts_;  // lower case; ".suffix" entries match subdomains
  bool any_origin_ = false;
  std::vector<std::string> origins_;  // lower case
};

// The host name of an authority ("Localhost:8000" → "localhost", "[::1]:80" → "::1"), lower
// case, without a trailing dot; nullopt when it is not one.
std::optional<std::string> HostNameOf(std::string_view authority);

// nullopt when `content_type` (nullopt: the header is absent) is JSON — application/json or a
// "+json" type, with any parameters; else the message for a 415.
std::optional<std::string> CheckJsonContentType(std::optional<std::string_view> content_type);

}  // namespace crux::server
