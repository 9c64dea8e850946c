#!/usr/bin/env python3
"""Source check: the persist module's files stay under 600 lines and every
function in them under 80 (issue 35: a protocol written in one screenful per
step is one a reader can follow).

  check_sizes.py <src>

A function is a brace block opened after a parameter list (`) {`, `) const {`,
`) override {`, `) noexcept try {`, ...) outside another function; its length
runs from the line its signature starts on to its closing brace."""
import re
import sys
from pathlib import Path

MAX_FILE, MAX_FUNCTION = 600, 80
OPENS_FUNCTION = re.compile(r'\)\s*(const\s*)?(override\s*)?(noexcept\s*)?(try\s*)?(->\s*[\w:<>&*\s]+)?$')


def code_of(text):
    """The text with comments and string and character literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    code = code_of(path.read_text())
    lines = code.split('\n')
    depth, inside, start, name, found = 0, None, 0, '', []
    for no, line in enumerate(lines):
        for k, c in enumerate(line):
            if c == '{':
                before = (line[:k] if k else lines[no - 1] if no else '').rstrip()
                if inside is None and OPENS_FUNCTION.search(before if k else before):
                    # The signature starts at the line holding its name and '('.
                    s = no if k else no - 1
                    while s > 0 and '(' not in lines[s] and lines[s - 1].strip():
                        s -= 1
                    while s > 0 and lines[s].startswith(' ' * 6) and lines[s - 1].strip() and '(' in lines[s - 1]:
                        s -= 1
                    inside, start, name = depth, s, lines[s].strip()[:70]
                depth += 1
            elif c == '}':
                depth -= 1
                if inside is not None and depth == inside:
                    found.append((start + 1, no - start + 1, name))
                    inside = None
    return found


def main():
    src = Path(sys.argv[1])
    problems = []
    for path in sorted((src / 'persist').glob('*.[ch]pp')):
        n = len(path.read_text().split('\n')) - 1
        if n >= MAX_FILE:
            problems.append(f'{path}: {n} lines (at most {MAX_FILE - 1})')
        for line, length, name in functions(path):
            if length >= MAX_FUNCTION:
                problems.append(f'{path}:{line}: a function of {length} lines (at most {MAX_FUNCTION - 1}): {name}')
    for p in problems:
        print('FAIL:', p)
    print('check_sizes:', f'{len(problems)} problem(s)' if problems else 'ok')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
