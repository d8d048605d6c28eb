#include "parse/tools/string_value.h"

#include <cmath>
#include <cstdlib>

#include "crux/parse/tool_spec.h"
#include "crux/text/json_scan.h"
#include "crux/text/stream_buffer.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {

void StringValueStream::Start(ValueTrim trim) {
  trim_ = trim;
  started_ = false;
  held_.clear();
}

void StringValueStream::Append(std::string_view text, std::string& out) {
  if (text.empty()) return;
  switch (trim_) {
    case ValueTrim::kNone:
      text::AppendJsonEscaped(out, text);
      return;
    case ValueTrim::kOneNewline:
      if (!started_) {
        started_ = true;
        if (text[0] == '\n') text.remove_prefix(1);
        if (text.empty()) return;
      }
      if (!held_.empty()) {
        out.append("\\n");
        held_.clear();
      }
      if (text.back() == '\n') {
        text::AppendJsonEscaped(out, text.substr(0, text.size() - 1));
        held_.clear();  // not assign("\n"): gcc 12 reports a false -Wrestrict for it here
        held_.push_back('\n');
      } else {
        text::AppendJsonEscaped(out, text);
      }
      return;
    case ValueTrim::kStrip: {
      if (!started_) {
        text = text::TrimLeft(text);
        if (text.empty()) return;
        started_ = true;
      }
      const std::string_view body = text::TrimRight(text);
      if (body.empty()) {
        held_.append(text);
        return;
      }
      text::AppendJsonEscaped(out, held_);
      held_.assign(text.substr(body.size()));
      text::AppendJsonEscaped(out, body);
      return;
    }
  }
}

ValueType ValueTypeOf(const ToolParserOptions& options, std::string_view tool,
                      std::string_view param) {
  const ToolSpec* spec = FindTool(options.tools, tool);
  const ToolParam* p = spec == nullptr ? nullptr : spec->Param(param);
  if (p == nullptr) return {};
  return {p->type, p->nullable};
}

bool IsBareNull(std::string_view text) {
  return text::Trim(text) == "null";
}

void StringValue::Start(ValueTrim trim, bool nullable, std::string& out) {
  stream_.Start(trim);
  undecided_ = nullable;
  matched_ = 0;
  pending_.clear();
  if (!nullable) out.push_back('"');
}

void StringValue::Append(std::string_view text, std::string& out) {
  if (!undecided_) {
    stream_.Append(text, out);
    return;
  }
  constexpr std::string_view kNull = "null";
  size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    const bool space = text::IsSpace(c);
    if (space && (matched_ == 0 || matched_ == kNull.size())) continue;
    if (matched_ < kNull.size() && c == kNull[matched_]) {
      ++matched_;
      continue;
    }
    break;  // this byte makes it a string
  }
  pending_.append(text.substr(0, i));
  if (i == text.size()) return;
  NotNull(out);
  stream_.Append(text.substr(i), out);
}

void StringValue::NotNull(std::string& out) {
  if (!undecided_) return;
  undecided_ = false;
  out.push_back('"');
  stream_.Append(pending_, out);
  pending_.clear();
}

void StringValue::End(std::string& out) {
  if (undecided_ && matched_ == 4) {
    out.append("null");
    undecided_ = false;
    return;
  }
  NotNull(out);
  out.push_back('"');
}

std::string ConvertTyped(std::string_view text, ParamType type, bool python_literals) {
  const std::string_view t = text::Trim(text);
  if (type == ParamType::kInteger && t.find_first_of(".eE") != std::string_view::npos &&
      IsJsonValue(t)) {
    const double v = std::strtod(std::string(t).c_str(), nullptr);
    if (!(std::fabs(v) < 9e15)) return std::string(t);  // also inf and nan
  }
  return ConvertValue(text, type, python_literals);
}

void ParamValue::Begin(ValueType type, std::string& out) {
  type_ = type;
  buffer_.clear();
  if (type_.type == ParamType::kString) string_.Start(ValueTrim::kNone, type_.nullable, out);
}

void ParamValue::Text(std::string_view text, std::string& out) {
  if (type_.type == ParamType::kString) {
    string_.Append(text, out);
  } else {
    buffer_.append(text);
  }
}

void ParamValue::End(std::string& out) {
  if (type_.type == ParamType::kString) {
    string_.End(out);
  } else if (type_.nullable && IsBareNull(buffer_)) {
    out.append("null");
  } else {
    out += ConvertTyped(buffer_, type_.type, /*python_literals=*/false);
  }
}

}  // namespace crux::parse::tools
