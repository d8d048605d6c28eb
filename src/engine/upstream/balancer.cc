#include "balancer.h"

namespace crux::engine::upstream {

Balancer::Balancer(std::vector<Target> targets)
    : targets_(std::move(targets)), states_(targets_.size()) {}

std::optional<size_t> Balancer::Pick(const std::vector<bool>& tried) {
  std::lock_guard lock(mu_);
  std::optional<size_t> best;
  const size_t n = states_.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (turn_ + k) % n;
    if (!states_[i].healthy || (i < tried.size() && tried[i])) continue;
    if (!best || states_[i].in_flight < states_[*best].in_flight) best = i;
  }
  if (!best) return std::nullopt;
  turn_ = (*best + 1) % n;
  ++states_[*best].in_flight;
  ++states_[*best].requests;
  return best;
}

void Balancer::Release(size_t index) {
  std::lock_guard lock(mu_);
  if (states_[index].in_flight > 0) --states_[index].in_flight;
}

bool Balancer::MarkDown(size_t index, const std::string& reason, bool request_failed) {
  std::lock_guard lock(mu_);
  State& state = states_[index];
  const bool was = state.healthy;
  state.healthy = false;
  state.last_error = reason;
  if (request_failed) ++state.failures;
  return was;
}

bool Balancer::MarkUp(size_t index) {
  std::lock_guard lock(mu_);
  State& state = states_[index];
  const bool was = state.healthy;
  state.healthy = true;
  return !was;
}

bool Balancer::AnyHealthy() const {
  std::lock_guard lock(mu_);
  for (const State& state : states_) {
    if (state.healthy) return true;
  }
  return false;
}

std::string Balancer::Failures() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (size_t i = 0; i < states_.size(); ++i) {
    if (states_[i].healthy) continue;
    if (!out.empty()) out += "; ";
    out += targets_[i].url + ": " + states_[i].last_error;
  }
  return out;
}

std::vector<UpstreamStatus> Balancer::Status() const {
  std::lock_guard lock(mu_);
  std::vector<UpstreamStatus> out;
  for (size_t i = 0; i < states_.size(); ++i) {
    const State& s = states_[i];
    out.push_back({targets_[i].url, s.healthy, s.in_flight, s.requests, s.failures,
                   s.healthy ? std::string() : s.last_error});
  }
  return out;
}

}  // namespace crux::engine::upstream
