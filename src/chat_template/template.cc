#include "crux/chat_template/template.h"

#include <new>

#include "chat_template/ast.h"
#include "chat_template/lexer.h"
#include "chat_template/parser.h"
#include "chat_template/renderer.h"

namespace crux::chat_template {

struct Template::Impl {
  std::vector<Stmt> body;
  mutable LoopMemoStore loops;
};

Template::Template() : impl_(std::make_unique<Impl>()) {}
Template::~Template() = default;

Expected<std::shared_ptr<const Template>> Template::Parse(std::string_view source) {
  auto tokens = Lex(source);
  if (!tokens.ok()) return tokens.error();
  auto body = ParseTemplate(std::move(*tokens));
  if (!body.ok()) return body.error();
  std::shared_ptr<Template> parsed(new Template());
  parsed->impl_->body = std::move(*body);
  return std::shared_ptr<const Template>(std::move(parsed));
}

Expected<std::string> Template::Render(const Value& context, const RenderOptions& options) const {
  if (!context.is_mapping()) {
    return Error(ErrorCode::kInvalidArgument, "the template context must be a dict");
  }
  Renderer renderer(context, options, options.reuse_loops ? &impl_->loops : nullptr);
  try {
    return renderer.Run(impl_->body);
  } catch (const std::bad_alloc&) {
    // Past the bounds on values (SizeCap), a render can still ask for more memory than there
    // is: an error for this request, not the end of the process.
    return Error(ErrorCode::kLimit, "the template needs more memory than it can get");
  } catch (const RenderError& e) {
    Error error(e.code, "line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
                            ": " + e.message);
    if (e.from_raise_exception) return error.WithTag("raise_exception");
    return error;
  }
}

Expected<std::shared_ptr<const Template>> TemplateCache::Get(const std::string& source) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = templates_.find(source);
    if (it != templates_.end()) return it->second;
  }
  auto parsed = Template::Parse(source);
  if (!parsed.ok()) return parsed.error();
  std::lock_guard<std::mutex> lock(mutex_);
  templates_.emplace(source, *parsed);
  return *parsed;
}

}  // namespace crux::chat_template
