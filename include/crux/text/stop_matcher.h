// StopMatcher: applies stop strings to streamed output. Text that could still be the start of
// a stop string is held back; once a stop string matches, the output ends before it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"

namespace crux::text {

class StopMatcher {
 public:
  explicit StopMatcher(const std::vector<std::string>& stops);

  // Appends the text of `piece` that is certain to `out`. Returns true when a stop string
  // matched (the output then ends; later calls append nothing).
  bool Feed(std::string_view piece, std::string& out);
  // End of output without a match: appends what was held back.
  void Finish(std::string& out);

  bool stopped() const { return stopped_; }
  // The stop string that matched.
  const std::string& matched() const { return matched_; }

 private:
  MarkerSet stops_;
  StreamBuffer buffer_;
  bool stopped_ = false;
  std::string matched_;
};

}  // namespace crux::text
