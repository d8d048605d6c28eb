// The llama.cpp engine: model loading, slots, the batching loop. See llama_engine.h.
#include "crux/engine/llama_engine.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "crux/base/common_prefix.h"
#include "crux/base/utf8.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/vocab.h"
#include "crux/engine/prompt_tokenizer.h"
#include "crux/engine/sampler.h"
#include "crux/logits/processor.h"
#include "crux/text/stop_matcher.h"
#include "llama.h"

namespace crux::engine {
namespace {

using Clock = std::chrono::steady_clock;

// A request between Submit and its final update.
struct Job {
  GenerateRequest request;
  std::shared_ptr<GenerationSink> sink;
  std::vector<int32_t> prompt;
  std::atomic<bool> cancelled{false};
};

class LlamaGeneration final : public Generation {
 public:
  explicit LlamaGeneration(std::shared_ptr<Job> job) : job_(std::move(job)) {}
  ~LlamaGeneration() override { Cancel(); }
  void Cancel() override { job_->cancelled.store(true, std::memory_order_relaxed); }

 private:
  std::shared_ptr<Job> job_;
};

// One sequence of the context: the tokens its cache holds, and the job it runs.
struct Slot {
  int id = 0;
  std::vector<int32_t> cache;  // tokens evaluated into this sequence's cache, in order
  std::shared_ptr<Job> job;
  size_t prompt_pos = 0;  // next prompt token to evaluate
  int32_t pending = -1;   // a sampled token to evaluate next step
  int batch_index = -1;   // where this step's logits are in the batch
  bool in_batch = false;  // this step's batch holds tokens of this slot
  int generated = 0;
  int cached = 0;  // prompt tokens reused from the cache
  int max_tokens = 0;
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<text::StopMatcher> stops;
  std::string utf8;  // bytes of a character not yet complete
  Clock::time_point released;
  // This step's work, filled on whichever thread ran the slot's step and delivered on the
  // engine thread afterwards.
  float* logits = nullptr;
  std::vector<uint32_t> mask;
  GenerationUpdate update;
};

struct Counters {
  std::atomic<uint64_t> prompt_evaluated{0};
  std::atomic<uint64_t> prompt_cached{0};
  std::atomic<uint64_t> generated{0};
  std::atomic<uint64_t> steps{0};
  std::atomic<uint64_t> decode_ns{0};
  std::atomic<uint64_t> crux_ns{0};  // processors, sampling, detokenizing, stop strings
};

bool LoadProgress(float progress, void* data) {
  auto* last = static_cast<int*>(data);
  const int percent = static_cast<int>(progress * 100);
  if (percent != *last) {
    *last = percent;
    const int filled = percent / 4;
    std::fprintf(stderr, "\rloading model [%-25.*s] %3d%%", filled, "#########################",
                 percent);
    if (percent >= 100) std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  return true;
}

void QuietLog(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

std::string TokenText(const llama_vocab* vocab, llama_token token) {
  if (token < 0) return "";
  char buf[256];
  const int32_t n = llama_token_to_piece(vocab, token, buf, sizeof(buf), 0, true);
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

class LlamaEngine final : public Engine {
 public:
  LlamaEngine(LlamaEngineOptions options, llama_model* model, llama_context* context,
              std::shared_ptr<const constrain::Vocabulary> vocabulary)
      : options_(std::move(options)),
        model_(model),
        context_(context),
        vocab_(llama_model_get_vocab(model)),
        vocabulary_(std::move(vocabulary)),
        tokenizer_(model_, static_cast<size_t>(2 * options_.parallel + 2)),
        batch_(llama_batch_init(options_.batch_size, 0, 1)) {
    info_.id = options_.model_id;
    info_.created = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    const char* chat_template = llama_model_chat_template(model, nullptr);
    if (chat_template != nullptr) info_.chat_template = chat_template;
    info_.bos_token = TokenText(vocab_, llama_vocab_bos(vocab_));
    info_.eos_token = TokenText(vocab_, llama_vocab_eos(vocab_));
    info_.context_length = options_.context_size;
    info_.vocabulary_size = llama_vocab_n_tokens(vocab_);
    info_.parameters = static_cast<int64_t>(llama_model_n_params(model));
    slots_.resize(static_cast<size_t>(options_.parallel));
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].id = static_cast<int>(i);
      slots_[i].mask.resize(vocabulary_->mask_words());
    }
    thread_ = std::thread([this] { Loop(); });
  }

  ~LlamaEngine() override {
    Shutdown();
    llama_batch_free(batch_);
    llama_free(context_);
    llama_model_free(model_);
  }

  std::vector<ModelInfo> Models() const override { return {info_}; }

  int CountTokens(std::string_view, std::string_view text) const override {
    return static_cast<int>(tokenizer_.TokenizeText(text, false, true).size());
  }

  int CountPromptTokens(std::string_view, std::string_view prompt) const override {
    return static_cast<int>(tokenizer_.Tokenize(prompt).tokens.size());
  }

  std::shared_ptr<const constrain::Vocabulary> Vocabulary(std::string_view) const override {
    return vocabulary_;
  }

  Expected<std::vector<TokenPiece>> Tokenize(std::string_view, std::string_view text,
                                             bool add_special, bool parse_special) const override {
    std::vector<TokenPiece> out;
    for (int32_t t : tokenizer_.TokenizeText(text, add_special, parse_special)) {
      out.push_back({t, TokenText(vocab_, t)});
    }
    return out;
  }

  Expected<std::string> Detokenize(std::string_view,
                                   const std::vector<int32_t>& tokens) const override {
    std::string text;
    const int32_t n_vocab = llama_vocab_n_tokens(vocab_);
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (tokens[i] < 0 || tokens[i] >= n_vocab) {
        return Error(ErrorCode::kInvalidArgument,
                     "tokens[" + std::to_string(i) + "] = " + std::to_string(tokens[i]) +
                         " is not a token id (the vocabulary has " + std::to_string(n_vocab) + ")");
      }
      text += TokenText(vocab_, tokens[i]);
    }
    return text;
  }

  Expected<std::unique_ptr<Generation>> Submit(GenerateRequest request,
                                               std::shared_ptr<GenerationSink> sink) override;
  void Shutdown() override;
  void AppendMetrics(std::string& out) const override;

 private:
  void Loop();
  bool WaitForWork();
  void Assign();
  void Reap();
  bool BuildBatch();
  void Decode();
  void RunSteps();
  void Step(Slot& slot);
  void Deliver(Slot& slot);
  bool Emit(Slot& slot, int32_t token, GenerationUpdate& update);
  void Finish(Slot& slot, GenerationUpdate update);
  void FailAll(std::string_view why);

  const LlamaEngineOptions options_;
  llama_model* model_;
  llama_context* context_;
  const llama_vocab* vocab_;
  std::shared_ptr<const constrain::Vocabulary> vocabulary_;
  mutable PromptTokenizer tokenizer_;
  llama_batch batch_;
  ModelInfo info_;
  Counters counters_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> incoming_;  // guarded by mutex_
  bool stopping_ = false;                      // guarded by mutex_
  std::deque<std::shared_ptr<Job>> waiting_;   // engine thread only
  std::vector<Slot> slots_;                    // engine thread only
  std::vector<Slot*> stepping_;                // this step's slots with logits
  std::thread thread_;
};

Expected<std::unique_ptr<Generation>> LlamaEngine::Submit(GenerateRequest request,
                                                          std::shared_ptr<GenerationSink> sink) {
  if (!request.model.empty() && request.model != info_.id) {
    return Error(ErrorCode::kNotFound, "model '" + request.model +
                                           "' is not served (this "
                                           "server serves '" +
                                           info_.id + "')");
  }
  auto job = std::make_shared<Job>();
  job->prompt = tokenizer_.Tokenize(request.prompt).tokens;
  if (job->prompt.empty()) {
    return Error(ErrorCode::kInvalidArgument, "the prompt is empty (no tokens)");
  }
  if (job->prompt.size() >= static_cast<size_t>(options_.context_size)) {
    return Error(ErrorCode::kInvalidArgument,
                 "the prompt is " + std::to_string(job->prompt.size()) +
                     " tokens; the context holds " + std::to_string(options_.context_size) +
                     " per sequence, output included (--ctx-size)");
  }
  job->request = std::move(request);
  job->sink = std::move(sink);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return Error(ErrorCode::kUnavailable, "the engine is shutting down");
    incoming_.push_back(job);
  }
  wake_.notify_one();
  return std::unique_ptr<Generation>(std::make_unique<LlamaGeneration>(job));
}

void LlamaEngine::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LlamaEngine::AppendMetrics(std::string& out) const {
  const auto line = [&out](const char* name, const char* type, const char* help, double value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
           name + " " + std::to_string(value) + "\n";
  };
  line("crux_engine_prompt_tokens_evaluated_total", "counter", "Prompt tokens the model evaluated.",
       static_cast<double>(counters_.prompt_evaluated));
  line("crux_engine_prompt_tokens_cached_total", "counter",
       "Prompt tokens reused from a slot's cache instead of being evaluated.",
       static_cast<double>(counters_.prompt_cached));
  line("crux_engine_generated_tokens_total", "counter", "Tokens generated.",
       static_cast<double>(counters_.generated));
  line("crux_engine_steps_total", "counter", "Batched decode steps.",
       static_cast<double>(counters_.steps));
  line("crux_engine_decode_seconds_total", "counter", "Time in llama.cpp's decode.",
       static_cast<double>(counters_.decode_ns) / 1e9);
  line("crux_engine_crux_seconds_total", "counter",
       "Time in crux per step: processors, sampling, detokenizing, stop strings.",
       static_cast<double>(counters_.crux_ns) / 1e9);
}

bool LlamaEngine::WaitForWork() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto busy = [this] {
    return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.job; });
  };
  wake_.wait(lock, [&] { return stopping_ || !incoming_.empty() || busy() || !waiting_.empty(); });
  for (auto& job : incoming_)
    waiting_.push_back(std::move(job));
  incoming_.clear();
  if (stopping_) {
    for (auto& job : waiting_)
      job->cancelled.store(true);
    for (Slot& s : slots_) {
      if (s.job) s.job->cancelled.store(true);
    }
  }
  return !(stopping_ && waiting_.empty() && !busy());
}

void LlamaEngine::Loop() {
  // Masks are filled here: their scratch is made ready before the first request.
  if (vocabulary_ != nullptr) constrain::Matcher::PrepareThread(*vocabulary_);
  while (WaitForWork()) {
    Reap();
    Assign();
    Reap();
    if (!BuildBatch()) {
      // Every generating slot waits for its client: poll again shortly instead of spinning.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    Decode();
  }
}

// A waiting job takes the free slot whose cache shares the longest prefix with its prompt
// (the least recently used on a tie); that slot's cache is cut back to the shared prefix.
void LlamaEngine::Assign() {
  while (!waiting_.empty()) {
    std::shared_ptr<Job> job = waiting_.front();
    if (job->cancelled.load()) {
      waiting_.pop_front();
      GenerationUpdate u;
      u.prompt_tokens = static_cast<int>(job->prompt.size());
      u.finished = true;
      u.reason = StopReason::kCancelled;
      job->sink->OnUpdate(std::move(u));
      continue;
    }
    Slot* best = nullptr;
    size_t best_common = 0;
    for (Slot& s : slots_) {
      if (s.job) continue;
      const size_t common = CommonPrefixLength<int32_t>(s.cache, job->prompt);
      if (best == nullptr || common > best_common ||
          (common == best_common && s.released < best->released)) {
        best = &s;
        best_common = common;
      }
    }
    if (best == nullptr) return;  // every slot is busy
    waiting_.pop_front();
    // The last prompt token is always evaluated: its logits give the first output token.
    const size_t keep = std::min(best_common, job->prompt.size() - 1);
    llama_memory_seq_rm(llama_get_memory(context_), best->id, static_cast<llama_pos>(keep), -1);
    best->cache.resize(keep);
    best->job = std::move(job);
    best->prompt_pos = keep;
    best->pending = -1;
    best->generated = 0;
    best->cached = static_cast<int>(keep);
    const GenerateRequest& r = best->job->request;
    const int room = options_.context_size - static_cast<int>(best->job->prompt.size());
    int limit = r.max_tokens > 0 ? r.max_tokens : options_.default_max_tokens;
    best->max_tokens = limit > 0 ? std::min(limit, room) : room;
    best->sampler = std::make_unique<Sampler>(r.sampling);
    best->stops = std::make_unique<text::StopMatcher>(r.stop);
    best->utf8.clear();
    counters_.prompt_cached += keep;
  }
}

// Cancelled jobs end here, and their slots are free for the next request at once; the cache
// keeps what was evaluated.
void LlamaEngine::Reap() {
  for (Slot& s : slots_) {
    if (s.job && s.job->cancelled.load(std::memory_order_relaxed)) {
      GenerationUpdate u;
      u.finished = true;
      u.reason = StopReason::kCancelled;
      Finish(s, std::move(u));
    }
  }
}

// Generating slots first (one token each), then prompt chunks in the room left. False when
// nothing can be decoded this step.
bool LlamaEngine::BuildBatch() {
  batch_.n_tokens = 0;
  const auto add = [this](Slot& s, int32_t token, bool logits) {
    const int i = batch_.n_tokens++;
    batch_.token[i] = token;
    batch_.pos[i] = static_cast<llama_pos>(s.cache.size());
    batch_.n_seq_id[i] = 1;
    batch_.seq_id[i][0] = s.id;
    batch_.logits[i] = logits ? 1 : 0;
    s.cache.push_back(token);
    s.in_batch = true;
    if (logits) s.batch_index = i;
  };
  for (Slot& s : slots_) {
    s.batch_index = -1;
    s.in_batch = false;
    if (s.job && s.pending >= 0 && s.job->sink->Accepting()) {
      add(s, s.pending, true);
      s.pending = -1;
    }
  }
  for (Slot& s : slots_) {
    if (!s.job || s.prompt_pos >= s.job->prompt.size()) continue;
    const std::vector<int32_t>& prompt = s.job->prompt;
    while (s.prompt_pos < prompt.size() && batch_.n_tokens < options_.batch_size) {
      const bool last = s.prompt_pos + 1 == prompt.size();
      add(s, prompt[s.prompt_pos], last);
      ++s.prompt_pos;
      ++counters_.prompt_evaluated;
    }
  }
  return batch_.n_tokens > 0;
}

void LlamaEngine::Decode() {
  const auto start = Clock::now();
  const int32_t status = llama_decode(context_, batch_);
  // The outputs may still be in flight (backends copy logits asynchronously): the step's
  // llama.cpp time ends when they are in place.
  llama_synchronize(context_);
  const auto decoded = Clock::now();
  counters_.decode_ns += static_cast<uint64_t>((decoded - start).count());
  ++counters_.steps;
  if (status != 0) {
    FailAll("llama_decode failed (status " + std::to_string(status) +
            (status == 1 ? ": no room in the cache for this batch)" : ")"));
    return;
  }
  stepping_.clear();
  for (Slot& s : slots_) {
    if (!s.job || s.batch_index < 0) continue;
    // Looked up here, on the engine thread: the lookup may reorder the context's outputs.
    s.logits = llama_get_logits_ith(context_, s.batch_index);
    stepping_.push_back(&s);
  }
  RunSteps();
  for (Slot* s : stepping_)
    Deliver(*s);
  counters_.crux_ns += static_cast<uint64_t>((Clock::now() - decoded).count());
}

// The slots' steps are independent (each has its own processors, sampler, stop strings and
// mask), so they run on the decode threads: with OpenMP these are the workers ggml's decode
// has just used, still waiting for work, and the step's crux time is divided among them.
void LlamaEngine::RunSteps() {
  const int n = static_cast<int>(stepping_.size());
#ifdef _OPENMP
  const int threads = std::min(n, options_.threads);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
#endif
  for (int i = 0; i < n; ++i)
    Step(*stepping_[static_cast<size_t>(i)]);
}

void LlamaEngine::FailAll(std::string_view why) {
  for (Slot& s : slots_) {
    if (!s.job || !s.in_batch) continue;
    GenerationUpdate u;
    u.finished = true;
    u.reason = StopReason::kError;
    u.error = std::string(why);
    // The batch's tokens may be half in the cache: forget this sequence's cache entirely.
    llama_memory_seq_rm(llama_get_memory(context_), s.id, 0, -1);
    s.cache.clear();
    Finish(s, std::move(u));
  }
}

// One output token for `slot` from its logits: processors, sampling, detokenizing, into
// slot.update. Runs on a decode thread: touches nothing but the slot and atomic counters, and
// lets no exception out.
void LlamaEngine::Step(Slot& slot) {
  GenerationUpdate& u = slot.update;
  u = GenerationUpdate{};
  try {
    const size_t n_vocab = static_cast<size_t>(llama_vocab_n_tokens(vocab_));
    std::span<float> scores(slot.logits, n_vocab);
    std::span<const uint32_t> mask;
    logits::ProcessorChain* chain = slot.job->request.processors.get();
    if (chain != nullptr) {
      chain->ApplyScores(scores);
      if (chain->FillMask(slot.mask)) mask = slot.mask;
    }
    const int32_t token = slot.sampler->Sample(scores, mask);
    if (token < 0) {
      u.finished = true;
      u.reason = StopReason::kError;
      u.error = "no token is allowed at this point of the output (the constraints admit none)";
      return;
    }
    if (chain != nullptr) chain->Accept(static_cast<uint32_t>(token));
    ++counters_.generated;
    if (!Emit(slot, token, u)) slot.pending = token;
  } catch (const std::exception& e) {
    u = GenerationUpdate{};
    u.finished = true;
    u.reason = StopReason::kError;
    u.error = std::string("generation step failed: ") + e.what();
  }
}

// Hands the step's update to the client's sink, on the engine thread.
void LlamaEngine::Deliver(Slot& slot) {
  if (slot.update.finished) {
    Finish(slot, std::move(slot.update));
    return;
  }
  slot.update.prompt_tokens = static_cast<int>(slot.job->prompt.size());
  slot.update.cached_tokens = slot.cached;
  slot.job->sink->OnUpdate(std::move(slot.update));
}

// Appends `token`'s text to the update (whole characters, through the stop strings). True
// when the generation ends with this token.
bool LlamaEngine::Emit(Slot& slot, int32_t token, GenerationUpdate& u) {
  ++slot.generated;
  u.tokens = 1;
  const bool eog =
      llama_vocab_is_eog(vocab_, token) ||
      std::binary_search(vocabulary_->end_of_generation().begin(),
                         vocabulary_->end_of_generation().end(), static_cast<uint32_t>(token));
  if (eog) {
    if (!slot.utf8.empty()) slot.stops->Feed(slot.utf8, u.text);
    slot.utf8.clear();
    slot.stops->Finish(u.text);
    u.finished = true;
    u.reason = slot.stops->stopped() ? StopReason::kStopString : StopReason::kEndOfGeneration;
    return true;
  }
  slot.utf8 += TokenText(vocab_, token);
  const size_t complete = utf8::CompletePrefixLength(slot.utf8);
  if (complete > 0) {
    if (slot.stops->Feed(std::string_view(slot.utf8).substr(0, complete), u.text)) {
      u.finished = true;
      u.reason = StopReason::kStopString;
      u.stop_string = slot.stops->matched();
      return true;
    }
    slot.utf8.erase(0, complete);
  }
  if (slot.generated >= slot.max_tokens) {
    slot.stops->Feed(slot.utf8, u.text);
    slot.stops->Finish(u.text);
    u.finished = true;
    u.reason = slot.stops->stopped() ? StopReason::kStopString : StopReason::kMaxTokens;
    u.stop_string = slot.stops->matched();
    return true;
  }
  return false;
}

void LlamaEngine::Finish(Slot& slot, GenerationUpdate update) {
  update.prompt_tokens = static_cast<int>(slot.job->prompt.size());
  update.cached_tokens = slot.cached;
  std::shared_ptr<Job> job = std::move(slot.job);
  slot.job.reset();
  slot.pending = -1;
  // A prompt cut short by cancellation leaves its evaluated tokens in the cache: still valid.
  slot.released = Clock::now();
  job->sink->OnUpdate(std::move(update));
}

}  // namespace

Expected<std::unique_ptr<Engine>> MakeLlamaEngine(const LlamaEngineOptions& given) {
  LlamaEngineOptions options = given;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(options.model_path, ec)) {
    return Error(ErrorCode::kNotFound, "model file '" + options.model_path + "' does not exist");
  }
  if (options.context_size < 16 || options.parallel < 1 || options.parallel > 256 ||
      options.batch_size < options.parallel) {
    // Every generating slot puts one token in each step's batch.
    return Error(ErrorCode::kInvalidArgument,
                 "--ctx-size must be at least 16, --parallel 1 to 256, and --batch-size at least "
                 "--parallel");
  }
  if (options.model_id.empty()) {
    options.model_id = std::filesystem::path(options.model_path).stem().string();
  }
  if (options.threads <= 0) {
    options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  auto vocabulary = constrain::Vocabulary::FromGgufFile(options.model_path);
  if (!vocabulary.ok()) {
    return Error(ErrorCode::kParse, "model file '" + options.model_path +
                                        "': " + std::string(vocabulary.error().message()));
  }
  llama_log_set(QuietLog, nullptr);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = options.gpu_layers;
  int last_percent = -1;
  if (options.progress_bar) {
    mp.progress_callback = LoadProgress;
    mp.progress_callback_user_data = &last_percent;
  }
  llama_model* model = llama_model_load_from_file(options.model_path.c_str(), mp);
  if (model == nullptr) {
    return Error(ErrorCode::kParse, "model file '" + options.model_path +
                                        "' could not be loaded by llama.cpp (not a GGUF model, "
                                        "an unknown architecture, or a truncated file)");
  }
  llama_context_params cp = llama_context_default_params();
  cp.n_seq_max = static_cast<uint32_t>(options.parallel);
  cp.n_ctx = static_cast<uint32_t>(options.context_size) * cp.n_seq_max;
  cp.n_batch = static_cast<uint32_t>(options.batch_size);
  cp.n_ubatch = cp.n_batch;
  cp.n_threads = options.threads;
  cp.n_threads_batch = options.threads;
  cp.kv_unified = false;
  cp.no_perf = true;
  llama_context* context = llama_init_from_model(model, cp);
  if (context == nullptr) {
    llama_model_free(model);
    return Error(ErrorCode::kUnavailable, "could not create a context of " +
                                              std::to_string(cp.n_ctx) + " tokens for '" +
                                              options.model_path + "' (too little memory?)");
  }
  auto shared = std::make_shared<const constrain::Vocabulary>(*std::move(vocabulary));
  return std::unique_ptr<Engine>(
      std::make_unique<LlamaEngine>(std::move(options), model, context, std::move(shared)));
}

}  // namespace crux::engine
