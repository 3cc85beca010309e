#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every public entry point of the GLib rooms checks its pointer arguments.

A public entry point is a function declared in a header of analyzer/read,
base, model, diagnose, render, report, cli/ or gui/ (not a -private.h one,
which only its own room may include; not a static inline function, which
is compiled into its caller). Its definition must start with
g_return_val_if_fail / g_return_if_fail statements, and every pointer
parameter must be named in one of them, unless NULL is a valid argument:

  - `GError **error`: optional by GLib convention;
  - the first parameter of a `*_free` or `*_unref` function: they accept
    NULL, as g_free() does;
  - a `gpointer user_data` (or any `gpointer ..._data`): the caller's
    closure data, handed back as is;
  - a `GCancellable *`: optional by GIO convention;
  - a parameter the header documents as nullable: `/* nullable */` after
    it in the declaration, or, in the comment above the declaration, a
    sentence that names it (`@name`) and says "may be NULL", or
    `@name (NULL...` ("@options (NULL for the defaults)"), or `NULL @name`.

Usage: check-preconditions.py SOURCE_ROOT [--list] [--stats]
Exit 1 with one line per missing precondition.
"""
import os
import re
import sys

ROOMS = ['analyzer/read', 'analyzer/base', 'analyzer/model', 'analyzer/loop', 'analyzer/diagnose',
         'analyzer/render', 'analyzer/report', 'cli', 'gui']

COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
POINTER_TYPEDEFS = {'gpointer', 'gconstpointer', 'GStrv'}


def strip_comments(text):
    # Keep newlines so that line numbers still hold.
    return COMMENT_RE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def split_top(s, sep=','):
    """Splits @s on @sep outside parentheses and brackets."""
    parts, depth, cur = [], 0, ''
    for c in s:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += c
    parts.append(cur)
    return parts


def param_name_type(p):
    """(name, is_pointer) of one parameter written without comments."""
    p = ' '.join(p.split())
    if p in ('', 'void', '...'):
        return None
    m = re.search(r'\(\s*\*\s*(\w+)\s*\)\s*\(', p)  # function pointer
    if m:
        return m.group(1), True
    m = re.search(r'(\w+)\s*((?:\[[^\]]*\]\s*)*)$', p)
    if not m:
        return None
    name, arrays = m.group(1), m.group(2)
    typ = p[:m.start()]
    words = set(re.findall(r'\w+', typ))
    if not words:  # a prototype without parameter names
        return None
    return name, ('*' in typ or bool(arrays) or bool(words & POINTER_TYPEDEFS))


def paren_end(text, i):
    """Index just past the parenthesis that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == '(':
            depth += 1
        elif text[j] == ')':
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def header_declarations(path, text):
    """[(name, line, [(param, is_pointer, nullable)])] of one header."""
    code = strip_comments(text)
    decls = []
    for m in re.finditer(r'\b(pfprof_\w+)\s*\(', code):
        name = m.group(1)
        start_of_stmt = max(code.rfind(';', 0, m.start()), code.rfind('}', 0, m.start()),
                            code.rfind('{', 0, m.start()), code.rfind('#', 0, m.start()) - 1)
        prefix = code[start_of_stmt + 1:m.start()]
        if '(' in prefix or '=' in prefix or 'typedef' in prefix or '#' in prefix:
            continue  # a call, a macro body, a typedef
        if not re.search(r'\w', prefix) or 'static' in prefix.split():
            continue  # no return type: a macro use; static inline: the caller's code
        close = paren_end(code, m.end() - 1)
        after = code[close:close + 200].lstrip()
        after = re.sub(r'^(G_GNUC_\w+\s*(\([^)]*\))?\s*)*', '', after)
        if not after.startswith(';'):
            continue
        raw_params = text[m.end():close - 1]
        params = []
        # The comment above the declaration: from the end of the statement
        # before it.
        doc = text[start_of_stmt + 1:m.start()]
        nullable_doc = set()
        doc = re.sub(r'\n\s*\*(?!/)', ' ', doc)  # the comment's leading stars
        for sentence in re.split(r'\.\s', ' '.join(doc.split())):
            if re.search(r'may be NULL', sentence):
                nullable_doc.update(re.findall(r'@(\w+)', sentence))
            nullable_doc.update(re.findall(r'@(\w+) \(NULL\b(?!-)', sentence))
            nullable_doc.update(re.findall(r'\bNULL @(\w+)', sentence))
        for raw in split_top(raw_params):
            nt = param_name_type(strip_comments(raw))
            if nt is None:
                continue
            marked = bool(re.search(r'/\*\s*nullable\s*\*/', raw))
            words = re.findall(r'\w+', strip_comments(raw))
            # GIO's optional cancellable; closure data handed back as is.
            marked = (marked or 'GCancellable' in words
                      or ('gpointer' in words and nt[0].endswith('data')))
            params.append((nt[0], nt[1], marked or nt[0] in nullable_doc))
        decls.append((name, code.count('\n', 0, m.start()) + 1, params))
    return decls


CONSTANT_RE = re.compile(r"(NULL|FALSE|TRUE|-?[0-9][0-9.]*[A-Za-z]*|G_[A-Z0-9_]+|[A-Z][A-Z0-9_]+"
                         r"|\{[\s0-9A-Z_,.-]*\}|'[^']*'|\"[^\"]*\")$")
DECLARATOR_RE = re.compile(r'\**\s*(const\s+)?\w+(\s*\[[^\]]*\])*(\s*=\s*(.*))?$', re.S)


def quiet_declaration(stmt):
    """TRUE for a declaration that runs no code: a precondition may come
    after the locals are declared, as long as nothing reads an argument
    before it."""
    stmt = ' '.join(stmt.split())
    # g_autoptr (T) and g_auto (T) name the type in their parentheses.
    a = re.match(r'g_auto(ptr)?\s*\(\s*\w+\s*\)\s*(.*)$', stmt)
    if a:
        for decl in split_top(a.group(2)):
            d = DECLARATOR_RE.match(decl.strip())
            if not d or (d.group(4) is not None and not CONSTANT_RE.match(d.group(4).strip())):
                return False
        return True
    m = re.match(r'(static\s+)?(const\s+)?(g_autofree\s+|g_autoptr\s*\(\s*\w+\s*\)\s*|g_auto\s*\(\s*\w+\s*\)\s*)?'
                 r'((struct|enum|unsigned|signed|long)\s+)*(\w+)\s*(\*+\s*|\s)(.*)$', stmt)
    if not m or m.group(6) in ('return', 'goto', 'break', 'continue'):
        return False
    first = m.group(7).strip()
    for decl in split_top(first + ' ' + m.group(8) if first else m.group(8)):
        d = DECLARATOR_RE.match(decl.strip())
        if not d or (d.group(4) is not None and not CONSTANT_RE.match(d.group(4).strip())):
            return False
    return True


def definitions(sources):
    """name -> (path, line, [param names], leading precondition text)."""
    defs = {}
    for path, text in sources:
        code = strip_comments(text)
        for m in re.finditer(r'^(pfprof_\w+)\s*\(', code, re.M):
            close = paren_end(code, m.end() - 1)
            rest = code[close:]
            b = re.match(r'\s*\{', rest)
            if not b:
                continue
            params = [nt[0] if nt else None
                      for nt in (param_name_type(p) for p in split_top(code[m.end():close - 1]))]
            body = rest[b.end():]
            checks = []
            while True:
                c = re.match(r'\s*(g_return_val_if_fail|g_return_if_fail)\s*\(', body)
                if not c:
                    d = re.match(r'\s*([^;]*);', body)
                    if checks or not d or not quiet_declaration(d.group(1)):
                        break
                    body = body[d.end():]
                    continue
                end = paren_end(body, c.end() - 1)
                checks.append(body[c.end():end - 1])
                body = body[end:]
                body = body[re.match(r'\s*;?', body).end():]
            defs[m.group(1)] = (path, code.count('\n', 0, m.start()) + 1,
                                [p for p in params if p], ' '.join(checks))
    return defs


def main():
    root = sys.argv[1]
    opts = sys.argv[2:]
    headers, sources = [], []
    for room in ROOMS:
        for dirpath, _, files in os.walk(os.path.join(root, room)):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                if f.endswith('.h') and not f.endswith('-private.h'):
                    headers.append(rel)
                if f.endswith('.c'):
                    with open(os.path.join(root, rel), encoding='utf-8') as fh:
                        sources.append((rel, fh.read()))
    defs = definitions(sources)
    total = checked = allowed = needing = 0
    failures = []
    for h in sorted(headers):
        with open(os.path.join(root, h), encoding='utf-8') as fh:
            text = fh.read()
        for name, line, params in header_declarations(h, text):
            if name not in defs:
                continue  # a macro or an inline function
            path, dline, dparams, checks = defs[name]
            total += 1
            words = set(re.findall(r'\w+', checks))
            missing = []
            n_allowed = 0
            for i, (pname, is_ptr, nullable) in enumerate(params):
                if not is_ptr:
                    continue
                dname = dparams[i] if i < len(dparams) else pname
                if (nullable
                        or dname == 'error' or pname == 'error'
                        or (i == 0 and re.search(r'_(free|unref)$', name))
                        ):
                    n_allowed += 1
                    continue
                if dname not in words:
                    missing.append(dname)
            allowed += n_allowed > 0
            needs = [p for p in params if p[1]]
            needing += len(needs) > n_allowed
            if missing:
                failures.append(f'{path}:{dline}: {name} ({h}:{line}) does not start with a '
                                f'precondition on {", ".join(missing)}')
            elif len(needs) > n_allowed:
                checked += 1
            if '--list' in opts:
                print(f'{"FAIL" if missing else "ok  "} {name} {h}:{line}')
    for f in failures:
        print('FAIL: ' + f)
    if '--stats' in opts or failures:
        print(f'check-preconditions: {total} public entry points, {needing} with a pointer '
              f'argument that must not be NULL: {checked} check it, {len(failures)} do not; '
              f'{allowed} take a pointer that may be NULL')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
