#include "crux/text/marker_set.h"

#include <algorithm>
#include <cstring>

#include "crux/base/check.h"

namespace crux::text {

MarkerSet::MarkerSet(std::initializer_list<std::string_view> markers) {
  for (std::string_view m : markers)
    markers_.emplace_back(m);
  Compile();
}

MarkerSet::MarkerSet(const std::vector<std::string>& markers) : markers_(markers) {
  Compile();
}

void MarkerSet::Compile() {
  for (size_t id = 0; id < markers_.size(); ++id) {
    const std::string& m = markers_[id];
    CRUX_CHECK(!m.empty());
    by_first_byte_[static_cast<unsigned char>(m[0])].push_back(static_cast<int>(id));
    max_length_ = std::max(max_length_, m.size());
  }
  int distinct = 0;
  for (size_t b = 0; b < 256; ++b) {
    if (!by_first_byte_[b].empty()) {
      ++distinct;
      single_first_byte_ = static_cast<int>(b);
    }
  }
  if (distinct != 1) single_first_byte_ = -1;
}

size_t MarkerSet::NextCandidate(std::string_view text, size_t from) const {
  if (single_first_byte_ >= 0) {
    const void* hit = std::memchr(text.data() + from, single_first_byte_, text.size() - from);
    return hit ? static_cast<size_t>(static_cast<const char*>(hit) - text.data()) : text.size();
  }
  for (size_t i = from; i < text.size(); ++i) {
    if (!by_first_byte_[static_cast<unsigned char>(text[i])].empty()) return i;
  }
  return text.size();
}

ScanResult MarkerSet::Scan(std::string_view text, bool at_end) const {
  ScanResult result;
  if (markers_.empty()) {
    result.pos = text.size();
    return result;
  }
  for (size_t i = NextCandidate(text, 0); i < text.size(); i = NextCandidate(text, i + 1)) {
    const std::string_view rest = text.substr(i);
    size_t best_length = 0;
    int best_id = -1;
    bool longer_possible = false;
    for (int id : by_first_byte_[static_cast<unsigned char>(text[i])]) {
      const std::string& m = markers_[static_cast<size_t>(id)];
      if (rest.size() >= m.size()) {
        if (rest.compare(0, m.size(), m) == 0 && m.size() > best_length) {
          best_length = m.size();
          best_id = id;
        }
      } else if (!at_end && m.compare(0, rest.size(), rest) == 0) {
        longer_possible = true;  // the buffer ends inside this marker
      }
    }
    if (longer_possible) {
      result.status = ScanStatus::kPartial;
      result.pos = i;
      return result;
    }
    if (best_id >= 0) {
      result.status = ScanStatus::kFound;
      result.pos = i;
      result.length = best_length;
      result.id = best_id;
      return result;
    }
  }
  result.pos = text.size();
  return result;
}

size_t MarkerSet::PartialSuffixLength(std::string_view text) const {
  const size_t limit = std::min(text.size(), max_length_ == 0 ? 0 : max_length_ - 1);
  for (size_t len = limit; len > 0; --len) {
    const std::string_view suffix = text.substr(text.size() - len);
    for (int id : by_first_byte_[static_cast<unsigned char>(suffix[0])]) {
      const std::string& m = markers_[static_cast<size_t>(id)];
      if (m.size() > len && m.compare(0, len, suffix) == 0) return len;
    }
  }
  return 0;
}

}  // namespace crux::text
