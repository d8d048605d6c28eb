#!/usr/bin/env python3
"""Differential fuzzing of crux's chat templates: random templates and expressions built from
the constructs real chat templates use, over random contexts, rendered by the reference
(render_reference.py: Python Jinja2 as Hugging Face configures it).

  fuzz_templates.py --seed S --count N   writes {"cases": [{"template", "context", "expected"}]}

The caller (tests/unit/chat_template/differential_fuzz_test.cc) renders each case with crux and
requires the same output, or an error where Jinja2 raised. Cases whose reference output depends
on Python object identity (a generator's address) are left out.
"""
import argparse
import warnings
import json
import random
import re
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render_reference  # noqa: E402

WORDS = ["a", "b", "user", "assistant", "tool", " x ", "Hello, world", "", "  pad  ",
         "line\nbreak", "tab\there", "quote's", 'dq"x', "世界 ok", "<tag>&", "a,b,c", "UPPER",
         "MiXeD case", "123", "4.5", "  42  ", "true", "-7"]
KEYS = ["role", "content", "name", "k", "x", "items", "id", "type"]


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.locals = []
        self.max_depth = 2

    def pick(self, seq):
        return self.r.choice(seq)

    # Contexts.
    def value(self, depth=0):
        r = self.r
        kind = r.randrange(10 if depth < 2 else 6)
        if kind == 0:
            return r.randint(-5, 12)
        if kind == 1:
            return self.pick([0.5, 1.25, -2.0, 3.0, 0.1, 1e-05, 2.5e20, 7.0])
        if kind == 2:
            return self.pick(WORDS)
        if kind == 3:
            return self.pick([True, False])
        if kind == 4:
            return None
        if kind == 5:
            return self.pick(WORDS)
        if kind in (6, 7):
            return [self.value(depth + 1) for _ in range(r.randint(0, 4))]
        return {self.pick(KEYS): self.value(depth + 1) for _ in range(r.randint(0, 4))}

    def context(self):
        ctx = {name: self.value() for name in ["a", "b", "c", "d", "e"]}
        ctx["s"] = self.pick(WORDS)
        ctx["n"] = self.r.randint(-3, 9)
        ctx["l"] = [self.value(1) for _ in range(self.r.randint(0, 5))]
        ctx["m"] = {k: self.value(1) for k in self.r.sample(KEYS, self.r.randint(0, 4))}
        ctx["msgs"] = [{"role": self.pick(["system", "user", "assistant", "tool"]),
                        "content": self.pick(WORDS)} for _ in range(self.r.randint(0, 4))]
        if self.r.random() < 0.3:
            ctx["msgs"][0:0] = [{"role": "assistant", "content": None,
                                 "tool_calls": [{"function": {"name": "f",
                                                              "arguments": {"x": 1}}}]}]
        return ctx

    # Expressions.
    def name(self):
        names = ["a", "b", "c", "d", "e", "s", "n", "l", "m", "msgs", "s", "n", "undefined_name"]
        return self.pick(names + self.locals)

    def literal(self):
        r = self.r
        k = r.randrange(8)
        if k == 0:
            return str(r.randint(-3, 20))
        if k == 1:
            return self.pick(["0.5", "1.0", "2.25", "1e3", "10.0"])
        if k == 2:
            return json.dumps(self.pick(WORDS), ensure_ascii=False)
        if k == 3:
            return "'" + self.pick(["x", "a b", "", "it\\'s", "\\n", "%s-%d"]) + "'"
        if k == 4:
            return self.pick(["true", "false", "none", "True", "None"])
        if k == 5:
            return "[" + ", ".join(self.expr(2) for _ in range(r.randint(0, 3))) + "]"
        if k == 6:
            return "{" + ", ".join(json.dumps(self.pick(KEYS)) + ": " + self.expr(2)
                                   for _ in range(r.randint(0, 3))) + "}"
        return "(" + ", ".join(self.expr(2) for _ in range(r.randint(1, 3))) + ",)"

    FILTERS = ["length", "upper", "lower", "trim", "join", "join(', ')", "first", "last",
               "default('dflt')", "default('dflt', true)", "list", "string", "int", "float",
               "tojson", "tojson(indent=2)", "tojson(sort_keys=true)", "items", "dictsort",
               "sort", "unique", "replace('a', 'X')", "capitalize", "title", "indent(2)",
               "indent(2, true)", "select", "reject", "map('string')", "map('upper')",
               "selectattr('role')", "rejectattr('content')", "selectattr('role', 'equalto', 'user')",
               "map(attribute='role')", "abs", "round", "round(1)", "sum", "min", "max", "reverse",
               "count", "safe", "escape", "center(9)", "batch(2)", "wordcount", "d", "trim('a')",
               "select('string')", "reject('none')", "join(attribute='role')", "list|length",
               "map('length')|list", "dictsort(reverse=true)", "sort(attribute='role')"]
    TESTS = ["defined", "undefined", "none", "string", "number", "mapping", "iterable",
             "sequence", "boolean", "integer", "float", "even", "odd", "divisibleby(3)",
             "in ['a', 'b', 1]", "eq 1", "true", "false", "callable", "lower", "upper",
             "sameas none", "ne 'a'", "gt 2"]
    METHODS = ["strip()", "strip('a ')", "lstrip()", "rstrip('\\n')", "split()", "split(',')",
               "split(',', 1)", "rsplit(',', 1)", "startswith('a')", "endswith(('c', 'b'))",
               "replace('a', 'b')", "upper()", "lower()", "title()", "capitalize()", "find('a')",
               "count('a')", "format(1, 'x')", "get('role')", "get('k', 'none!')", "items()",
               "keys()", "values()", "splitlines()", "partition(',')", "isdigit()", "isspace()",
               "index('a')", "join(['1', '2'])", "zfill(5)", "center(7, '*')", "ljust(4)",
               "removeprefix('a')", "copy()", "append(1)", "pop()", "update({})"]

    def expr(self, depth=0):
        r = self.r
        if depth > self.max_depth:
            return self.pick([self.name(), self.literal()]) if r.random() < 0.6 else self.name()
        k = r.randrange(18)
        d = depth + 1
        if k <= 2:
            return self.name()
        if k == 3:
            return self.literal()
        if k == 4:
            return "%s.%s" % (self.name(), self.pick(KEYS))
        if k == 5:
            idx = self.pick(["0", "-1", "1", "'role'", "'content'", "1:", ":2", "::-1", "1:3",
                             "-2:", "n", "s"])
            # The subject is a variable: Jinja2 folds literal subscripts at compile time, with
            # results crux does not reproduce (a known gap, docs/chat-templates.md).
            return "%s[%s]" % (self.name(), idx)
        if k == 6:
            op = self.pick(["+", "-", "*", "/", "//", "%", "**", "~", "~"])
            return "%s %s %s" % (self.atom(d), op, self.atom(d))
        if k == 7:
            op = self.pick(["==", "!=", "<", ">", "<=", ">=", "in", "not in"])
            return "%s %s %s" % (self.atom(d), op, self.atom(d))
        if k == 8:
            return "%s %s %s" % (self.atom(d), self.pick(["and", "or"]), self.atom(d))
        if k == 9:
            return "not " + self.atom(d)
        if k == 10:
            if r.random() < 0.3:
                return "%s if %s" % (self.atom(d), self.atom(d))
            return "%s if %s else %s" % (self.atom(d), self.atom(d), self.atom(d))
        if k in (11, 12):
            return "%s|%s" % (self.atom(d), self.pick(self.FILTERS))
        if k == 13:
            return "%s is %s%s" % (self.atom(d), self.pick(["", "not "]), self.pick(self.TESTS))
        if k == 14:
            return "%s.%s" % (self.atom(d), self.pick(self.METHODS))
        if k == 15:
            return self.pick(["range(%d)" % r.randint(0, 4), "range(1, %d, 2)" % r.randint(0, 6),
                              "namespace(x=1).x", "dict(a=1, b=%s)" % self.atom(d),
                              "(%s, %s)" % (self.atom(d), self.atom(d))])
        if k == 16:
            return "-" + self.atom(d)
        return "(%s)" % self.expr(d)

    def atom(self, depth):
        e = self.expr(depth)
        return e if e.replace("_", "").replace(".", "").isalnum() else "(" + e + ")"

    # Statements.
    def tag(self, body):
        left = self.pick(["{%", "{%", "{%-", "{%+"])
        right = self.pick(["%}", "%}", "-%}", "+%}"])
        return "%s %s %s" % (left, body, right)

    def text(self):
        return self.pick(["", "x", " ", "\n", "  \n  ", "\n\n", "text ", "  ", "\t", "a\n  "])

    def output(self):
        return "%s %s %s" % (self.pick(["{{", "{{-"]), self.expr(), self.pick(["}}", "-}}"]))

    def block(self, depth):
        n = self.r.randint(1, 4)
        return "".join(self.stmt(depth) for _ in range(n))

    def stmt(self, depth=0):
        r = self.r
        k = r.randrange(12 if depth < 3 else 3)
        d = depth + 1
        if k == 0:
            return self.text()
        if k in (1, 2):
            return self.text() + self.output()
        if k == 3:
            out = self.tag("if " + self.atom(0)) + self.block(d)
            if r.random() < 0.4:
                out += self.tag("elif " + self.atom(0)) + self.block(d)
            if r.random() < 0.5:
                out += self.tag("else") + self.block(d)
            return out + self.tag("endif")
        if k in (4, 5):
            var = self.pick(["x", "item", "k, v"])
            seq = self.pick([self.atom(1), "msgs", "l", "m.items()", "m|dictsort", "s", "range(3)"])
            cond = " if " + self.atom(2) if r.random() < 0.2 else ""
            self.locals.extend(["x", "item", "k", "v", "loop.index", "loop.first", "loop.last",
                                "loop.length", "loop.revindex", "loop.index0", "loop.previtem",
                                "loop.nextitem", "loop.cycle('o', 'e')"])
            body = self.block(d)
            if r.random() < 0.2:
                body += self.tag("if " + self.atom(2)) + self.tag(self.pick(["break", "continue"])) + self.tag("endif")
            del self.locals[-13:]
            out = self.tag("for %s in %s%s" % (var, seq, cond)) + body
            if r.random() < 0.3:
                out += self.tag("else") + self.block(d)
            return out + self.tag("endfor")
        if k == 6:
            var = self.pick(["t", "u", "ns.x", "p, q"])
            if var == "ns.x":
                return self.tag("set ns = namespace(x=0)") + self.tag("set ns.x = " + self.expr()) + self.output()
            self.locals.append(var.split(",")[0])
            return self.tag("set %s = %s" % (var, self.expr()))
        if k == 7:
            self.locals.append("cap")
            return self.tag("set cap" + self.pick(["", " | upper", " | trim"])) + self.block(d) + self.tag("endset")
        if k == 8:
            args = self.pick(["", "p", "p, q=2", "p='dp'", "p, q=2"])
            body = self.block(d) + "{{ p }}{{ q }}"
            if r.random() < 0.8:
                n = args.count(",") + (1 if args else 0)
                call = "mac(%s)" % ", ".join(self.atom(2) for _ in range(r.randint(0, n)))
            else:
                call = self.pick(["mac('z', q=3)", "mac(1, 2, 3)", "mac(q=none)"])
            return self.tag("macro mac(%s)" % args) + body + self.tag("endmacro") + "{{ " + call + " }}"
        if k == 9:
            return (self.tag("macro wrap(w)") + "[{{ caller() }}|{{ w }}]" + self.tag("endmacro") +
                    self.tag("call wrap(%s)" % self.expr(2)) + self.block(d) + self.tag("endcall"))
        if k == 10:
            return self.tag("filter " + self.pick(["upper", "trim", "replace('a', 'b')", "lower|trim"])) + self.block(d) + self.tag("endfilter")
        if r.random() < 0.7:
            return self.text() + self.output()
        raw = self.pick(["{% raw %}", "{%- raw %}", "{% raw -%}", "{%+ raw %}", "{% raw %}",
                         "{% raw +%}"])
        return raw + self.pick(["{{ x }}", " {% if %}\n", "plain  "]) + self.tag("endraw")

    def template(self):
        self.locals = []
        self.max_depth = self.pick([1, 2, 2, 3])
        body = "".join(self.stmt() for _ in range(self.r.randint(1, 5)))
        if self.r.random() < 0.2:
            body = "{#- " + self.pick(["c", "note"]) + " -#}\n" + body
        if self.r.random() < 0.3:
            body += "\n"
        return body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    gen = Gen(random.Random(args.seed))
    env = render_reference.environment()
    cases = []
    while len(cases) < args.count:
        template = gen.template()
        context = gen.context()
        expected = render_reference.render(env, template, context)
        if expected["ok"] and re.search(r" 0x[0-9a-f]+>", expected["output"], re.I):
            continue  # a Python object's address
        cases.append({"template": template, "context": context, "expected": expected})
    json.dump({"cases": cases}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
