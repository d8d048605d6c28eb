// The tiny random-weight model, written through ggml's gguf API (see smoke_model.h).
#include "crux/engine/smoke_model.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
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

bool IsPlaceholder(const char* token) { return std::string_view(token).starts_with("[PAD"); }

// Copies the vocabulary's tokenizer keys; Qwen2/3 vocabularies get Qwen3's added tokens at
// their ids. Returns how many were written.
Expected<size_t> CopyTokenizer(const gguf_context* vocab, gguf_context* out,
                               const std::string& path) {
  gguf_set_kv(out, vocab);
  for (int64_t i = gguf_get_n_kv(out) - 1; i >= 0; --i) {
    const std::string key = gguf_get_key(out, i);
    if (!key.starts_with("tokenizer.") || key == "tokenizer.chat_template") {
      gguf_remove_key(out, key.c_str());
    }
  }
  const int64_t tokens_key = gguf_find_key(vocab, "tokenizer.ggml.tokens");
  const int64_t types_key = gguf_find_key(vocab, "tokenizer.ggml.token_type");
  if (tokens_key < 0 || gguf_get_kv_type(vocab, tokens_key) != GGUF_TYPE_ARRAY ||
      gguf_get_arr_type(vocab, tokens_key) != GGUF_TYPE_STRING) {
    return Error(ErrorCode::kParse, "'" + path + "' has no tokenizer.ggml.tokens");
  }
  const int64_t pre_key = gguf_find_key(vocab, "tokenizer.ggml.pre");
  const std::string pre = pre_key >= 0 ? gguf_get_val_str(vocab, pre_key) : "";
  const size_t n = gguf_get_arr_n(vocab, tokens_key);
  if (pre != "qwen2" && pre != "qwen35") return size_t{0};
  if (types_key < 0 || gguf_get_arr_type(vocab, types_key) != GGUF_TYPE_INT32 ||
      gguf_get_arr_n(vocab, types_key) != n) {
    return Error(ErrorCode::kParse, "'" + path + "' has no tokenizer.ggml.token_type to patch");
  }
  std::vector<const char*> tokens(n);
  for (size_t i = 0; i < n; ++i)
    tokens[i] = gguf_get_arr_str(vocab, tokens_key, i);
  const auto* given = static_cast<const int32_t*>(gguf_get_arr_data(vocab, types_key));
  std::vector<int32_t> types(given, given + n);
  size_t added = 0;
  for (const constrain::AddedToken& t : constrain::Qwen3AddedTokens()) {
    if (t.id >= n || !(IsPlaceholder(tokens[t.id]) || t.text == tokens[t.id])) continue;
    tokens[t.id] = t.text.data();  // the table's strings are NUL-terminated literals
    types[t.id] = t.kind == constrain::TokenKind::kControl ? 3 : 4;
    ++added;
  }
  gguf_set_arr_str(out, "tokenizer.ggml.tokens", tokens.data(), n);
  gguf_set_arr_data(out, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), n);
  if (added > 0) {
    gguf_set_val_u32(out, "tokenizer.ggml.eos_token_id", 151645);
    gguf_set_val_u32(out, "tokenizer.ggml.bos_token_id", 151643);
    gguf_set_val_u32(out, "tokenizer.ggml.padding_token_id", 151643);
    gguf_set_val_bool(out, "tokenizer.ggml.add_bos_token", false);
  }
  return added;
}

void SetArchitecture(gguf_context* out, const SmokeModelOptions& o) {
  gguf_set_val_str(out, "general.architecture", "qwen3");
  gguf_set_val_str(out, "general.name", "tiny-qwen3");
  gguf_set_val_u32(out, "general.file_type", 1);
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

class Weights {
 public:
  Weights(ggml_context* ctx, gguf_context* out, uint64_t seed) : ctx_(ctx), out_(out), rng_(seed) {}

  // ne0 = inputs (the row length), ne1 = outputs; N(0,1) scaled by 1/sqrt(inputs).
  void Matrix(const std::string& name, int64_t inputs, int64_t outputs, bool f16 = false) {
    ggml_tensor* t = ggml_new_tensor_2d(ctx_, f16 ? GGML_TYPE_F16 : GGML_TYPE_F32, inputs, outputs);
    const float scale = f16 ? 1.0f : 1.0f / std::sqrt(static_cast<float>(inputs));
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int64_t n = inputs * outputs;
    for (int64_t i = 0; i < n; ++i) {
      const float v = normal(rng_) * scale;
      if (f16) {
        static_cast<ggml_fp16_t*>(t->data)[i] = ggml_fp32_to_fp16(v);
      } else {
        static_cast<float*>(t->data)[i] = v;
      }
    }
    Add(t, name);
    parameters_ += static_cast<size_t>(n);
  }

  void Ones(const std::string& name, int64_t n) {
    ggml_tensor* t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, n);
    for (int64_t i = 0; i < n; ++i)
      static_cast<float*>(t->data)[i] = 1.0f;
    Add(t, name);
    parameters_ += static_cast<size_t>(n);
  }

  size_t parameters() const { return parameters_; }

 private:
  void Add(ggml_tensor* t, const std::string& name) {
    ggml_set_name(t, name.c_str());
    gguf_add_tensor(out_, t);
  }

  ggml_context* ctx_;
  gguf_context* out_;
  std::mt19937_64 rng_;
  size_t parameters_ = 0;
};

size_t WriteTensors(ggml_context* ctx, gguf_context* out, const SmokeModelOptions& o,
                    int64_t vocab) {
  Weights w(ctx, out, o.seed);
  const int64_t e = o.embedding;
  const int64_t head = e / o.heads;
  w.Matrix("token_embd.weight", e, vocab, true);
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

Status CheckShape(const SmokeModelOptions& o) {
  if (o.layers < 1 || o.embedding < 1 || o.heads < 1 || o.kv_heads < 1 || o.feed_forward < 1 ||
      o.context_length < 16 || o.embedding % o.heads != 0 || o.heads % o.kv_heads != 0) {
    return Error(ErrorCode::kInvalidArgument,
                 "the shape does not divide: layers, embedding, heads, kv-heads and feed-forward "
                 "must be positive, embedding a multiple of heads, heads a multiple of kv-heads, "
                 "and the context length at least 16");
  }
  return Status();
}

}  // namespace

Expected<SmokeModelReport> WriteSmokeModel(const SmokeModelOptions& o) {
  if (Status shape = CheckShape(o); !shape.ok()) return shape.error();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.vocab_path, ec)) {
    return Error(ErrorCode::kNotFound, "vocabulary file '" + o.vocab_path + "' does not exist");
  }
  gguf_init_params params = {true, nullptr};
  Gguf vocab(gguf_init_from_file(o.vocab_path.c_str(), params));
  if (vocab == nullptr) {
    return Error(ErrorCode::kParse, "'" + o.vocab_path + "' is not a GGUF file");
  }
  Gguf out(gguf_init_empty());
  auto added = CopyTokenizer(vocab.get(), out.get(), o.vocab_path);
  if (!added.ok()) return added.error();
  SetArchitecture(out.get(), o);
  const auto n_vocab = static_cast<int64_t>(
      gguf_get_arr_n(out.get(), gguf_find_key(out.get(), "tokenizer.ggml.tokens")));
  const size_t head = static_cast<size_t>(o.embedding / o.heads);
  const size_t per_layer =
      4 * static_cast<size_t>(o.embedding) * (head * static_cast<size_t>(o.heads) * 2 +
                                               head * static_cast<size_t>(o.kv_heads) * 2 +
                                               3 * static_cast<size_t>(o.feed_forward) + 8);
  const size_t bytes = 2 * static_cast<size_t>(o.embedding * n_vocab) +
                       per_layer * static_cast<size_t>(o.layers) +
                       ggml_tensor_overhead() * (4 + 11 * static_cast<size_t>(o.layers)) + (1 << 20);
  ggml_init_params init = {bytes, nullptr, false};
  Ggml ctx(ggml_init(init));
  if (ctx == nullptr) return Error(ErrorCode::kLimit, "cannot allocate the model's weights");
  const size_t parameters = WriteTensors(ctx.get(), out.get(), o, n_vocab);

  const std::string partial = o.out_path + ".partial";
  if (!gguf_write_to_file(out.get(), partial.c_str(), false)) {
    std::filesystem::remove(partial, ec);
    return Error(ErrorCode::kIo, "cannot write '" + o.out_path + "'");
  }
  std::filesystem::rename(partial, o.out_path, ec);
  if (ec) {
    std::filesystem::remove(partial, ec);
    return Error(ErrorCode::kIo, "cannot write '" + o.out_path + "'");
  }
  SmokeModelReport report;
  report.tokens = static_cast<size_t>(n_vocab);
  report.added_tokens = *added;
  report.parameters = parameters;
  report.bytes = static_cast<size_t>(std::filesystem::file_size(o.out_path, ec));
  return report;
}

}  // namespace crux::engine
