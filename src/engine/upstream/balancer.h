// The upstreams and their state as the balancer sees it (private to engine/upstream/):
// least requests in flight among the healthy ones, ties in turn; failures take an upstream
// out, a health probe that answers brings it back.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "crux/engine/upstream_engine.h"
#include "crux/text/http.h"

namespace crux::engine::upstream {

struct Target {
  std::string url;       // as configured
  text::HttpUrl parsed;  // host, port, Host header
  std::string prefix;    // the URL's path without a trailing slash ("" or "/x")
};

class Balancer {
 public:
  explicit Balancer(std::vector<Target> targets);

  const Target& target(size_t index) const { return targets_[index]; }
  size_t size() const { return targets_.size(); }

  // The healthy upstream with the fewest requests in flight that `tried` does not hold (ties
  // go in turn); counts the request as in flight there. nullopt: none.
  std::optional<size_t> Pick(const std::vector<bool>& tried);
  // The request sent to `index` ended.
  void Release(size_t index);
  // `index` failed: out until a probe answers. `request_failed`: a request failed there (counted).
  // Returns true when it was healthy before (the caller logs the change once).
  bool MarkDown(size_t index, const std::string& reason, bool request_failed);
  // A probe answered: back in. Returns true when it was out before.
  bool MarkUp(size_t index);
  bool AnyHealthy() const;
  // "url: last error; …" of the upstreams that are out.
  std::string Failures() const;
  std::vector<UpstreamStatus> Status() const;

 private:
  struct State {
    bool healthy = false;
    int in_flight = 0;
    uint64_t requests = 0;
    uint64_t failures = 0;
    std::string last_error = "not probed yet";
  };
  std::vector<Target> targets_;
  mutable std::mutex mu_;
  std::vector<State> states_;
  size_t turn_ = 0;
};

}  // namespace crux::engine::upstream
