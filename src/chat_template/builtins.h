// The filters, tests, global functions and Python methods a template can call, as tables
// looked up by name. Each is a plain function over the renderer, the subject and the
// arguments; errors are raised through the renderer (RenderError).
#pragma once

#include <string_view>

#include "chat_template/function.h"

namespace crux::chat_template {

// The filter or test of that name; null when Jinja2 has none.
FilterFn FindFilter(std::string_view name);
TestFn FindTest(std::string_view name);

// The global functions (range, namespace, dict, cycler, joiner, raise_exception,
// strftime_now), or undefined.
Value FindGlobal(std::string_view name);

// `subject.name` where subject is a str, list, tuple or dict and name one of Python's methods:
// a bound method, or undefined when there is none. Mutating list and dict methods resolve to
// a callable that raises, as the immutable sandbox does.
Value FindMethod(const Value& subject, std::string_view name);

}  // namespace crux::chat_template
