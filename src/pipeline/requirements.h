// A request's constraints as text, for engines that hand generation to another engine (the
// upstream engine): the GBNF grammar of the whole output and the numbers beside it.
//
// The grammar: the answer (the response format's JSON Schema; the tool-call block of the
// request's family under tool_choice required or a named tool; under auto, free text that
// may end in the block, for families whose block opens with a marker), preceded by the
// family's reasoning block where reasoning is parsed (required when the prompt opened it,
// optional otherwise). No grammar when the request constrains nothing.
#pragma once

#include <memory>

#include "crux/base/error.h"
#include "crux/engine/engine.h"
#include "crux/protocol/request.h"
#include "processors.h"

namespace crux::pipeline {

// Errors: kInvalidArgument naming the field (a schema or tool that does not compile).
Expected<std::shared_ptr<const engine::OutputRequirements>> BuildRequirements(
    const protocol::ChatRequest& request, const ProcessorInputs& inputs);

// Whether the request constrains its output (a response format other than text, or tools
// under tool_choice required or a named tool).
bool Constrains(const protocol::ChatRequest& request);

}  // namespace crux::pipeline
