// StreamBuffer: joins the bytes a parser held back with the next delta, and keeps an
// unfinished UTF-8 character out of the text handed to the parser until it completes.
//
// Usage per feed: `view = buf.Take(delta, at_end)`, consume a prefix of `view`, then
// `buf.Keep(consumed)`. Only the unconsumed suffix is copied, so a parser that consumes all
// but a partial marker pays O(delta) per feed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace crux::text {

class StreamBuffer {
 public:
  // Returns held bytes + `delta`, minus an unfinished UTF-8 character at the end (kept for
  // the next call) unless `at_end`. The view is valid until the next Take/Keep/Clear.
  std::string_view Take(std::string_view delta, bool at_end);

  // Holds back view[consumed..] of the last Take, plus the UTF-8 tail it left out.
  void Keep(size_t consumed);

  void Clear();
  bool empty() const { return held_.empty(); }
  std::string_view held() const { return held_; }

 private:
  std::string held_;
  std::string joined_;
  std::string_view full_;  // held + delta, including the UTF-8 tail
};

// Streams one section of text with its leading and trailing ASCII whitespace removed, without
// knowing where the section ends: a trailing whitespace run is held until non-whitespace text
// follows it, and dropped if the section ends first. A section may consist of several parts
// (e.g. reasoning blocks); each part is trimmed on its own and parts are joined by a separator.
class TrimStream {
 public:
  // Appends `text` to the current part, writing what is certain to `out`.
  void Append(std::string_view text, std::string& out);

  // Starts a new part: held whitespace is dropped, leading whitespace of the new part is
  // skipped, and `separator` precedes its first text if the section already has output.
  void StartPart(std::string_view separator);

  // Forgets everything (start of a new section).
  void Reset();

  bool has_output() const { return has_output_; }

 private:
  std::string held_ws_;
  std::string separator_;
  bool has_output_ = false;    // anything emitted in this section
  bool part_started_ = false;  // non-whitespace seen in the current part
};

// True for the ASCII whitespace that Python's str.strip() removes.
inline bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view TrimLeft(std::string_view s);
std::string_view TrimRight(std::string_view s);
std::string_view Trim(std::string_view s);

}  // namespace crux::text
