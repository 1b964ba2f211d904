#!/usr/bin/env python3
"""Lists Swift functions (func, init, deinit, subscript, computed-property accessors are not counted) whose body is
longer than a bound, for the code-shape figures of docs/service-template.md.

Usage: scripts/lib/long-functions.py [--over N] DIR...
A function's length is the number of lines from its declaration to its closing brace. Braces inside strings and
comments are skipped (line comments, block comments, "…" and multi-line \"\"\" literals; raw strings are rare here).
"""
import os, re, sys

DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|'
                  r'override|mutating|nonisolated|convenience|required|@inlinable|@usableFromInline)\s+)*'
                  r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b')

def strip(text):
    """The text with string literals and comments blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3); j = n if j < 0 else j + 3
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (min(j + 1, n) - i)); i = j + 1
        else:
            out.append(text[i]); i += 1
    return ''.join(out)

def functions(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = strip(f.read()).split('\n')
    for number, line in enumerate(lines):
        m = DECL.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(number, len(lines)):
            for ch in lines[end]:
                if ch == '{':
                    depth += 1; opened = True
                elif ch == '}':
                    depth -= 1
            if opened and depth <= 0:
                yield m.group(1).replace('func ', ''), number + 1, end - number + 1
                break
            if not opened and end > number and lines[end].strip() == '' :
                break  # a protocol requirement: no body

def main(argv):
    over = 60
    if argv[:1] == ['--over']:
        over, argv = int(argv[1]), argv[2:]
    found = []
    for root in argv or ['.']:
        for base, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith('.')]
            for name in files:
                if name.endswith('.swift'):
                    path = os.path.join(base, name)
                    found += [(length, path, line, fn) for fn, line, length in functions(path) if length > over]
    for length, path, line, fn in sorted(found, reverse=True):
        print(f'{length:5d}  {path}:{line}  {fn}')
    print(f'{len(found)} functions over {over} lines')

if __name__ == '__main__':
    main(sys.argv[1:])
