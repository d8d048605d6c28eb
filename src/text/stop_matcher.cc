#include "crux/text/stop_matcher.h"

namespace crux::text {
namespace {

std::vector<std::string> NonEmpty(const std::vector<std::string>& stops) {
  std::vector<std::string> out;
  for (const std::string& s : stops) {
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

}  // namespace

StopMatcher::StopMatcher(const std::vector<std::string>& stops) : stops_(NonEmpty(stops)) {}

bool StopMatcher::Feed(std::string_view piece, std::string& out) {
  if (stopped_) return true;
  if (stops_.empty()) {
    const std::string_view view = buffer_.Take(piece, false);
    out.append(view);
    buffer_.Keep(view.size());
    return false;
  }
  const std::string_view view = buffer_.Take(piece, false);
  const ScanResult hit = stops_.Scan(view, false);
  out.append(view.substr(0, hit.pos));
  if (hit.status == ScanStatus::kFound) {
    stopped_ = true;
    matched_.assign(stops_.marker(hit.id));
    buffer_.Clear();
    return true;
  }
  buffer_.Keep(hit.pos);
  return false;
}

void StopMatcher::Finish(std::string& out) {
  if (stopped_) return;
  const std::string_view view = buffer_.Take({}, true);
  const ScanResult hit =
      stops_.empty() ? ScanResult{ScanStatus::kNone, view.size()} : stops_.Scan(view, true);
  out.append(view.substr(0, hit.pos));
  if (hit.status == ScanStatus::kFound) {
    stopped_ = true;
    matched_.assign(stops_.marker(hit.id));
  }
  buffer_.Clear();
}

}  // namespace crux::text
