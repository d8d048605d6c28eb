// The structured-output processor: token masks from a JSON Schema (or any JSON object, for
// `response_format: json_object`), over the constrain/ matcher. Built before generation, so a
// schema that cannot be compiled is an error before the first token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "crux/base/error.h"
#include "crux/constrain/matcher.h"
#include "crux/logits/processor.h"

namespace crux::logits {

class JsonSchemaProcessor final : public LogitsProcessor {
 public:
  // `schema_json` empty: any JSON object. Errors are CompileSchema's and
  // CompiledGrammar::Compile's (kParse, kInvalidArgument, kUnsupported, kLimit), with the
  // keyword and its JSON pointer. `cache` may be null.
  static Expected<std::unique_ptr<JsonSchemaProcessor>> Create(
      std::string_view schema_json, std::shared_ptr<const constrain::Vocabulary> vocabulary,
      const constrain::GrammarOptions& options = {}, constrain::GrammarCache* cache = nullptr);
  explicit JsonSchemaProcessor(std::shared_ptr<const constrain::CompiledGrammar> grammar);

  Stage stage() const override { return Stage::kGrammar; }
  std::string_view name() const override { return "json_schema"; }
  bool Accept(uint32_t token) override;
  bool Rollback(size_t count) override;
  void Reset() override;
  std::unique_ptr<LogitsProcessor> Clone() const override;
  size_t accepted() const override { return accepted_; }
  bool FillMask(std::span<uint32_t> mask) override;

  const constrain::Matcher& matcher() const { return matcher_; }
  const constrain::CompiledGrammar& grammar() const { return *grammar_; }

 private:
  std::shared_ptr<const constrain::CompiledGrammar> grammar_;
  constrain::Matcher matcher_;
  size_t accepted_ = 0;
};

}  // namespace crux::logits
