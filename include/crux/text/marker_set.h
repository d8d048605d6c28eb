// MarkerSet: a fixed set of marker strings, compiled once, searched in streaming text.
//
// Scan() finds the earliest marker in a buffer whose end may be cut mid-marker. It reports
// where the plain text ends: either at a complete marker, or at the first position that could
// still become a marker once more bytes arrive (the caller holds those bytes back). When two
// markers match at the same position the longest wins; a complete match that a longer marker
// could still extend is reported as partial until the extension is decided or the stream ends.
//
// Thread-safety: immutable after construction; share freely. Cost: O(n) per scan over the
// bytes given, times the number of markers sharing a first byte at a candidate position.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace crux::text {

enum class ScanStatus : uint8_t {
  kNone,     // no marker starts anywhere in the text; all of it is plain
  kFound,    // a complete marker `id` starts at `pos`
  kPartial,  // text[pos..] is a proper prefix of a marker; text[0..pos) is plain
};

struct ScanResult {
  ScanStatus status = ScanStatus::kNone;
  size_t pos = 0;     // kNone: text.size()
  size_t length = 0;  // kFound: marker length
  int id = -1;        // kFound: index of the marker in the set
};

class MarkerSet {
 public:
  MarkerSet() = default;
  MarkerSet(std::initializer_list<std::string_view> markers);
  explicit MarkerSet(const std::vector<std::string>& markers);

  // Finds the earliest marker in `text`. With `at_end` the text is final: nothing is partial.
  ScanResult Scan(std::string_view text, bool at_end) const;

  // Length of the longest suffix of `text` that is a proper prefix of some marker.
  size_t PartialSuffixLength(std::string_view text) const;

  size_t size() const { return markers_.size(); }
  bool empty() const { return markers_.empty(); }
  std::string_view marker(int id) const { return markers_[static_cast<size_t>(id)]; }
  size_t max_length() const { return max_length_; }

 private:
  void Compile();
  size_t NextCandidate(std::string_view text, size_t from) const;

  std::vector<std::string> markers_;
  // For each first byte, the ids of markers starting with it.
  std::array<std::vector<int>, 256> by_first_byte_;
  size_t max_length_ = 0;
  int single_first_byte_ = -1;  // >= 0 when every marker starts with the same byte
};

}  // namespace crux::text
