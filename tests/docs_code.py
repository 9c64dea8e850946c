#!/usr/bin/env python3
"""Compiles the C and C++ blocks of docs/*.md against the public headers, so an
example that does not compile (an undeclared name, a shadowed variable, a
comparison of a count with a length) fails the suite. In seconds: one
-fsyntax-only pass per language, the blocks' lines mapped back to the page
with #line, so the compiler names docs/<page>.md:<line>.

  docs_code.py --source <top> --cc <C compiler> --cxx <C++ compiler> --include <dir>...

Every ```c and ```cpp block of docs/ carries a marker on the line before it
(as every block of README.md does, tests/docs_blocks.py):

  <!-- test: c-fragment [given="declarations"] -->    statements: the body of a function
  <!-- test: cpp-fragment [given="declarations"] -->  whose first lines are the given ones
                                                      (the names the page's text supplies)
  <!-- test: c-file -->, <!-- test: cpp-file -->      a whole translation unit (or file-scope
                                                      declarations, which must agree with gds.h)
  <!-- test: skip (reason) -->                        not compiled; the reason is required

Warnings are errors (-Wall -Wextra -Wshadow): the example is what users copy.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_blocks import blocks  # noqa: E402

LANGS = {'c': 'c', 'cpp': 'cpp', 'c++': 'cpp'}
PRELUDE = {
    'c': '#include <gds.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n',
    'cpp': '#include <gds.hpp>\n#include <cstdint>\n#include <cstdio>\n#include <span>\n#include <vector>\n',
}
FLAGS = ['-fsyntax-only', '-Wall', '-Wextra', '-Wshadow', '-Werror']
STD = {'c': ['-x', 'c', '-std=c11'], 'cpp': ['-x', 'c++', '-std=c++20']}


def given(marker):
    m = re.search(r'given="((?:[^"\\]|\\.)*)"', marker)
    return m.group(1).replace('\\"', '"') if m else ''


def unit(top, lang, items):
    """One translation unit of the blocks in `items` ((path, line, kind, marker, text))."""
    out = [PRELUDE[lang]]
    for k, (path, line, kind, marker, text) in enumerate(items):
        where = f'#line {line + 1} "{path.relative_to(top)}"\n'
        if kind.endswith('-file'):
            out.append(where + text)
        else:
            out.append(f'void docs_fragment_{k}(void);\nvoid docs_fragment_{k}(void) {{\n{given(marker)}\n'
                       f'{where}{text}}}\n')
    return ''.join(out)


def compile_unit(top, compiler, lang, includes, source, what):
    # In the source tree, so that the compiler quotes the page's own lines.
    cmd = [compiler, *STD[lang], *FLAGS, *[f'-isystem{Path(d).resolve()}' for d in includes if d], '-']
    p = subprocess.run(cmd, input=source, cwd=top, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    if p.returncode != 0:
        print(p.stdout)
        print(f'FAIL: {what}: compile errors (the messages above name the page and line)')
    return p.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--source', required=True)
    ap.add_argument('--cc', default='cc')
    ap.add_argument('--cxx', default='c++')
    ap.add_argument('--include', action='append', default=[])
    args = ap.parse_args()
    top = Path(args.source).resolve()

    ok, units = True, {'c': [], 'cpp': []}
    for path in sorted((top / 'docs').glob('*.md')):
        for line, lang, marker, text in blocks(path):
            if lang not in LANGS:
                continue
            where = f'{path.relative_to(top)}:{line}'
            kind = (marker or '').split(' ')[0]
            if marker is None:
                print(f'FAIL: {where}: a ```{lang} block without a <!-- test: ... --> marker')
                ok = False
            elif kind == 'skip':
                continue
            elif kind not in (f'{LANGS[lang]}-fragment', f'{LANGS[lang]}-file'):
                print(f'FAIL: {where}: marker "{marker}" does not fit a ```{lang} block')
                ok = False
            elif kind.endswith('-file'):
                ok = compile_unit(top, args.cc if LANGS[lang] == 'c' else args.cxx, LANGS[lang], args.include,
                                  unit(top, LANGS[lang], [(path, line, kind, marker, text)]), where) and ok
            else:
                units[LANGS[lang]].append((path, line, kind, marker, text))
    for lang, items in units.items():
        if items:
            compiler = args.cc if lang == 'c' else args.cxx
            ok = compile_unit(top, compiler, lang, args.include, unit(top, lang, items),
                              f'the {lang} fragments of docs/ ({len(items)})') and ok
    print('ok' if ok else 'failed')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
