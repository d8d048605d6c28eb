// Vocabulary loaders: a bounds-checked GGUF metadata reader (only the `tokenizer.ggml.*` keys
// are kept; tensors are never read), a Hugging Face tokenizer.json reader, and the two piece
// decodings (GPT-2 byte-level, SentencePiece `▁` / `<0xNN>`) that turn a stored piece into the
// bytes the token writes.
//
// GGUF layout (v2 and v3, little endian): "GGUF", u32 version, u64 tensor_count, u64 kv_count,
// then kv_count × {string key, u32 value type, value}; a string is u64 length + bytes; an array
// is u32 element type, u64 count, elements. Every count is checked against the bytes that are
// left before anything is reserved, so a hostile count fails instead of allocating.
#include "crux/constrain/vocab.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/check.h"
#include "crux/base/utf8.h"
#include "json_util.h"

namespace crux::constrain {
namespace {

// ---------------------------------------------------------------------------------------------
// Piece decoding.

// GPT-2's bytes_to_unicode: the printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for
// themselves; the other 68 bytes, in increasing order, are written as U+0100, U+0101, …
// kByteOfCodePoint inverts it for code points below 0x144; -1 marks code points outside it.
constexpr bool IsPrintableByte(int b) {
  return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}
constexpr int kByteLevelCodePoints = 0x100 + 68;
constexpr std::array<int16_t, kByteLevelCodePoints> MakeByteOfCodePoint() {
  std::array<int16_t, kByteLevelCodePoints> table{};
  for (auto& entry : table)
    entry = -1;
  int next = 0x100;
  for (int b = 0; b < 256; ++b)
    table[IsPrintableByte(b) ? b : next++] = static_cast<int16_t>(b);
  return table;
}
constexpr std::array<int16_t, kByteLevelCodePoints> kByteOfCodePoint = MakeByteOfCodePoint();

// The code point of the well-formed UTF-8 character of `length` bytes at the front of `text`.
char32_t DecodeCodePoint(std::string_view text, size_t length) {
  const auto lead = static_cast<unsigned char>(text[0]);
  if (length == 1) return lead;
  char32_t cp = lead & (0x7f >> length);
  for (size_t i = 1; i < length; ++i)
    cp = (cp << 6) | (static_cast<unsigned char>(text[i]) & 0x3f);
  return cp;
}

// Byte-level BPE: each character of the piece is one byte. A character outside the table (or
// an ill-formed byte) is kept as it is: llama.cpp stores added tokens as plain text.
std::string DecodeByteLevel(std::string_view piece) {
  std::string out;
  out.reserve(piece.size());
  while (!piece.empty()) {
    const utf8::CharSpan ch = utf8::NextChar(piece);
    const char32_t cp = ch.valid ? DecodeCodePoint(piece, ch.length) : 0x110000;
    if (cp < kByteLevelCodePoints && kByteOfCodePoint[cp] >= 0) {
      out.push_back(static_cast<char>(kByteOfCodePoint[cp]));
    } else {
      out.append(piece.substr(0, ch.length));
    }
    piece.remove_prefix(ch.length);
  }
  return out;
}

// SentencePiece: U+2581 LOWER ONE EIGHTH BLOCK stands for a space.
std::string DecodeSentencePiece(std::string_view piece) {
  static constexpr std::string_view kSpaceMark = "\xe2\x96\x81";
  std::string out;
  out.reserve(piece.size());
  while (!piece.empty()) {
    if (piece.starts_with(kSpaceMark)) {
      out.push_back(' ');
      piece.remove_prefix(kSpaceMark.size());
    } else {
      out.push_back(piece.front());
      piece.remove_prefix(1);
    }
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte of a `<0xNN>` piece, or nothing when the piece is not one.
std::optional<char> ByteTokenValue(std::string_view piece) {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') return std::nullopt;
  const int hi = HexDigit(piece[3]);
  const int lo = HexDigit(piece[4]);
  if (hi < 0 || lo < 0) return std::nullopt;
  return static_cast<char>(hi * 16 + lo);
}

enum class PieceStyle : uint8_t { kByteLevel, kSentencePiece };

// Control and user-defined tokens that end generation by their text (llama.cpp marks the same
// names end-of-generation): many files name only eos, while chat models stop on a turn end.
// Gemma 4 stops at `<|tool_response>` to wait for a tool's result.
constexpr std::array<std::string_view, 11> kEogNames = {
    "<|eot_id|>",    "<|eom_id|>",    "<|end_of_text|>", "<|im_end|>",
    "<|endoftext|>", "<end_of_turn>", "<|end|>",         "<eos>",
    "</s>",          "<turn|>",       "<|tool_response>"};

// A vocabulary on its way to Vocabulary::FromTokens.
struct TokenTable {
  std::vector<std::string> bytes;
  std::vector<TokenKind> kinds;
  std::vector<uint32_t> eog;
};

// Fills token `id` of `table` from its stored `piece`: special kinds keep their text, byte
// tokens write their byte, normal ones are decoded in `style`.
Status AddPiece(TokenTable& table, size_t id, std::string_view piece, TokenKind kind,
                PieceStyle style) {
  std::string bytes;
  if (kind == TokenKind::kByte) {
    if (const std::optional<char> byte = ByteTokenValue(piece)) {
      bytes.assign(1, *byte);
    } else if (style == PieceStyle::kSentencePiece) {
      return Error(ErrorCode::kParse, "token " + std::to_string(id) + ": byte token '" +
                                          std::string(piece) + "' is not <0xNN>");
    } else {
      bytes = DecodeByteLevel(piece);
    }
  } else if (kind != TokenKind::kNormal) {
    bytes.assign(piece);
  } else if (style == PieceStyle::kByteLevel) {
    bytes = DecodeByteLevel(piece);
  } else {
    bytes = DecodeSentencePiece(piece);
  }
  if (bytes.size() > kMaxTokenBytes) {
    return Error(ErrorCode::kLimit, "token " + std::to_string(id) + " writes " +
                                        std::to_string(bytes.size()) + " bytes (limit " +
                                        std::to_string(kMaxTokenBytes) + ")");
  }
  table.bytes[id] = std::move(bytes);
  table.kinds[id] = kind;
  return {};
}

void AddNamedEog(TokenTable& table) {
  for (size_t id = 0; id < table.kinds.size(); ++id) {
    if (table.kinds[id] != TokenKind::kControl && table.kinds[id] != TokenKind::kUserDefined)
      continue;
    if (std::find(kEogNames.begin(), kEogNames.end(), table.bytes[id]) != kEogNames.end())
      table.eog.push_back(static_cast<uint32_t>(id));
  }
}

// ---------------------------------------------------------------------------------------------
// GGUF.

enum GgufType : uint32_t {
  kGgufU8 = 0,
  kGgufI8 = 1,
  kGgufU16 = 2,
  kGgufI16 = 3,
  kGgufU32 = 4,
  kGgufI32 = 5,
  kGgufF32 = 6,
  kGgufBool = 7,
  kGgufString = 8,
  kGgufArray = 9,
  kGgufU64 = 10,
  kGgufI64 = 11,
  kGgufF64 = 12,
};

// Bytes of one value of a fixed-size type; 0 for string, array and unknown types.
size_t FixedSize(uint32_t type) {
  switch (type) {
    case kGgufU8:
    case kGgufI8:
    case kGgufBool:
      return 1;
    case kGgufU16:
    case kGgufI16:
      return 2;
    case kGgufU32:
    case kGgufI32:
    case kGgufF32:
      return 4;
    case kGgufU64:
    case kGgufI64:
    case kGgufF64:
      return 8;
    default:
      return 0;
  }
}

// A little-endian cursor over the file. Reads past the end return false and set
// `truncated()`, which tells FromGgufFile that a longer prefix of the file may parse.
class GgufReader {
 public:
  explicit GgufReader(std::string_view data) : data_(data) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool truncated() const { return truncated_; }

  // True when `count` items of at least `item_size` bytes can still follow.
  bool CanHold(uint64_t count, size_t item_size) {
    if (count <= remaining() / item_size) return true;
    truncated_ = true;
    return false;
  }
  bool Skip(uint64_t n) {
    if (!CanHold(n, 1)) return false;
    pos_ += n;
    return true;
  }
  template <typename T>
  bool Read(T* out) {
    if (!CanHold(sizeof(T), 1)) return false;
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      value |= uint64_t{static_cast<unsigned char>(data_[pos_ + i])} << (8 * i);
    pos_ += sizeof(T);
    *out = static_cast<T>(value);
    return true;
  }
  bool ReadString(std::string_view* out) {
    uint64_t length = 0;
    if (!Read(&length) || !CanHold(length, 1)) return false;
    *out = data_.substr(pos_, length);
    pos_ += length;
    return true;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  bool truncated_ = false;
};

// The `tokenizer.ggml.*` keys the vocabulary needs; pieces point into the file's bytes.
struct GgufTokenizer {
  std::optional<std::string_view> model;
  std::optional<std::vector<std::string_view>> tokens;
  std::optional<std::vector<int32_t>> token_types;
  std::vector<std::pair<std::string_view, int64_t>> eog_ids;  // key, id
};

constexpr std::string_view kKeyModel = "tokenizer.ggml.model";
constexpr std::string_view kKeyTokens = "tokenizer.ggml.tokens";
constexpr std::string_view kKeyTokenType = "tokenizer.ggml.token_type";
constexpr std::array<std::string_view, 3> kKeysEog = {
    "tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"};
constexpr int kMaxArrayNesting = 4;

Error GgufError(const GgufReader& reader, std::string_view key, std::string_view what) {
  return Error(ErrorCode::kParse, "GGUF key '" + std::string(key) + "' at offset " +
                                      std::to_string(reader.offset()) + ": " + std::string(what));
}
Error Truncated(const GgufReader& reader, std::string_view key) {
  return GgufError(reader, key, "file truncated or count past the end of the file");
}
Error WrongType(const GgufReader& reader, std::string_view key, uint32_t type,
                std::string_view expected) {
  return GgufError(reader, key,
                   "value type " + std::to_string(type) + ", expected " + std::string(expected));
}

// Skips one value of `type` (an array's elements too, nested at most kMaxArrayNesting deep).
Status SkipValue(GgufReader& reader, std::string_view key, uint32_t type, int depth) {
  if (const size_t size = FixedSize(type)) {
    if (!reader.Skip(size)) return Truncated(reader, key);
    return {};
  }
  if (type == kGgufString) {
    std::string_view ignored;
    if (!reader.ReadString(&ignored)) return Truncated(reader, key);
    return {};
  }
  if (type != kGgufArray)
    return GgufError(reader, key, "unknown value type " + std::to_string(type));
  if (depth >= kMaxArrayNesting) return GgufError(reader, key, "arrays nested too deep");
  uint32_t element_type = 0;
  uint64_t count = 0;
  if (!reader.Read(&element_type) || !reader.Read(&count)) return Truncated(reader, key);
  if (const size_t size = FixedSize(element_type)) {
    if (!reader.CanHold(count, size)) return Truncated(reader, key);
    reader.Skip(count * size);
    return {};
  }
  // A string is at least its 8-byte length; an array its 12-byte header.
  if (!reader.CanHold(count, element_type == kGgufString ? 8 : 12)) return Truncated(reader, key);
  for (uint64_t i = 0; i < count; ++i) {
    Status status = SkipValue(reader, key, element_type, depth + 1);
    if (!status) return status;
  }
  return {};
}

// Reads an array header of `element_type` (one of `allowed`) and checks its count.
Expected<uint64_t> ReadArrayHeader(GgufReader& reader, std::string_view key, uint32_t type,
                                   std::initializer_list<uint32_t> allowed,
                                   uint32_t* element_type) {
  if (type != kGgufArray) return WrongType(reader, key, type, "array");
  uint64_t count = 0;
  if (!reader.Read(element_type) || !reader.Read(&count)) return Truncated(reader, key);
  if (std::find(allowed.begin(), allowed.end(), *element_type) == allowed.end())
    return GgufError(reader, key, "array of type " + std::to_string(*element_type));
  if (count > kMaxVocabularyTokens) {
    return Error(ErrorCode::kLimit, "GGUF key '" + std::string(key) +
                                        "': " + std::to_string(count) + " tokens (limit " +
                                        std::to_string(kMaxVocabularyTokens) + ")");
  }
  const size_t min_size = *element_type == kGgufString ? 8 : FixedSize(*element_type);
  if (!reader.CanHold(count, min_size)) return Truncated(reader, key);
  return count;
}

Status ReadTokens(GgufReader& reader, std::string_view key, uint32_t type, GgufTokenizer& out) {
  uint32_t element_type = 0;
  Expected<uint64_t> count = ReadArrayHeader(reader, key, type, {kGgufString}, &element_type);
  if (!count) return count.error();
  std::vector<std::string_view> tokens(*count);
  for (auto& token : tokens)
    if (!reader.ReadString(&token)) return Truncated(reader, key);
  out.tokens = std::move(tokens);
  return {};
}

Status ReadTokenTypes(GgufReader& reader, std::string_view key, uint32_t type, GgufTokenizer& out) {
  uint32_t element_type = 0;
  Expected<uint64_t> count =
      ReadArrayHeader(reader, key, type, {kGgufI32, kGgufU32}, &element_type);
  if (!count) return count.error();
  std::vector<int32_t> types(*count);
  for (auto& token_type : types)
    reader.Read(&token_type);  // CanHold checked the whole array
  out.token_types = std::move(types);
  return {};
}

Status ReadEogId(GgufReader& reader, std::string_view key, uint32_t type, GgufTokenizer& out) {
  if (type != kGgufU32 && type != kGgufI32) return WrongType(reader, key, type, "u32 or i32");
  uint32_t raw = 0;
  if (!reader.Read(&raw)) return Truncated(reader, key);
  const int64_t id = type == kGgufI32 ? int64_t{static_cast<int32_t>(raw)} : int64_t{raw};
  if (id >= 0) out.eog_ids.emplace_back(key, id);  // -1: no such token
  return {};
}

Status ReadKeyValue(GgufReader& reader, GgufTokenizer& out) {
  std::string_view key;
  uint32_t type = 0;
  if (!reader.ReadString(&key)) return Truncated(reader, "(key)");
  if (!reader.Read(&type)) return Truncated(reader, key);
  if (key == kKeyModel) {
    if (type != kGgufString) return WrongType(reader, key, type, "string");
    std::string_view model;
    if (!reader.ReadString(&model)) return Truncated(reader, key);
    out.model = model;
    return {};
  }
  if (key == kKeyTokens) return ReadTokens(reader, key, type, out);
  if (key == kKeyTokenType) return ReadTokenTypes(reader, key, type, out);
  if (std::find(kKeysEog.begin(), kKeysEog.end(), key) != kKeysEog.end())
    return ReadEogId(reader, key, type, out);
  return SkipValue(reader, key, type, 0);
}

// Reads the header and the key-value section. `truncated` is set when the failure may be the
// end of the bytes given (FromGgufFile then reads more of the file).
Expected<GgufTokenizer> ReadGgufTokenizer(std::string_view bytes, bool* truncated) {
  GgufReader reader(bytes);
  *truncated = false;
  std::string_view magic = bytes.substr(0, 4);
  if (magic != "GGUF") {
    *truncated = magic.size() < 4 && std::string_view("GGUF").starts_with(magic);
    return Error(ErrorCode::kParse, "not a GGUF file (no \"GGUF\" magic at offset 0)");
  }
  reader.Skip(4);
  uint32_t version = 0;
  uint64_t tensor_count = 0;
  uint64_t kv_count = 0;
  if (!reader.Read(&version) || !reader.Read(&tensor_count) || !reader.Read(&kv_count)) {
    *truncated = true;
    return Error(ErrorCode::kParse,
                 "GGUF header truncated at offset " + std::to_string(reader.offset()));
  }
  if (version != 2 && version != 3) {
    return Error(ErrorCode::kUnsupported,
                 "GGUF version " + std::to_string(version) + " (supported: 2, 3, little endian)");
  }
  GgufTokenizer out;
  // Each key-value pair is at least a key length, a type and one byte.
  Status status =
      reader.CanHold(kv_count, 13) ? Status() : Status(Truncated(reader, "(key count)"));
  for (uint64_t i = 0; status && i < kv_count; ++i)
    status = ReadKeyValue(reader, out);
  *truncated = reader.truncated();
  if (!status) return status.error();
  return out;
}

Expected<TokenKind> KindOfGgufType(int32_t type, size_t id) {
  switch (type) {
    case 1:
      return TokenKind::kNormal;
    case 2:
      return TokenKind::kUnknown;
    case 3:
      return TokenKind::kControl;
    case 4:
      return TokenKind::kUserDefined;
    case 0:  // undefined: llama.cpp writes nothing for it
    case 5:
      return TokenKind::kUnused;
    case 6:
      return TokenKind::kByte;
    default:
      return Error(ErrorCode::kParse, "GGUF key '" + std::string(kKeyTokenType) + "': token " +
                                          std::to_string(id) + " has type " + std::to_string(type));
  }
}

Expected<PieceStyle> StyleOfGgufModel(std::string_view model) {
  if (model == "gpt2") return PieceStyle::kByteLevel;
  // gemma4 is BPE over SentencePiece-style pieces (llama.cpp unescapes ▁ for it as for spm).
  if (model == "llama" || model == "gemma4") return PieceStyle::kSentencePiece;
  return Error(ErrorCode::kUnsupported, "tokenizer model '" + std::string(model) +
                                            "' is not supported (supported: gpt2, llama, gemma4)");
}

Expected<TokenTable> BuildGgufTable(const GgufTokenizer& gguf) {
  if (!gguf.model) return Error(ErrorCode::kParse, "GGUF has no '" + std::string(kKeyModel) + "'");
  Expected<PieceStyle> style = StyleOfGgufModel(*gguf.model);
  if (!style) return style.error();
  if (!gguf.tokens)
    return Error(ErrorCode::kParse, "GGUF has no '" + std::string(kKeyTokens) + "'");
  const std::vector<std::string_view>& pieces = *gguf.tokens;
  if (gguf.token_types && gguf.token_types->size() != pieces.size()) {
    return Error(ErrorCode::kParse, "GGUF key '" + std::string(kKeyTokenType) + "' has " +
                                        std::to_string(gguf.token_types->size()) + " entries for " +
                                        std::to_string(pieces.size()) + " tokens");
  }
  TokenTable table;
  table.bytes.resize(pieces.size());
  table.kinds.resize(pieces.size());
  for (size_t id = 0; id < pieces.size(); ++id) {
    Expected<TokenKind> kind =
        gguf.token_types ? KindOfGgufType((*gguf.token_types)[id], id) : TokenKind::kNormal;
    if (!kind) return kind.error();
    Status status = AddPiece(table, id, pieces[id], *kind, *style);
    if (!status) return status.error();
  }
  for (const auto& [key, id] : gguf.eog_ids) {
    if (static_cast<uint64_t>(id) >= pieces.size()) {
      return Error(ErrorCode::kParse, "GGUF key '" + std::string(key) + "': token id " +
                                          std::to_string(id) + " is not below the " +
                                          std::to_string(pieces.size()) + " tokens");
    }
    table.eog.push_back(static_cast<uint32_t>(id));
  }
  AddNamedEog(table);
  return table;
}

Expected<Vocabulary> FromTable(Expected<TokenTable> table) {
  if (!table) return table.error();
  return Vocabulary::FromTokens(std::move(table->bytes), std::move(table->kinds),
                                std::move(table->eog));
}

Expected<Vocabulary> FromGgufPrefix(std::string_view bytes, bool* truncated) {
  Expected<GgufTokenizer> gguf = ReadGgufTokenizer(bytes, truncated);
  if (!gguf) return gguf.error();
  return FromTable(BuildGgufTable(*gguf));
}

// ---------------------------------------------------------------------------------------------
// tokenizer.json.

// True when a pre_tokenizer or decoder object is ByteLevel, alone or inside a Sequence.
bool IsByteLevel(const Json& node) {
  if (!node.is_object()) return false;
  const auto type = node.find("type");
  if (type == node.end() || !type->is_string()) return false;
  if (*type == "ByteLevel") return true;
  if (*type != "Sequence") return false;
  for (const char* list : {"pretokenizers", "decoders"}) {
    const auto items = node.find(list);
    if (items == node.end() || !items->is_array()) continue;
    for (const Json& item : *items)
      if (IsByteLevel(item)) return true;
  }
  return false;
}

Error JsonError(std::string_view where, std::string_view what) {
  return Error(ErrorCode::kParse,
               "tokenizer.json " + std::string(where) + ": " + std::string(what));
}

// A token id as stored in tokenizer.json: a non-negative integer below the token limit.
// `where()` names the entry in an error (built only then: this runs once per token).
template <typename Where>
Expected<size_t> JsonTokenId(const Json& value, const Where& where) {
  if (!value.is_number_integer() || value.template get<int64_t>() < 0)
    return JsonError(where(), "id is not a non-negative integer");
  const auto id = value.template get<uint64_t>();
  if (id >= kMaxVocabularyTokens) {
    return Error(ErrorCode::kLimit, "tokenizer.json " + where() + ": id " + std::to_string(id) +
                                        " (limit " + std::to_string(kMaxVocabularyTokens) +
                                        " tokens)");
  }
  return static_cast<size_t>(id);
}

// One (piece, id, kind) entry before the table is sized.
struct JsonEntry {
  std::string_view piece;
  size_t id;
  TokenKind kind;
};

// model.vocab: an object piece → id (BPE, WordLevel) or an array of [piece, score] (Unigram).
Status CollectModelVocab(const Json& vocab, std::vector<JsonEntry>& entries) {
  if (vocab.is_object()) {
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
      Expected<size_t> id =
          JsonTokenId(it.value(), [&] { return "model.vocab['" + it.key() + "']"; });
      if (!id) return id.error();
      entries.push_back({it.key(), *id, TokenKind::kNormal});
    }
    return {};
  }
  if (!vocab.is_array()) return JsonError("model.vocab", "not an object or an array");
  if (vocab.size() > kMaxVocabularyTokens)
    return Error(ErrorCode::kLimit, "tokenizer.json model.vocab: too many tokens");
  for (size_t i = 0; i < vocab.size(); ++i) {
    const Json& item = vocab[i];
    if (!item.is_array() || item.empty() || !item[0].is_string())
      return JsonError("model.vocab[" + std::to_string(i) + "]", "not [piece, score]");
    entries.push_back({item[0].get_ref<const std::string&>(), i, TokenKind::kNormal});
  }
  return {};
}

Status CollectAddedTokens(const Json& root, std::vector<JsonEntry>& entries) {
  const auto added = root.find("added_tokens");
  if (added == root.end() || added->is_null()) return {};
  if (!added->is_array()) return JsonError("added_tokens", "not an array");
  for (size_t i = 0; i < added->size(); ++i) {
    const Json& token = (*added)[i];
    const auto where = [i] { return "added_tokens[" + std::to_string(i) + "]"; };
    if (!token.is_object() || !token.contains("id") || !token.contains("content") ||
        !token["content"].is_string())
      return JsonError(where(), "not an object with an id and a string content");
    Expected<size_t> id = JsonTokenId(token["id"], where);
    if (!id) return id.error();
    const auto special = token.find("special");
    const bool is_special = special != token.end() && special->is_boolean() && special->get<bool>();
    entries.push_back({token["content"].get_ref<const std::string&>(), *id,
                       is_special ? TokenKind::kControl : TokenKind::kUserDefined});
  }
  return {};
}

// Sizes the table to the largest id (gaps stay empty kUnused tokens) and fills it; an added
// token replaces a model.vocab entry of the same id.
Expected<TokenTable> BuildJsonTable(const std::vector<JsonEntry>& entries, PieceStyle style) {
  size_t size = 0;
  for (const JsonEntry& entry : entries)
    size = std::max(size, entry.id + 1);
  TokenTable table;
  table.bytes.resize(size);
  table.kinds.assign(size, TokenKind::kUnused);
  std::vector<bool> seen(size, false);
  for (const JsonEntry& entry : entries) {
    const bool added = entry.kind != TokenKind::kNormal;
    if (seen[entry.id] && !added) {
      return JsonError("model.vocab", "id " + std::to_string(entry.id) + " is given to two pieces");
    }
    seen[entry.id] = true;
    TokenKind kind = entry.kind;
    if (kind == TokenKind::kNormal && style == PieceStyle::kSentencePiece &&
        ByteTokenValue(entry.piece))
      kind = TokenKind::kByte;
    Status status = AddPiece(table, entry.id, entry.piece, kind, style);
    if (!status) return status.error();
  }
  AddNamedEog(table);
  return table;
}

Expected<TokenTable> ReadTokenizerJson(const Json& root) {
  if (!root.is_object()) return JsonError("(root)", "not an object");
  const auto model = root.find("model");
  if (model == root.end() || !model->is_object()) return JsonError("model", "missing");
  const auto type = model->find("type");
  const std::string type_name =
      type != model->end() && type->is_string() ? type->get<std::string>() : std::string("BPE");
  if (type_name != "BPE" && type_name != "Unigram") {
    return Error(ErrorCode::kUnsupported, "tokenizer.json model.type '" + type_name +
                                              "' is not supported (supported: BPE, Unigram)");
  }
  const auto vocab = model->find("vocab");
  if (vocab == model->end()) return JsonError("model.vocab", "missing");
  const auto pre_tokenizer = root.find("pre_tokenizer");
  const auto decoder = root.find("decoder");
  const bool byte_level = (pre_tokenizer != root.end() && IsByteLevel(*pre_tokenizer)) ||
                          (decoder != root.end() && IsByteLevel(*decoder));
  std::vector<JsonEntry> entries;
  Status status = CollectModelVocab(*vocab, entries);
  if (status) status = CollectAddedTokens(root, entries);
  if (!status) return status.error();
  return BuildJsonTable(entries, byte_level ? PieceStyle::kByteLevel : PieceStyle::kSentencePiece);
}

// ---------------------------------------------------------------------------------------------
// Identity.

// FNV-1a over 64 bits, finished with a SplitMix64 mix so that nearby inputs spread.
class IdentityHash {
 public:
  void Bytes(std::string_view bytes) {
    for (const char c : bytes) {
      state_ ^= static_cast<unsigned char>(c);
      state_ *= 0x100000001b3ull;
    }
  }
  void Number(uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      state_ ^= (value >> (8 * i)) & 0xff;
      state_ *= 0x100000001b3ull;
    }
  }
  uint64_t Finish() const {
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace

Expected<Vocabulary> Vocabulary::FromGguf(std::string_view file_bytes) {
  bool truncated = false;
  return FromGgufPrefix(file_bytes, &truncated);
}

// Reads only as much of the file as the metadata needs: a model file is gigabytes of tensors
// after a few megabytes of metadata. The prefix read grows fourfold while parsing it stops at
// its end.
Expected<Vocabulary> Vocabulary::FromGgufFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return Error(ErrorCode::kIo, "cannot open '" + path + "': " + std::strerror(errno));
  const std::streamoff end = file.tellg();
  if (end < 0) return Error(ErrorCode::kIo, "cannot read '" + path + "': not a regular file");
  const auto file_size = static_cast<size_t>(end);
  file.seekg(0);
  std::string bytes;
  size_t want = std::min<size_t>(file_size, size_t{16} << 20);
  while (true) {
    const size_t have = bytes.size();
    bytes.resize(want);
    if (!file.read(bytes.data() + have, static_cast<std::streamsize>(want - have)))
      return Error(ErrorCode::kIo, "cannot read '" + path + "': " + std::strerror(errno));
    bool truncated = false;
    Expected<Vocabulary> vocabulary = FromGgufPrefix(bytes, &truncated);
    if (vocabulary) return vocabulary;
    if (!truncated || want == file_size) return vocabulary.error().WithContext(path);
    want = file_size / 4 < want ? file_size : want * 4;
  }
}

Expected<Vocabulary> Vocabulary::FromTokenizerJson(std::string_view json) {
  if (NestsDeeperThan(json, 64)) return JsonError("(root)", "nested deeper than 64 levels");
  Expected<Json> root = ParseJson(json);
  if (!root) return root.error().WithContext("tokenizer.json");
  return FromTable(ReadTokenizerJson(*root));
}

Vocabulary Vocabulary::FromTokens(std::vector<std::string> bytes, std::vector<TokenKind> kinds,
                                  std::vector<uint32_t> end_of_generation) {
  CRUX_CHECK(bytes.size() == kinds.size());
  CRUX_CHECK(bytes.size() <= kMaxVocabularyTokens);
  Vocabulary vocabulary;
  size_t total = 0;
  for (const std::string& token : bytes)
    total += token.size();
  vocabulary.pool_.reserve(total);
  vocabulary.offsets_.reserve(bytes.size() + 1);
  vocabulary.offsets_.push_back(0);
  for (const std::string& token : bytes) {
    vocabulary.pool_ += token;
    vocabulary.offsets_.push_back(static_cast<uint32_t>(vocabulary.pool_.size()));
  }
  vocabulary.kinds_ = std::move(kinds);
  vocabulary.eog_ = std::move(end_of_generation);
  for (const uint32_t id : vocabulary.eog_)
    CRUX_CHECK(id < vocabulary.size());
  vocabulary.Finish();
  return vocabulary;
}

void Vocabulary::Finish() {
  std::sort(eog_.begin(), eog_.end());
  eog_.erase(std::unique(eog_.begin(), eog_.end()), eog_.end());
  IdentityHash hash;
  hash.Number(size());
  for (uint32_t id = 0; id < size(); ++id) {
    hash.Number((uint64_t{offsets_[id + 1] - offsets_[id]} << 8) |
                static_cast<uint8_t>(kinds_[id]));
    hash.Bytes(bytes(id));
  }
  hash.Number(eog_.size());
  for (const uint32_t id : eog_)
    hash.Number(id);
  identity_ = hash.Finish();
}

}  // namespace crux::constrain
