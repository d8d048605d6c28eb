// A serializer of nlohmann::json values without recursion, for the modules that hold
// nlohmann values at their edges (protocol, pipeline, the command line). Header-only and the
// one public header that needs nlohmann (crux_text passes the dependency on); nothing else in
// include/crux/ exposes it.
//
// nlohmann's dump(), like its copy constructor and operator==, recurses once per nesting
// level, so a value nested some ten thousand levels deep overflows the stack. AppendJsonDump
// writes exactly what dump(-1, ' ', false, error_handler_t::replace) writes — compact, keys
// in the value's order, invalid UTF-8 as U+FFFD — walking the value with an explicit stack:
// O(size) time, O(depth) heap, no stack growth. Works for nlohmann::json and ordered_json.
#pragma once

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crux/text/json_text.h"

namespace crux::text {

template <class BasicJson>
void AppendJsonDump(std::string& out, const BasicJson& value) {
  using Iterator = typename BasicJson::const_iterator;
  struct Frame {
    Iterator next;
    Iterator end;
    bool object;
    bool first;
  };
  std::vector<Frame> stack;
  const BasicJson* pending = &value;  // the value to write next
  for (;;) {
    if (pending != nullptr) {
      const BasicJson& v = *pending;
      pending = nullptr;
      if (v.is_object() || v.is_array()) {
        const bool object = v.is_object();
        if (v.empty()) {
          out.append(object ? "{}" : "[]");
        } else {
          out.push_back(object ? '{' : '[');
          stack.push_back({v.cbegin(), v.cend(), object, true});
        }
      } else if (v.is_string()) {
        AppendJsonStringLikeDump(out, v.template get_ref<const typename BasicJson::string_t&>());
      } else if (v.is_number_integer() || v.is_number_unsigned()) {
        char digits[24];
        const auto end =
            v.is_number_unsigned()
                ? std::to_chars(digits, digits + sizeof digits,
                                v.template get<typename BasicJson::number_unsigned_t>())
                      .ptr
                : std::to_chars(digits, digits + sizeof digits,
                                v.template get<typename BasicJson::number_integer_t>())
                      .ptr;
        out.append(digits, end);
      } else if (v.is_boolean()) {
        out.append(v.template get<bool>() ? "true" : "false");
      } else if (v.is_null()) {
        out.append("null");
      } else {  // floats (nlohmann's shortest round-trip form), binary, discarded: no nesting
        out.append(v.dump(-1, ' ', false, BasicJson::error_handler_t::replace));
      }
    }
    if (stack.empty()) return;
    Frame& frame = stack.back();
    if (frame.next == frame.end) {
      out.push_back(frame.object ? '}' : ']');
      stack.pop_back();
      continue;
    }
    if (!frame.first) out.push_back(',');
    frame.first = false;
    if (frame.object) {
      AppendJsonStringLikeDump(out, frame.next.key());
      out.push_back(':');
    }
    pending = &*frame.next;
    ++frame.next;
  }
}

template <class BasicJson>
std::string JsonDump(const BasicJson& value) {
  std::string out;
  AppendJsonDump(out, value);
  return out;
}

}  // namespace crux::text
