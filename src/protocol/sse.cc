#include "protocol/sse.h"

namespace crux::protocol::internal {

void AppendData(std::string& out, std::string_view json) {
  out += "data: ";
  out += json;
  out += "\n\n";
}

void AppendEvent(std::string& out, std::string_view name, std::string_view json) {
  out += "event: ";
  out += name;
  out += "\ndata: ";
  out += json;
  out += "\n\n";
}

}  // namespace crux::protocol::internal
