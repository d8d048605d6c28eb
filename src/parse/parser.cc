#include "crux/parse/parser.h"

namespace crux::parse {

ParseResult ParseComplete(StreamParser& parser, std::string_view text) {
  EventSink sink;
  parser.Reset();
  parser.Feed(text, sink);
  parser.Finish(sink);
  ResultBuilder builder;
  builder.AddAll(sink.events());
  return builder.Take();
}

}  // namespace crux::parse
