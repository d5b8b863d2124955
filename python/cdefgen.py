"""cffi cdef text generated from C headers, so declarations are written once.

spawnkit_build.py feeds it the public headers (include/spawnkit/*.h) and
run_io.h at build time; tests/test_cdef.py checks the result against the
symbols libspawnkit.so exports.  What it does to a header:

  - comments go; backslash-continued lines are joined;
  - `#ifdef __cplusplus` blocks go (their `#else` branch stays); other
    conditionals (include guards) keep their contents;
  - `#define NAME <integer expression>` (offsetof() included) becomes
    `#define NAME ...` (cffi takes the value from the compiler); string, empty and function-like
    macros, and names with a double underscore (private helpers), go;
  - `_Static_assert`/`static_assert` and SPAWNKIT__SA(...) statements go;
  - a `static inline` function becomes its prototype (API mode compiles a
    call to the real inline function);
  - the kernel's __u32/__s32/__aligned_u64... become <stdint.h> types;
  - an array length given by a macro (reasons[SPAWNKIT_WARM_NR_REASONS])
    becomes [...].

PRELUDE declares what the headers take from system headers.
"""
from __future__ import annotations

import re
from typing import Iterable, List

PRELUDE = """\
typedef int... pid_t;
typedef ... sigset_t;
struct open_how { uint64_t flags; uint64_t mode; uint64_t resolve; };
extern char **environ;
"""

_KERNEL_TYPES = {
    "__aligned_u64": "uint64_t", "__u64": "uint64_t", "__s64": "int64_t",
    "__u32": "uint32_t", "__s32": "int32_t", "__u16": "uint16_t",
    "__s16": "int16_t", "__u8": "uint8_t", "__s8": "int8_t",
}
_INT_EXPR = re.compile(r"^[\w\s()<>|&~+\-*/,]+$")  # , for offsetof(T, f)
_STATIC_ASSERT = re.compile(r"\b(?:_Static_assert|static_assert|SPAWNKIT__SA)\s*\(")


def _preprocess(text: str) -> List[str]:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    out: List[str] = []
    stack: List[bool] = []          # is this branch kept?
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"#\s*(\w+)\s*(.*)$", s)
        if not m:
            if all(stack):
                out.append(line)
            continue
        word, rest = m.group(1), m.group(2).strip()
        if word in ("if", "ifdef", "ifndef"):
            stack.append("__cplusplus" not in rest)
        elif word == "else":
            if stack:
                stack[-1] = not stack[-1]
        elif word == "endif":
            if stack:
                stack.pop()
        elif word == "define" and all(stack):
            d = re.match(r"(\w+)(\(?)\s*(.*)$", rest)
            if not d:
                continue
            name, fnlike, value = d.groups()
            if fnlike or not value or "__" in name or '"' in value:
                continue
            if _INT_EXPR.match(value):
                out.append(f"#define {name} ...")
    return out


def _drop_statements(text: str, start: "re.Pattern[str]") -> str:
    """Drop every statement that begins with `start` up to its `;`."""
    while True:
        m = start.search(text)
        if not m:
            return text
        end = text.index(";", m.end())
        text = text[:m.start()] + text[end + 1:]


def _inline_to_prototypes(text: str) -> str:
    out = []
    pos = 0
    for m in re.finditer(r"\bstatic\s+inline\s+", text):
        if m.start() < pos:
            continue
        brace = text.index("{", m.end())
        out.append(text[pos:m.start()])
        out.append(text[m.end():brace].rstrip() + ";\n")
        depth, i = 0, brace
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        pos = i + 1
    out.append(text[pos:])
    return "".join(out)


def cdef_of_header_text(text: str) -> str:
    body = "\n".join(_preprocess(text))
    body = _drop_statements(body, _STATIC_ASSERT)
    body = _inline_to_prototypes(body)
    body = re.sub(r'\bextern\s+"C"\s*\{', "", body)
    for k, v in _KERNEL_TYPES.items():
        body = re.sub(r"\b%s\b" % k, v, body)
    # an array length given by a macro: cffi takes it from the compiler
    body = re.sub(r"\[\s*[A-Z_][A-Z0-9_]*\s*\]", "[...]", body)
    lines = [ln.rstrip() for ln in body.splitlines()]
    text = "\n".join(ln for ln in lines if ln.strip())
    return text + "\n"


def cdef_of_headers(paths: Iterable[str], prelude: str = PRELUDE) -> str:
    """The cdef of several headers, in order, after PRELUDE."""
    parts = [prelude]
    for p in paths:
        with open(p) as f:
            parts.append(cdef_of_header_text(f.read()))
    return "\n".join(parts)
