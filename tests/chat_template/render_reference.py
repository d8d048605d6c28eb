#!/usr/bin/env python3
"""The reference renderer crux's chat templates are tested against: Python Jinja2 set up the
way Hugging Face transformers sets it up for apply_chat_template (an immutable sandbox,
trim_blocks and lstrip_blocks, the loopcontrols extension, a `generation` block that renders
its body, a tojson filter that does not escape HTML, raise_exception and strftime_now).

Batch mode (what the tests use) reads JSON on stdin and writes JSON on stdout, one result per
case, {"ok": true, "output": str} or {"ok": false, "error": str, "kind": exception class}:
  {"cases": [{"template": str, "context": {...}}, ...]}  ->  [result, ...]
  {"templates": [str, ...], "contexts": [{...}, ...]}    ->  [[result per context], ...]
Single mode: --template FILE --input CONTEXT.json [--add-generation-prompt] prints the prompt
(exit 2 with the message on a template error), as `crux template render` does.
"""
import argparse
import json
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationBlock(Extension):
    # transformers' AssistantTracker without the tracking: {% generation %} renders its body.
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def strftime_now(format):
    return datetime.now().strftime(format)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render(env, template, context):
    try:
        if isinstance(template, str):
            template = env.from_string(template)
        return {"ok": True, "output": template.render(**context)}
    except RecursionError:
        return {"ok": False, "error": "recursion", "kind": "RecursionError"}
    except Exception as e:  # every failure is a raise for the comparison
        return {"ok": False, "error": str(e), "kind": type(e).__name__}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--template")
    parser.add_argument("--input")
    parser.add_argument("--add-generation-prompt", action="store_true")
    args = parser.parse_args()
    env = environment()
    if args.template is None:
        request = json.load(sys.stdin)
        if "cases" in request:
            results = [render(env, c["template"], c["context"]) for c in request["cases"]]
        else:
            results = []
            for source in request["templates"]:
                try:
                    template = env.from_string(source)
                except Exception as e:
                    failure = {"ok": False, "error": str(e), "kind": type(e).__name__}
                    results.append([failure] * len(request["contexts"]))
                    continue
                results.append([render(env, template, c) for c in request["contexts"]])
        json.dump(results, sys.stdout, ensure_ascii=False)
        return 0
    with open(args.template, encoding="utf-8") as f:
        template = f.read()
    with open(args.input, encoding="utf-8") as f:
        context = json.load(f)
    if args.add_generation_prompt:
        context["add_generation_prompt"] = True
    result = render(env, template, context)
    if not result["ok"]:
        print(result["error"], file=sys.stderr)
        return 2
    sys.stdout.write(result["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
