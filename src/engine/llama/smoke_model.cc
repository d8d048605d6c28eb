// The tiny random-weight model, written through ggml's gguf API (see smoke_model.h). The recipe
// (keys, tensors, initialisation) is the one measured in the llama.cpp study: a qwen3 model
// whose output projection is tied to token_embd, so it has no output.weight.
#include "crux/engine/smoke_model.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "crux/constrain/added_tokens.h"
#include "ggml.h"
#include "gguf.h"

namespace crux::engine {
namespace {

struct GgufDeleter {
  void operator()(gguf_context* c) const { gguf_free(c); }
};
struct GgmlDeleter {
  void operator()(ggml_context* c) const { ggml_free(c); }
};
using Gguf = std::unique_ptr<gguf_context, GgufDeleter>;
using Ggml = std::unique_ptr<ggml_context, GgmlDeleter>;

// GGUF token types (llama_token_type) of added tokens.
constexpr int32_t kGgufControl = 3;
constexpr int32_t kGgufUserDefined = 4;
// Qwen3's special ids (its instruct GGUFs end a turn with <|im_end|>).
constexpr uint32_t kQwen3EndOfText = 151643;
constexpr uint32_t kQwen3ImEnd = 151645;
// A smoke model is tiny: refuse shapes whose weights would not be (the default is 25 MB).
constexpr int kMaxDimension = 1 << 16;
constexpr int kMaxLayers = 1024;
constexpr size_t kMaxWeightBytes = size_t{4} << 30;

bool IsPlaceholder(std::string_view token) {
  return token.starts_with("[PAD");
}

// The vocabulary's metadata (no tensors). kNotFound when absent, kIo when unreadable, kParse
// when it is not GGUF or gguf cannot read it.
Expected<Gguf> ReadVocabulary(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Error(ErrorCode::kNotFound, "vocabulary file '" + path + "' does not exist");
  }
  std::ifstream in(path, std::ios::binary);
  std::array<char, 4> magic{};
  if (!std::filesystem::is_regular_file(path, ec) || !in || !in.read(magic.data(), magic.size())) {
    return Error(ErrorCode::kIo, "cannot read vocabulary file '" + path + "'");
  }
  if (std::string_view(magic.data(), magic.size()) != "GGUF") {
    return Error(ErrorCode::kParse, "'" + path + "' is not a GGUF file (no GGUF magic)");
  }
  gguf_init_params params = {true, nullptr};
  Gguf vocab(gguf_init_from_file(path.c_str(), params));
  if (vocab == nullptr) {
    return Error(ErrorCode::kParse,
                 "'" + path + "' is not a valid GGUF file (truncated or corrupt)");
  }
  return vocab;
}

std::string StringValue(const gguf_context* ctx, const char* key) {
  const int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) return "";
  return gguf_get_val_str(ctx, id);
}

// Writes Qwen3's added tokens over the placeholders of a Qwen2/3 vocabulary (tokens already
// there count too) and points eos at <|im_end|>. Returns how many ids hold an added token.
Expected<size_t> PatchQwen3(const gguf_context* vocab, gguf_context* out, const std::string& path) {
  const int64_t tokens_key = gguf_find_key(vocab, "tokenizer.ggml.tokens");
  const int64_t types_key = gguf_find_key(vocab, "tokenizer.ggml.token_type");
  const size_t n = gguf_get_arr_n(vocab, tokens_key);
  if (types_key < 0 || gguf_get_kv_type(vocab, types_key) != GGUF_TYPE_ARRAY ||
      gguf_get_arr_type(vocab, types_key) != GGUF_TYPE_INT32 ||
      gguf_get_arr_n(vocab, types_key) != n) {
    return Error(ErrorCode::kParse, "'" + path + "' has no tokenizer.ggml.token_type to patch");
  }
  std::vector<const char*> tokens(n);
  for (size_t i = 0; i < n; ++i)
    tokens[i] = gguf_get_arr_str(vocab, tokens_key, i);
  const auto* given = static_cast<const int32_t*>(gguf_get_arr_data(vocab, types_key));
  std::vector<int32_t> types(given, given + n);
  const auto table = constrain::Qwen3AddedTokens();
  std::vector<std::string> texts(table.size());  // the patched tokens' storage
  size_t added = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const constrain::AddedToken& t = table[i];
    if (t.id >= n || !(IsPlaceholder(tokens[t.id]) || t.text == tokens[t.id])) continue;
    texts[i] = std::string(t.text);
    tokens[t.id] = texts[i].c_str();
    types[t.id] = t.kind == constrain::TokenKind::kControl ? kGgufControl : kGgufUserDefined;
    ++added;
  }
  if (added == 0) return added;
  gguf_set_arr_str(out, "tokenizer.ggml.tokens", tokens.data(), n);
  gguf_set_arr_data(out, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), n);
  gguf_set_val_u32(out, "tokenizer.ggml.eos_token_id", kQwen3ImEnd);
  gguf_set_val_u32(out, "tokenizer.ggml.bos_token_id", kQwen3EndOfText);
  gguf_set_val_u32(out, "tokenizer.ggml.padding_token_id", kQwen3EndOfText);
  gguf_set_val_bool(out, "tokenizer.ggml.add_bos_token", false);
  return added;
}

// Copies the vocabulary's tokenizer.* keys but the chat template; Qwen2/3 vocabularies get
// Qwen3's added tokens at their ids. Returns how many ids hold an added token.
Expected<size_t> CopyTokenizer(const gguf_context* vocab, gguf_context* out,
                               const std::string& path) {
  const int64_t tokens_key = gguf_find_key(vocab, "tokenizer.ggml.tokens");
  if (tokens_key < 0 || gguf_get_kv_type(vocab, tokens_key) != GGUF_TYPE_ARRAY ||
      gguf_get_arr_type(vocab, tokens_key) != GGUF_TYPE_STRING ||
      gguf_get_arr_n(vocab, tokens_key) == 0) {
    return Error(ErrorCode::kParse, "'" + path + "' has no tokenizer.ggml.tokens");
  }
  gguf_set_kv(out, vocab);
  for (int64_t i = gguf_get_n_kv(out) - 1; i >= 0; --i) {
    const std::string key = gguf_get_key(out, i);
    if (!key.starts_with("tokenizer.") || key == "tokenizer.chat_template") {
      gguf_remove_key(out, key.c_str());
    }
  }
  const std::string pre = StringValue(vocab, "tokenizer.ggml.pre");
  if (pre != "qwen2" && pre != "qwen35") return size_t{0};
  return PatchQwen3(vocab, out, path);
}

void SetArchitecture(gguf_context* out, const SmokeModelOptions& o) {
  gguf_set_val_str(out, "general.architecture", "qwen3");
  gguf_set_val_str(out, "general.name", "tiny-qwen3");
  gguf_set_val_u32(out, "general.file_type", 1);  // mostly F16
  gguf_set_val_u32(out, "qwen3.context_length", static_cast<uint32_t>(o.context_length));
  gguf_set_val_u32(out, "qwen3.embedding_length", static_cast<uint32_t>(o.embedding));
  gguf_set_val_u32(out, "qwen3.feed_forward_length", static_cast<uint32_t>(o.feed_forward));
  gguf_set_val_u32(out, "qwen3.block_count", static_cast<uint32_t>(o.layers));
  gguf_set_val_u32(out, "qwen3.attention.head_count", static_cast<uint32_t>(o.heads));
  gguf_set_val_u32(out, "qwen3.attention.head_count_kv", static_cast<uint32_t>(o.kv_heads));
  const auto head = static_cast<uint32_t>(o.embedding / o.heads);
  gguf_set_val_u32(out, "qwen3.attention.key_length", head);
  gguf_set_val_u32(out, "qwen3.attention.value_length", head);
  gguf_set_val_f32(out, "qwen3.rope.freq_base", 1000000.0f);
  gguf_set_val_f32(out, "qwen3.attention.layer_norm_rms_epsilon", 1e-6f);
  gguf_set_val_str(out, "tokenizer.chat_template", o.template_text.c_str());
}

// Creates tensors in `ctx` (which owns their data), fills them from one seeded generator in
// creation order, and adds them to `out`.
class Weights {
 public:
  Weights(ggml_context* ctx, gguf_context* out, uint64_t seed) : ctx_(ctx), out_(out), rng_(seed) {}

  // ne0 = inputs (the row length), ne1 = outputs; N(0,1) scaled by 1/sqrt(inputs).
  void Matrix(const std::string& name, int64_t inputs, int64_t outputs) {
    ggml_tensor* t = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, inputs, outputs);
    const float scale = 1.0f / std::sqrt(static_cast<float>(inputs));
    auto* data = static_cast<float*>(t->data);
    for (int64_t i = 0; i < inputs * outputs; ++i)
      data[i] = normal_(rng_) * scale;
    Add(t, name);
  }

  // An F16 matrix of N(0,1) values (the token embedding).
  void Embedding(const std::string& name, int64_t width, int64_t tokens) {
    ggml_tensor* t = ggml_new_tensor_2d(ctx_, GGML_TYPE_F16, width, tokens);
    auto* data = static_cast<ggml_fp16_t*>(t->data);
    for (int64_t i = 0; i < width * tokens; ++i)
      data[i] = ggml_fp32_to_fp16(normal_(rng_));
    Add(t, name);
  }

  // A norm's weight: all ones.
  void Ones(const std::string& name, int64_t n) {
    ggml_tensor* t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n);
    auto* data = static_cast<float*>(t->data);
    for (int64_t i = 0; i < n; ++i)
      data[i] = 1.0f;
    Add(t, name);
  }

  size_t parameters() const { return parameters_; }

 private:
  void Add(ggml_tensor* t, const std::string& name) {
    ggml_set_name(t, name.c_str());
    gguf_add_tensor(out_, t);
    parameters_ += static_cast<size_t>(ggml_nelements(t));
  }

  ggml_context* ctx_;
  gguf_context* out_;
  std::mt19937_64 rng_;
  std::normal_distribution<float> normal_{0.0f, 1.0f};
  size_t parameters_ = 0;
};

// The qwen3 tensors in llama.cpp's names; returns the parameter count.
size_t AddTensors(ggml_context* ctx, gguf_context* out, const SmokeModelOptions& o, int64_t vocab) {
  Weights w(ctx, out, o.seed);
  const int64_t e = o.embedding;
  const int64_t head = e / o.heads;
  w.Embedding("token_embd.weight", e, vocab);
  w.Ones("output_norm.weight", e);
  for (int l = 0; l < o.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    w.Ones(p + "attn_norm.weight", e);
    w.Matrix(p + "attn_q.weight", e, head * o.heads);
    w.Matrix(p + "attn_k.weight", e, head * o.kv_heads);
    w.Matrix(p + "attn_v.weight", e, head * o.kv_heads);
    w.Matrix(p + "attn_output.weight", head * o.heads, e);
    w.Ones(p + "attn_q_norm.weight", head);
    w.Ones(p + "attn_k_norm.weight", head);
    w.Ones(p + "ffn_norm.weight", e);
    w.Matrix(p + "ffn_gate.weight", e, o.feed_forward);
    w.Matrix(p + "ffn_up.weight", e, o.feed_forward);
    w.Matrix(p + "ffn_down.weight", o.feed_forward, e);
  }
  return w.parameters();
}

Status ShapeError(const std::string& what, int value) {
  return Error(ErrorCode::kInvalidArgument,
               "invalid shape: " + what + " (got " + std::to_string(value) + ")");
}

Status CheckShape(const SmokeModelOptions& o) {
  if (o.layers < 1 || o.layers > kMaxLayers)
    return ShapeError("layers must be 1 to 1024", o.layers);
  if (o.embedding < 1 || o.embedding > kMaxDimension) {
    return ShapeError("embedding must be 1 to 65536", o.embedding);
  }
  if (o.feed_forward < 1 || o.feed_forward > kMaxDimension) {
    return ShapeError("feed-forward must be 1 to 65536", o.feed_forward);
  }
  if (o.heads < 1 || o.embedding % o.heads != 0) {
    return ShapeError("heads must divide embedding " + std::to_string(o.embedding), o.heads);
  }
  if (o.kv_heads < 1 || o.heads % o.kv_heads != 0) {
    return ShapeError("kv-heads must divide heads " + std::to_string(o.heads), o.kv_heads);
  }
  if (o.context_length < 16)
    return ShapeError("context length must be at least 16", o.context_length);
  return Status();
}

// Bytes of the weights' data: F16 embedding, F32 layers (dimensions are bounded by
// CheckShape, so this cannot overflow).
size_t WeightBytes(const SmokeModelOptions& o, size_t vocab) {
  const auto e = static_cast<size_t>(o.embedding);
  const size_t head = e / static_cast<size_t>(o.heads);
  const size_t q = head * static_cast<size_t>(o.heads);
  const size_t kv = head * static_cast<size_t>(o.kv_heads);
  const size_t ff = static_cast<size_t>(o.feed_forward);
  const size_t layer = 2 * e * q + 2 * e * kv + 3 * e * ff + 2 * e + 2 * head;
  return 2 * e * vocab + 4 * (e + layer * static_cast<size_t>(o.layers));
}

// Writes to a temporary name beside `path`, then renames it: a failed run leaves no half file.
Status WriteFile(const gguf_context* out, const std::string& path) {
  std::random_device entropy;
  const std::string partial = path + ".partial-" + std::to_string(entropy());
  std::error_code ec;
  // Opened here first so that a folder that is missing or read-only is reported once, by us.
  if (std::ofstream(partial, std::ios::binary) && gguf_write_to_file(out, partial.c_str(), false)) {
    std::filesystem::rename(partial, path, ec);
    if (!ec) return Status();
  }
  std::filesystem::remove(partial, ec);
  return Error(ErrorCode::kIo, "cannot write the model file '" + path + "'");
}

}  // namespace

Expected<SmokeModelReport> WriteSmokeModel(const SmokeModelOptions& options) {
  if (Status shape = CheckShape(options); !shape.ok()) return shape.error();
  auto vocab = ReadVocabulary(options.vocab_path);
  if (!vocab.ok()) return vocab.error();
  Gguf out(gguf_init_empty());
  auto added = CopyTokenizer(vocab->get(), out.get(), options.vocab_path);
  if (!added.ok()) return added.error();
  SetArchitecture(out.get(), options);
  const size_t n_vocab =
      gguf_get_arr_n(out.get(), gguf_find_key(out.get(), "tokenizer.ggml.tokens"));
  const size_t weight_bytes = WeightBytes(options, n_vocab);
  if (weight_bytes > kMaxWeightBytes) {
    return Error(ErrorCode::kLimit, "the weights would take " + std::to_string(weight_bytes) +
                                        " bytes; a smoke model is limited to 4 GiB");
  }
  const size_t tensors = 2 + 11 * static_cast<size_t>(options.layers);
  ggml_init_params init = {weight_bytes + tensors * (ggml_tensor_overhead() + GGML_MEM_ALIGN),
                           nullptr, false};
  Ggml ctx(ggml_init(init));
  if (ctx == nullptr) return Error(ErrorCode::kLimit, "cannot allocate the model's weights");
  const size_t parameters =
      AddTensors(ctx.get(), out.get(), options, static_cast<int64_t>(n_vocab));
  if (Status written = WriteFile(out.get(), options.out_path); !written.ok()) {
    return written.error();
  }
  std::error_code ec;
  SmokeModelReport report;
  report.tokens = n_vocab;
  report.added_tokens = *added;
  report.parameters = parameters;
  report.bytes = static_cast<size_t>(std::filesystem::file_size(options.out_path, ec));
  return report;
}

}  // namespace crux::engine
