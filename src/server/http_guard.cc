#include "server/http_guard.h"

#include <algorithm>
#include <boost/asio/ip/address.hpp>

namespace crux::server {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool AllDigits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsLoopback(std::string_view address) {
  boost::system::error_code ec;
  const auto parsed = boost::asio::ip::make_address(std::string(address), ec);
  return !ec && parsed.is_loopback();
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::optional<std::string> HostNameOf(std::string_view authority) {
  std::string_view name = authority;
  std::string_view port;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    name = authority.substr(1, close - 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (const size_t colon = authority.find(':'); colon != std::string_view::npos) {
    name = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.find(':') != std::string_view::npos) return std::nullopt;
  }
  if (!AllDigits(port)) return std::nullopt;
  if (name.ends_with('.')) name.remove_suffix(1);
  if (name.empty()) return std::nullopt;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ||
                    c == '_' || c == ':' || c == '%';
    if (!ok) return std::nullopt;
  }
  return Lower(name);
}

HostPolicy HostPolicy::For(std::string_view bound_address,
                           const std::vector<std::string>& allowed_hosts,
                           const std::vector<std::string>& cors_origins) {
  HostPolicy policy;
  if (IsLoopback(bound_address)) {
    policy.hosts_ = {"localhost", ".localhost", "127.0.0.1", "::1"};
    // An IPv6 address is bracketed as a Host header writes it (built by appending: gcc 12
    // reports a false -Wrestrict for `"[" + std::string`).
    std::string authority;
    const bool v6 = bound_address.find(':') != std::string_view::npos;
    if (v6) authority.push_back('[');
    authority.append(bound_address);
    if (v6) authority.push_back(']');
    if (auto bound = HostNameOf(authority)) {
      if (std::find(policy.hosts_.begin(), policy.hosts_.end(), *bound) == policy.hosts_.end()) {
        policy.hosts_.push_back(*bound);
      }
    }
  } else if (allowed_hosts.empty()) {
    policy.any_host_ = true;
  }
  for (const std::string& entry : allowed_hosts) {
    std::string host = Lower(entry);
    if (host == "*") {
      policy.any_host_ = true;
      continue;
    }
    if (host.starts_with("*.")) host.erase(0, 1);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (!host.empty()) policy.hosts_.push_back(std::move(host));
  }
  for (const std::string& entry : cors_origins) {
    std::string origin = Lower(entry);
    while (origin.ends_with('/'))
      origin.pop_back();
    if (origin == "*") {
      policy.any_origin_ = true;
    } else if (!origin.empty()) {
      policy.origins_.push_back(std::move(origin));
    }
  }
  return policy;
}

bool HostPolicy::HostAllowed(const std::string& name) const {
  if (any_host_) return true;
  for (const std::string& entry : hosts_) {
    if (entry == name) return true;
    if (entry.starts_with('.') && name.size() > entry.size() && name.ends_with(entry)) return true;
  }
  return false;
}

std::optional<std::string> HostPolicy::CheckHost(std::string_view host_header) const {
  const auto name = HostNameOf(host_header);
  if (!name) return "Host header '" + std::string(host_header) + "' is not a host name";
  if (HostAllowed(*name)) return std::nullopt;
  return "Host '" + std::string(host_header) + "' is not allowed (allowed: " + Describe() +
         "; see --allowed-hosts)";
}

bool HostPolicy::CorsAllowed(std::string_view origin) const {
  if (any_origin_) return true;
  const std::string lower = Lower(origin);
  return std::find(origins_.begin(), origins_.end(), lower) != origins_.end();
}

std::optional<std::string> HostPolicy::CheckOrigin(std::string_view origin) const {
  if (CorsAllowed(origin)) return std::nullopt;
  const auto refused = [&] {
    return "Origin '" + std::string(origin) +
           "' is not allowed (see --cors-origins and --allowed-hosts)";
  };
  const size_t scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return refused();
  const std::string scheme = Lower(origin.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") return refused();
  std::string_view authority = origin.substr(scheme_end + 3);
  if (authority.find('/') != std::string_view::npos ||
      authority.find('@') != std::string_view::npos) {
    return refused();
  }
  const auto name = HostNameOf(authority);
  if (!name || !HostAllowed(*name)) return refused();
  return std::nullopt;
}

std::string HostPolicy::Describe() const {
  if (any_host_) return "*";
  std::vector<std::string> names;
  for (const std::string& h : hosts_)
    names.push_back(h.starts_with('.') ? "*" + h : h);
  return Join(names);
}

std::optional<std::string> CheckJsonContentType(std::optional<std::string_view> content_type) {
  if (!content_type) return "Content-Type must be application/json (none was sent)";
  std::string_view type = *content_type;
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
    type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t'))
    type.remove_prefix(1);
  const std::string lower = Lower(type);
  if (lower == "application/json") return std::nullopt;
  if (lower.starts_with("application/") && lower.ends_with("+json")) return std::nullopt;
  return "Content-Type must be application/json, not '" + std::string(*content_type) + "'";
}

}  // namespace crux::server
