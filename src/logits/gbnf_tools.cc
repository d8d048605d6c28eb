// A family's call block as GBNF (see crux/logits/gbnf_tools.h). The semantics mirror the token
// grammar of tool_grammar.cc / tool_walker.cc: the same slots, type words and raw-string rules.
#include "crux/logits/gbnf_tools.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/constrain/validate.h"
#include "crux/text/json_scan.h"
#include "crux/text/stream_buffer.h"
#include "tool_grammar.h"

namespace crux::logits {
namespace {

using constrain::GbnfWriter;
using Part = parse::CallGrammar::Part;
using Slot = parse::CallGrammar::Slot;

// A callable tool and its compiled parameter schema.
struct ToolSchema {
  const parse::ToolSpec* spec = nullptr;
  constrain::SchemaIr ir;
};

// The `argument` parts of a key-value format around the value: `before` it (key and type
// words), the text right after it (`stop`, which ends a raw value), and what follows that.
struct ArgumentLayout {
  std::vector<Part> before;
  std::string stop;
  std::vector<Part> after;
  bool value_type = false;  // a kValueType slot
  bool is_string = false;   // a kIsString slot
};

// One way to write a parameter's value: the type word it is announced with ("" without one),
// the types it admits (0: the schema's), whether it is raw text.
struct ValueChoice {
  std::string word;
  uint8_t types = 0;
  bool raw = false;
  size_t json = SIZE_MAX;  // index of its JSON rule in the tool's AddSchemaValues call
};

// The type words a parameter may be announced with: tools::TypeWords of its types, narrowed by
// its enum as tool_grammar.cc's DescribeParam does.
std::vector<std::pair<std::string_view, uint8_t>> ParamTypeWords(const constrain::SchemaNode& node,
                                                                 const ArgumentLayout& layout) {
  uint8_t types = node.types == 0 ? static_cast<uint8_t>(constrain::kTypeAny) : node.types;
  if (node.has_enum || node.const_value) types &= tools::EnumTypes(node);
  std::vector<std::pair<std::string_view, uint8_t>> words =
      tools::TypeWords(types, {.value_type = layout.value_type, .is_string = layout.is_string});
  // The renderer calls every number "number": an integer may be announced so too.
  if (layout.value_type && !layout.is_string && (types & constrain::kTypeInteger) != 0 &&
      (types & constrain::kTypeNumber) == 0)
    words.emplace_back("number", constrain::kTypeInteger);
  return words;
}

Expected<ArgumentLayout> Layout(const parse::CallGrammar& grammar) {
  ArgumentLayout layout;
  size_t i = 0;
  for (; i < grammar.argument.size() && grammar.argument[i].slot != Slot::kValue; ++i)
    layout.before.push_back(grammar.argument[i]);
  for (++i; i < grammar.argument.size() && grammar.argument[i].slot == Slot::kText; ++i)
    layout.stop.append(grammar.argument[i].text);
  for (; i < grammar.argument.size(); ++i)
    layout.after.push_back(grammar.argument[i]);
  if (layout.stop.empty()) {
    return Error(ErrorCode::kUnsupported, "tool calls: argument format has no text after a value");
  }
  for (const auto* parts : {&layout.before, &layout.after}) {
    for (const Part& part : *parts) {
      layout.value_type = layout.value_type || part.slot == Slot::kValueType;
      layout.is_string = layout.is_string || part.slot == Slot::kIsString;
      if (part.slot == Slot::kText || part.slot == Slot::kKey || part.slot == Slot::kKeyAgain ||
          part.slot == Slot::kValueType || part.slot == Slot::kIsString)
        continue;
      return Error(ErrorCode::kUnsupported,
                   "tool calls: a slot in the argument format that a "
                   "grammar cannot write");
    }
  }
  return layout;
}

class BlockWriter {
 public:
  BlockWriter(GbnfWriter& writer, const parse::CallGrammar& grammar,
              const ToolCallGbnfOptions& options)
      : w_(writer), grammar_(grammar), options_(options) {}

  Expected<std::string> Write(const std::vector<parse::ToolSpec>& tools);

 private:
  Expected<std::vector<ToolSchema>> Compile(const std::vector<parse::ToolSpec>& tools) const;
  Expected<std::string> Call(const ToolSchema& tool);
  Expected<std::string> KeyValues(const ToolSchema& tool);
  std::vector<ValueChoice> Choices(const ToolSchema& tool, const constrain::PropertySchema& param,
                                   std::vector<constrain::GbnfValue>& json) const;
  std::string Argument(const ToolSchema& tool, const constrain::PropertySchema& param,
                       const std::vector<ValueChoice>& choices,
                       const std::vector<std::string>& json);
  std::string PythonScalars(const ToolSchema& tool, constrain::NodeId node);
  std::string RawValue(const ToolSchema& tool, const constrain::PropertySchema& param);
  std::string Context(const ToolSchema& tool) const { return " (tool '" + tool.spec->name + "')"; }
  constrain::GbnfOptions JsonOptions(const ToolSchema& tool) const {
    return {.max_whitespace = options_.max_whitespace,
            .strict_objects = options_.strict_objects,
            .loosened_context = Context(tool)};
  }

  GbnfWriter& w_;
  const parse::CallGrammar& grammar_;
  const ToolCallGbnfOptions& options_;
  ArgumentLayout layout_;
};

Expected<std::vector<ToolSchema>> BlockWriter::Compile(
    const std::vector<parse::ToolSpec>& tools) const {
  std::vector<ToolSchema> out;
  for (const parse::ToolSpec& spec : tools) {
    if (!spec.callable()) continue;
    if (!options_.forced_tool.empty() && spec.name != options_.forced_tool) continue;
    if (spec.name.empty()) return Error(ErrorCode::kInvalidArgument, "a tool has no name");
    const std::string_view schema =
        spec.parameters_json.empty() ? std::string_view("{}") : spec.parameters_json;
    auto ir = constrain::CompileSchema(schema);
    if (!ir) {
      return Error(ir.error().code(),
                   "tool '" + spec.name + "' parameters: " + ir.error().message());
    }
    out.push_back({&spec, *std::move(ir)});
  }
  if (out.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 options_.forced_tool.empty()
                     ? "tool calls: no callable tool declared"
                     : "tool_choice names '" + options_.forced_tool + "', which is not declared");
  }
  return out;
}

Expected<std::string> BlockWriter::Write(const std::vector<parse::ToolSpec>& tools) {
  using Args = parse::CallGrammar::Args;
  if (grammar_.args == Args::kPythonKeywords || grammar_.args == Args::kCustom) {
    return Error(ErrorCode::kUnsupported,
                 "tool calls: a grammar does not follow this format's argument syntax (Python "
                 "keywords or a custom syntax) yet");
  }
  if (grammar_.args == Args::kKeyValue) {
    auto layout = Layout(grammar_);
    if (!layout) return layout.error();
    layout_ = *std::move(layout);
  }
  auto compiled = Compile(tools);
  if (!compiled) return compiled.error();
  std::vector<std::string> calls;
  for (const ToolSchema& tool : *compiled) {
    auto call = Call(tool);
    if (!call) return call.error();
    calls.push_back(*std::move(call));
  }
  const std::string call = w_.NewName("tool-call");
  w_.AddRule(call, GbnfWriter::Alternatives(calls));
  std::string more;
  if (options_.parallel) {
    more = "( " + GbnfWriter::Sequence({GbnfWriter::Literal(grammar_.separator), call}) + " )*";
  }
  const std::string block = w_.NewName("tool-calls");
  w_.AddRule(block, GbnfWriter::Sequence({GbnfWriter::Literal(grammar_.open), call, more,
                                          GbnfWriter::Literal(grammar_.close)}));
  return block;
}

Expected<std::string> BlockWriter::Call(const ToolSchema& tool) {
  std::vector<std::string> items;
  for (const Part& part : grammar_.call) {
    switch (part.slot) {
      case Slot::kText:
        items.push_back(GbnfWriter::Literal(part.text));
        break;
      case Slot::kName:
        items.push_back(GbnfWriter::Literal(tool.spec->name));
        break;
      case Slot::kNameString: {
        std::string quoted;
        text::AppendJsonString(quoted, tool.spec->name);
        items.push_back(GbnfWriter::Literal(quoted));
        break;
      }
      case Slot::kId:
        items.push_back("[a-z0-9]{1,32}");
        break;
      case Slot::kIndex:
      case Slot::kIndex1:
        if (options_.parallel) {
          w_.Loosen("call index: any digits");
          items.emplace_back("[0-9]+");
        } else {
          items.push_back(part.slot == Slot::kIndex ? "\"0\"" : "\"1\"");
        }
        break;
      case Slot::kArguments: {
        if (grammar_.args == parse::CallGrammar::Args::kJsonObject) {
          items.push_back(w_.AddSchemaValues(tool.ir, {{tool.ir.root, constrain::kTypeObject}},
                                             JsonOptions(tool))[0]);
          break;
        }
        auto arguments = KeyValues(tool);
        if (!arguments) return arguments.error();
        items.push_back(*std::move(arguments));
        break;
      }
      default:
        return Error(ErrorCode::kUnsupported,
                     "tool calls: a slot in the call format that a grammar cannot write");
    }
  }
  const std::string name = w_.NewName("call-" + tool.spec->name);
  w_.AddRule(name, GbnfWriter::Sequence(items));
  return name;
}

std::vector<ValueChoice> BlockWriter::Choices(const ToolSchema& tool,
                                              const constrain::PropertySchema& param,
                                              std::vector<constrain::GbnfValue>& json) const {
  const bool string_param = tool.spec->TypeOf(param.name) == parse::ParamType::kString;
  const bool python = grammar_.values == parse::CallGrammar::Values::kPython;
  std::vector<ValueChoice> choices;
  if (!layout_.value_type && !layout_.is_string) {
    choices.push_back({"", 0, string_param || python});
  } else {
    for (auto& [word, types] : ParamTypeWords(tool.ir.node(param.schema), layout_))
      choices.push_back({std::string(word), types, types == constrain::kTypeString || python});
  }
  for (ValueChoice& choice : choices) {
    if (choice.raw) continue;
    choice.json = json.size();
    const uint8_t types = choice.types == 0 ? uint8_t{constrain::kTypeAny} : choice.types;
    json.push_back({param.schema, types});
  }
  return choices;
}

// Python's spellings of true, false and None, where the schema admits those values.
std::string BlockWriter::PythonScalars(const ToolSchema& tool, constrain::NodeId node) {
  if (grammar_.values != parse::CallGrammar::Values::kPythonScalars) return "";
  constrain::SchemaIr probe = tool.ir;
  probe.root = node;
  std::string out;
  for (const auto& [json, python] : {std::pair{"true", "\"True\""}, std::pair{"false", "\"False\""},
                                     std::pair{"null", "\"None\""}}) {
    if (constrain::Validate(probe, json).valid()) out.append(" | ").append(python);
  }
  return out;
}

std::string BlockWriter::RawValue(const ToolSchema& tool, const constrain::PropertySchema& param) {
  const constrain::SchemaNode& node = tool.ir.node(param.schema);
  const std::string stop = GbnfWriter::Literal(layout_.stop);
  std::vector<std::string> strings;
  for (const std::string& value :
       node.const_value ? std::vector<std::string>{*node.const_value} : node.enum_values) {
    std::string decoded;
    if (value.size() < 2 || value.front() != '"') continue;
    if (!text::DecodeJsonString(std::string_view(value).substr(1, value.size() - 2), decoded))
      continue;
    strings.push_back(GbnfWriter::Literal(decoded));
  }
  if (!strings.empty()) return "( " + GbnfWriter::Alternatives(strings) + " ) " + stop;
  const std::string where = " of parameter '" + param.name + "'" + Context(tool);
  if (grammar_.values == parse::CallGrammar::Values::kPython &&
      tool.spec->TypeOf(param.name) != parse::ParamType::kString) {
    w_.Loosen("Python literal value" + where + ": raw text");
  }
  if (node.min_length > 0) w_.Loosen("minLength" + where);
  if (node.max_length != UINT64_MAX) w_.Loosen("maxLength" + where);
  if (node.has_pattern) w_.Loosen("pattern" + where);
  if (node.format != constrain::StringFormat::kNone) w_.Loosen("format" + where);
  const std::string_view core = text::Trim(layout_.stop);
  const std::string raw =
      w_.AddText({.marker = core.empty() ? std::string_view(layout_.stop) : core,
                  .end = layout_.stop,
                  .excluded = grammar_.cdata_strings ? "<&" : "",
                  .trimmed = true});
  if (!grammar_.cdata_strings) return raw;
  return "( " + raw + " | \"<![CDATA[\" " + w_.AddTextUntil("]]>") + " " + stop + " )";
}

std::string BlockWriter::Argument(const ToolSchema& tool, const constrain::PropertySchema& param,
                                  const std::vector<ValueChoice>& choices,
                                  const std::vector<std::string>& json) {
  std::vector<std::string> alternatives;
  for (const ValueChoice& choice : choices) {
    std::string value;
    if (choice.raw) {
      value = RawValue(tool, param);
    } else {
      const std::string python = PythonScalars(tool, param.schema);
      value = python.empty()
                  ? json[choice.json]
                  : std::string("( ").append(json[choice.json]).append(python).append(" )");
      value.append(" ").append(GbnfWriter::Literal(layout_.stop));
    }
    std::vector<std::string> items;
    auto add = [&](const std::vector<Part>& parts) {
      for (const Part& part : parts) {
        const bool word = part.slot == Slot::kValueType || part.slot == Slot::kIsString;
        const bool key = part.slot == Slot::kKey || part.slot == Slot::kKeyAgain;
        items.push_back(GbnfWriter::Literal(key    ? std::string_view(param.name)
                                            : word ? choice.word
                                                   : part.text));
      }
    };
    add(layout_.before);
    items.push_back(value);
    add(layout_.after);
    alternatives.push_back(GbnfWriter::Sequence(items));
  }
  const std::string name = w_.NewName("arg-" + tool.spec->name + "-" + param.name);
  w_.AddRule(
      name, alternatives.empty() ? "[^\\x00-\\U0010FFFF]" : GbnfWriter::Alternatives(alternatives));
  return name;
}

Expected<std::string> BlockWriter::KeyValues(const ToolSchema& tool) {
  const constrain::SchemaNode& root = tool.ir.node(tool.ir.root);
  for (const std::string& name : root.required) {
    const bool declared = std::any_of(root.properties.begin(), root.properties.end(),
                                      [&](const auto& p) { return p.name == name; });
    if (!declared) {
      return Error(ErrorCode::kUnsupported,
                   "tool '" + tool.spec->name + "': required parameter '" + name +
                       "' is not declared in properties, which a key-value call format needs");
    }
  }
  std::vector<constrain::GbnfValue> json;
  std::vector<std::vector<ValueChoice>> choices;
  for (const constrain::PropertySchema& param : root.properties)
    choices.push_back(Choices(tool, param, json));
  const std::vector<std::string> json_rules = w_.AddSchemaValues(tool.ir, json, JsonOptions(tool));
  std::vector<constrain::GbnfItem> items;
  for (size_t i = 0; i < root.properties.size(); ++i) {
    const constrain::PropertySchema& param = root.properties[i];
    const bool required =
        std::find(root.required.begin(), root.required.end(), param.name) != root.required.end();
    items.push_back({Argument(tool, param, choices[i], json_rules), required});
  }
  const constrain::GbnfList list =
      w_.AddList(items, GbnfWriter::Literal(grammar_.argument_separator));
  if (list.rule.empty()) return std::string();
  return list.can_be_empty ? "( " + list.rule + " )?" : list.rule;
}

}  // namespace

Expected<std::string> AddToolCallBlock(constrain::GbnfWriter& writer,
                                       const parse::CallGrammar& grammar,
                                       const std::vector<parse::ToolSpec>& tools,
                                       const ToolCallGbnfOptions& options) {
  return BlockWriter(writer, grammar, options).Write(tools);
}

}  // namespace crux::logits
