#include "crux/text/stream_buffer.h"

#include "crux/base/check.h"
#include "crux/base/utf8.h"

namespace crux::text {

std::string_view StreamBuffer::Take(std::string_view delta, bool at_end) {
  if (held_.empty()) {
    full_ = delta;
  } else {
    joined_.assign(held_);
    joined_.append(delta);
    full_ = joined_;
  }
  const size_t usable = at_end ? full_.size() : utf8::CompletePrefixLength(full_);
  return full_.substr(0, usable);
}

void StreamBuffer::Keep(size_t consumed) {
  CRUX_DCHECK(consumed <= full_.size());
  // full_ may point into held_ (never: held_ is copied to joined_ first) or joined_ or the
  // caller's delta; assigning from joined_ into held_ is safe because they are distinct.
  held_.assign(full_.substr(consumed));
  full_ = {};
}

void StreamBuffer::Clear() {
  held_.clear();
  joined_.clear();
  full_ = {};
}

void TrimStream::Append(std::string_view text, std::string& out) {
  size_t begin = 0;
  if (!part_started_) {
    while (begin < text.size() && IsSpace(text[begin]))
      ++begin;
    if (begin == text.size()) return;
  }
  size_t end = text.size();
  while (end > begin && IsSpace(text[end - 1]))
    --end;
  if (end == begin) {  // only whitespace, inside a started part: hold it
    held_ws_.append(text.substr(begin));
    return;
  }
  if (!part_started_) {
    if (has_output_) out.append(separator_);
    part_started_ = true;
  }
  out.append(held_ws_);
  held_ws_.clear();
  out.append(text.substr(begin, end - begin));
  held_ws_.append(text.substr(end));
  has_output_ = true;
}

void TrimStream::StartPart(std::string_view separator) {
  held_ws_.clear();
  separator_.assign(separator);
  part_started_ = false;
}

void TrimStream::Reset() {
  held_ws_.clear();
  separator_.clear();
  has_output_ = false;
  part_started_ = false;
}

std::string_view TrimLeft(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && IsSpace(s[b]))
    ++b;
  return s.substr(b);
}

std::string_view TrimRight(std::string_view s) {
  size_t e = s.size();
  while (e > 0 && IsSpace(s[e - 1]))
    --e;
  return s.substr(0, e);
}

std::string_view Trim(std::string_view s) {
  return TrimRight(TrimLeft(s));
}

}  // namespace crux::text
