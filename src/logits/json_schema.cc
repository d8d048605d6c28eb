#include "crux/logits/json_schema.h"

#include <algorithm>
#include <utility>

#include "crux/constrain/schema_ir.h"

namespace crux::logits {

Expected<std::unique_ptr<JsonSchemaProcessor>> JsonSchemaProcessor::Create(
    std::string_view schema_json, std::shared_ptr<const constrain::Vocabulary> vocabulary,
    const constrain::GrammarOptions& options, constrain::GrammarCache* cache) {
  if (vocabulary == nullptr) {
    return Error(ErrorCode::kInvalidArgument, "json_schema processor: no vocabulary");
  }
  const std::string_view schema = schema_json.empty() ? R"({"type":"object"})" : schema_json;
  if (cache != nullptr) {
    auto grammar = cache->Get(schema, vocabulary, options);
    if (!grammar) return grammar.error();
    return std::make_unique<JsonSchemaProcessor>(*std::move(grammar));
  }
  auto ir = constrain::CompileSchema(schema);
  if (!ir) return ir.error();
  auto grammar = constrain::CompiledGrammar::Compile(*ir, std::move(vocabulary), options);
  if (!grammar) return grammar.error();
  return std::make_unique<JsonSchemaProcessor>(*std::move(grammar));
}

JsonSchemaProcessor::JsonSchemaProcessor(std::shared_ptr<const constrain::CompiledGrammar> grammar)
    : grammar_(std::move(grammar)), matcher_(grammar_) {}

bool JsonSchemaProcessor::Accept(uint32_t token) {
  if (!matcher_.AcceptToken(token)) return false;
  ++accepted_;
  return true;
}

bool JsonSchemaProcessor::Rollback(size_t count) {
  if (count > accepted_ || !matcher_.Rollback(count)) return false;
  accepted_ -= count;
  return true;
}

void JsonSchemaProcessor::Reset() {
  matcher_ = constrain::Matcher(grammar_);
  accepted_ = 0;
}

std::unique_ptr<LogitsProcessor> JsonSchemaProcessor::Clone() const {
  return std::make_unique<JsonSchemaProcessor>(*this);
}

bool JsonSchemaProcessor::FillMask(std::span<uint32_t> mask) {
  if (matcher_.IsTerminated()) {
    std::fill(mask.begin(), mask.end(), 0);
    return true;
  }
  matcher_.FillMask(mask);
  return true;
}

}  // namespace crux::logits
