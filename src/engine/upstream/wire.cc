#include "wire.h"

#include <nlohmann/json.hpp>

#include "crux/text/json_parse.h"

namespace crux::engine::upstream {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxQuotedBytes = 600;  // of an upstream error quoted in a message

void AddSampling(const GenerateRequest& request, UpstreamKind kind, Json& body) {
  const SamplingParams& s = request.sampling;
  body["temperature"] = s.temperature;
  body["top_p"] = s.top_p;
  // vLLM and SGLang disable top_k with -1; llama-server with 0.
  if (s.top_k > 0) {
    body["top_k"] = s.top_k;
  } else {
    body["top_k"] = kind == UpstreamKind::kLlamaServer ? 0 : -1;
  }
  body["min_p"] = s.min_p;
  if (s.seed != 0) body["seed"] = s.seed;
  if (request.max_tokens > 0) body["max_tokens"] = request.max_tokens;
}

void AddPenalties(const OutputRequirements& r, UpstreamKind kind, Json& body) {
  if (r.presence_penalty) body["presence_penalty"] = *r.presence_penalty;
  if (r.frequency_penalty) body["frequency_penalty"] = *r.frequency_penalty;
  if (r.repetition_penalty) {
    body[kind == UpstreamKind::kLlamaServer ? "repeat_penalty" : "repetition_penalty"] =
        *r.repetition_penalty;
  }
  if (r.logit_bias.empty()) return;
  if (kind == UpstreamKind::kLlamaServer) {
    Json pairs = Json::array();
    for (const auto& [token, bias] : r.logit_bias)
      pairs.push_back(Json::array({token, bias}));
    body["logit_bias"] = std::move(pairs);
    return;
  }
  Json bias = Json::object();
  for (const auto& [token, value] : r.logit_bias)
    bias[std::to_string(token)] = value;
  body["logit_bias"] = std::move(bias);
}

// The grammar, the reasoning budget and special-token rendering in the kind's own fields.
void AddConstraints(const OutputRequirements& r, UpstreamKind kind, bool token_markers,
                    Json& body) {
  switch (kind) {
    case UpstreamKind::kLlamaServer:
      if (token_markers && !r.token_grammar.empty()) {
        body["grammar"] = r.token_grammar;
      } else if (!r.grammar.empty()) {
        body["grammar"] = r.grammar;
      }
      if (r.thinking_budget && !r.reasoning_start.empty() && !r.reasoning_end.empty()) {
        body["reasoning_budget_tokens"] = *r.thinking_budget;
        body["reasoning_budget_start_tag"] = r.reasoning_start;
        body["reasoning_budget_end_tag"] = r.reasoning_end;
        // The field that makes llama-server force the end tag when the budget runs out (without
        // it the budget only counts).
        body["reasoning_budget_message"] = "";
        // A prompt that opened the block: its budget starts counting at once (the generation
        // prompt feeds the budget, not a request's own grammar).
        if (r.reasoning_opened) body["generation_prompt"] = r.reasoning_start;
      }
      if (!r.markers.empty()) body["preserved_tokens"] = r.markers;
      return;
    case UpstreamKind::kVllm:
      if (!r.grammar.empty()) body["structured_outputs"] = {{"grammar", r.grammar}};
      if (r.thinking_budget) body["thinking_token_budget"] = *r.thinking_budget;
      body["skip_special_tokens"] = false;
      body["spaces_between_special_tokens"] = false;
      return;
    case UpstreamKind::kSglang:
      if (!r.grammar.empty()) body["ebnf"] = r.grammar;
      body["skip_special_tokens"] = false;
      body["spaces_between_special_tokens"] = false;
      return;
    case UpstreamKind::kOpenAiCompletions:
      return;
  }
}

int IntAt(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return 0;
  return it->get<int>();
}

std::string Cut(std::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return std::string(text);
  return std::string(text.substr(0, kMaxQuotedBytes)) + "…";
}

}  // namespace

Engine::RequirementSupport SupportOf(UpstreamKind kind) {
  Engine::RequirementSupport support;
  support.wants_requirements = true;
  support.grammar = kind != UpstreamKind::kOpenAiCompletions;
  support.thinking_budget = kind == UpstreamKind::kLlamaServer || kind == UpstreamKind::kVllm;
  return support;
}

std::string CompletionBody(const GenerateRequest& request, UpstreamKind kind,
                           std::string_view model, bool token_markers) {
  Json body = Json::object();
  if (!model.empty()) body["model"] = model;
  body["prompt"] = request.prompt;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  AddSampling(request, kind, body);
  if (kind == UpstreamKind::kLlamaServer) body["cache_prompt"] = true;
  if (request.requirements != nullptr) {
    AddPenalties(*request.requirements, kind, body);
    AddConstraints(*request.requirements, kind, token_markers, body);
  }
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Expected<Chunk> ReadChunk(std::string_view data) {
  auto parsed = text::ParseJson<Json>(data);
  if (!parsed.ok())
    return Error(ErrorCode::kParse, "a stream event that is not JSON: " + Cut(data));
  const Json& json = *parsed;
  if (!json.is_object()) return Error(ErrorCode::kParse, "a stream event that is not an object");
  if (const auto error = json.find("error"); error != json.end()) {
    std::string message = ErrorMessageOf(data);
    if (message.empty()) message = "an error event without a message";
    return Error(ErrorCode::kUnavailable, std::move(message));
  }
  Chunk chunk;
  if (const auto choices = json.find("choices");
      choices != json.end() && choices->is_array() && !choices->empty()) {
    const Json& choice = choices->front();
    if (const auto text = choice.find("text"); text != choice.end() && text->is_string()) {
      chunk.text = text->get<std::string>();
    }
    if (const auto reason = choice.find("finish_reason");
        reason != choice.end() && reason->is_string()) {
      chunk.finish_reason = reason->get<std::string>();
    }
  }
  if (const auto usage = json.find("usage"); usage != json.end() && usage->is_object()) {
    chunk.has_usage = true;
    chunk.prompt_tokens = IntAt(*usage, "prompt_tokens");
    chunk.completion_tokens = IntAt(*usage, "completion_tokens");
    if (const auto details = usage->find("prompt_tokens_details");
        details != usage->end() && details->is_object()) {
      chunk.cached_tokens = IntAt(*details, "cached_tokens");
    }
  }
  return chunk;
}

std::string ErrorMessageOf(std::string_view body) {
  auto parsed = text::ParseJson<Json>(body);
  if (parsed.ok() && parsed->is_object()) {
    const auto error = parsed->find("error");
    if (error != parsed->end()) {
      if (error->is_string()) return Cut(error->get<std::string>());
      if (error->is_object()) {
        const auto message = error->find("message");
        if (message != error->end() && message->is_string()) {
          return Cut(message->get<std::string>());
        }
      }
    }
    const auto detail = parsed->find("detail");  // FastAPI (vLLM, SGLang) validation errors
    if (detail != parsed->end()) return Cut(detail->dump());
  }
  return Cut(body);
}

}  // namespace crux::engine::upstream
