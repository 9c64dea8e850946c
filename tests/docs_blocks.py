#!/usr/bin/env python3
"""Tests the documentation: the README's code blocks build and run, every
relative link of README.md and docs/ resolves (files and #anchors), and so
does every reference to them from headers, sources, scripts and tests.

  docs_blocks.py --source <top> --build <build tree> --mpiexec <mpiexec> [--links-only]
                 [--python <python with h5py>] [--flag <compiler flag>]...

Every fenced block of README.md carries a marker, an HTML comment on the line
before it (docs/testing.md#the-readmes-code-blocks):

  <!-- test: c-program -->           the README's C blocks, in order, form one program: app.c
  <!-- test: sh [expect="re"]... --> run with bash in the scratch directory (app.c, prog.c and
                                      prog.cpp present; cc, c++ and pkg-config reach the build
                                      tree installed into a scratch prefix; the MPI commands run
                                      as written, e.g. mpiexec.mpich); it must exit 0 and its
                                      output match every expect
  <!-- test: cmake-project -->       a CMakeLists.txt, configured and built beside prog.c
  <!-- test: python cwd=flush -->    (docs/ too) run in a directory holding the flush that
                                      tests/docs_flush_example.c writes
  <!-- test: python-build -->,        docs/python.md's build of the module alone and its quick
  <!-- test: python-run -->           start: run by tests/python/docs_python.py on a clean clone
  <!-- test: skip (reason) -->       not run; the reason is required

A README block without a marker fails the test, so nothing drifts silently.
Blocks in docs/ are run only if marked; their C and C++ blocks are compiled by
docs_code.py (markers c-fragment, cpp-fragment, c-file, cpp-file).
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

MARKER = re.compile(r'^<!--\s*test:\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(```+|~~~+)\s*([\w+-]*)')
failures = []


def fail(msg):
    failures.append(msg)
    print('FAIL:', msg, flush=True)


def blocks(path):
    """(line, language, marker or None, text) of every fenced block."""
    lines = path.read_text().split('\n')
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, start = m.group(1), m.group(2), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        k = start - 1
        while k >= 0 and lines[k].strip() == '':
            k -= 1
        mk = MARKER.match(lines[k]) if k >= 0 else None
        out.append((start + 1, lang, mk.group(1) if mk else None, '\n'.join(lines[start + 1:j]) + '\n'))
        i = j + 1
    return out


# --- links -------------------------------------------------------------------

def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r'<[^>]+>', '', heading).strip().lower()
    text = ''.join(c for c in text if c in ' -_' or unicodedata.category(c)[0] in 'LN')
    return text.replace(' ', '-')


def anchors(path):
    seen, out, fenced = {}, set(), False
    for line in path.read_text().split('\n'):
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if m and not fenced:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out


def check_links(top, files):
    cache = {}
    for path in files:
        fenced = False
        for no, line in enumerate(path.read_text().split('\n'), 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for target in re.findall(r'\]\(([^)\s]+)\)', re.sub(r'`[^`]*`', '', line)):
                if re.match(r'^[a-z]+:', target):
                    continue
                file, _, anchor = target.partition('#')
                dest = (path.parent / file).resolve() if file else path.resolve()
                where = f'{path.relative_to(top)}:{no}: {target}'
                if not dest.exists():
                    fail(f'{where}: no such file')
                    continue
                try:
                    dest.relative_to(top)
                except ValueError:
                    fail(f'{where}: outside the repository')
                    continue
                if anchor:
                    if dest.suffix != '.md':
                        fail(f'{where}: an anchor into a file that is not Markdown')
                        continue
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if anchor not in cache[dest]:
                        fail(f'{where}: no heading with the anchor #{anchor}')


SOURCE_DIRS = ('include', 'src', 'fortran', 'tools', 'examples', 'bench', 'scripts', 'tests', 'python')
SOURCE_SUFFIXES = {'.h', '.hpp', '.c', '.cpp', '.f90', '.py', '.sh', '.txt', '.cmake'}
DOC_REF = re.compile(r'\b(docs/[\w.-]+\.md|README\.md)(#[\w-]+)?')


def check_source_refs(top):
    """References to the documentation from headers, sources, scripts and
    tests: every docs/<page>.md[#anchor] and README.md#anchor resolves, and
    none points to a README section by words alone (README "Persistence",
    "(see the README)": sections moved to docs/ and the words stayed)."""
    cache = {}
    for d in SOURCE_DIRS:
        for path in sorted((top / d).rglob('*')) if (top / d).is_dir() else []:
            if path.suffix not in SOURCE_SUFFIXES and path.name != 'gds' or not path.is_file():
                continue
            if path.name == 'docs_blocks.py':
                continue
            for no, line in enumerate(path.read_text(errors='replace').split('\n'), 1):
                where = f'{path.relative_to(top)}:{no}'
                for page, anchor in DOC_REF.findall(line):
                    dest = top / page
                    if not dest.exists():
                        fail(f'{where}: {page}: no such page')
                        continue
                    if anchor:
                        if dest not in cache:
                            cache[dest] = anchors(dest)
                        if anchor[1:] not in cache[dest]:
                            fail(f'{where}: {page}{anchor}: no heading with that anchor')
                if re.search(r'\bREADME\b(?!\.md)[,;]?\s*("|\)|$)|\(README\b|see the README', line):
                    fail(f'{where}: points to a README section by words (name docs/<page>.md or README.md#anchor)')


# --- running blocks ----------------------------------------------------------

def run(cmd, cwd, env, what, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    print(f'--- {what} (exit {p.returncode})\n{p.stdout}', flush=True)
    return p


def wrapper(bindir, name, target, flags):
    script = bindir / name
    script.write_text('#!/bin/sh\nexec ' + ' '.join([target] + flags) + ' "$@"\n')
    script.chmod(0o755)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--source', required=True)
    ap.add_argument('--build')
    ap.add_argument('--mpiexec')
    ap.add_argument('--python', default=sys.executable)
    ap.add_argument('--flag', action='append', default=[])
    ap.add_argument('--links-only', action='store_true')
    ap.add_argument('--keep', action='store_true', help='keep the scratch directory')
    args = ap.parse_args()
    top = Path(args.source).resolve()
    readme = top / 'README.md'
    docs = sorted((top / 'docs').glob('*.md'))

    check_links(top, [readme] + docs)
    check_source_refs(top)
    for path in docs:  # every page starts with its title and a summary paragraph
        lines = path.read_text().split('\n')
        if not lines[0].startswith('# ') or lines[1] != '' or not lines[2] or lines[2].startswith(('#', '```', '|', '<')):
            fail(f'{path.relative_to(top)}: does not start with a title and a summary paragraph')

    found = [(readme, b) for b in blocks(readme)] + [(p, b) for p in docs for b in blocks(p)]
    for path, (line, lang, marker, _) in found:
        if path == readme and marker is None:
            fail(f'README.md:{line}: a ```{lang} block without a <!-- test: ... --> marker')
        if marker is not None and marker.startswith('skip') and not re.match(r'^skip \(.+\)$', marker):
            fail(f'{path.relative_to(top)}:{line}: "skip" needs a reason in parentheses')
    if args.links_only:
        return report()

    scratch = Path(tempfile.mkdtemp(prefix='gds-docs-'))
    try:
        run_blocks(args, top, readme, found, scratch)
    finally:
        if args.keep:
            print('scratch kept in', scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return report()


def run_blocks(args, top, readme, found, scratch):
    prefix, bindir, work = scratch / 'prefix', scratch / 'bin', scratch / 'work'
    bindir.mkdir()
    work.mkdir()
    p = run(['cmake', '--install', str(Path(args.build).resolve()), '--prefix', str(prefix)], scratch, None, 'install')
    if p.returncode != 0:
        return fail('cmake --install of the build tree failed')
    # The README's MPI commands run as written (mpiexec.mpich, Debian's MPICH, which
    # ./scripts/gds builds with): a tree built with another MPI cannot run them.
    mpiexec = shlex.split(args.mpiexec)
    mpich = shutil.which('mpiexec.mpich')
    if not mpich or os.path.realpath(shutil.which(mpiexec[0]) or mpiexec[0]) != os.path.realpath(mpich):
        return fail(f'the README runs mpiexec.mpich, but this tree was built for {mpiexec[0]}')
    wrapper(bindir, 'cc', shutil.which('cc') or 'gcc', args.flag)
    wrapper(bindir, 'c++', shutil.which('c++') or 'g++', args.flag)
    env = {k: v for k, v in os.environ.items() if not k.startswith(('GDS_', 'SCR_')) and k != 'FLUSH_to_SCR'}
    env.update(PATH=f'{bindir}:{env["PATH"]}', PKG_CONFIG_PATH=str(prefix / 'lib' / 'pkgconfig'),
               CMAKE_PREFIX_PATH=str(prefix), CC=str(bindir / 'cc'), CXX=str(bindir / 'c++'))

    program = ''.join(text for path, (_, _, marker, text) in found if path == readme and marker == 'c-program')
    if not program:
        fail('README.md has no <!-- test: c-program --> block')
    for name in ('app.c', 'prog.c'):
        (work / name).write_text(program)
    (work / 'prog.cpp').write_text('#include <gds.hpp>\nint main(int argc, char **argv) {\n'
                                   '  gds::runtime rt(&argc, &argv);\n'
                                   '  auto a = gds::array<double>::alloc({64});\n  a.fence();\n}\n')

    for path, (line, lang, marker, text) in found:
        if marker is None or marker.startswith('skip') or marker == 'c-program':
            continue
        if re.match(r'(c|cpp)-(fragment|file)\b', marker):  # docs/: compiled by docs_code.py
            continue
        if marker in ('python-build', 'python-run'):  # docs/python.md: run by tests/python/docs_python.py
            continue
        where = f'{path.relative_to(top)}:{line}'
        kind, _, rest = marker.partition(' ')
        if kind == 'sh':
            p = run(['bash', '-u', '-c', text], work, env, f'{where}: sh')
            if p.returncode != 0:
                fail(f'{where}: the block exited with {p.returncode}')
            for expect in re.findall(r'expect="((?:[^"\\]|\\.)*)"', rest):
                if not re.search(expect, p.stdout):
                    fail(f'{where}: output does not match {expect!r}')
        elif kind == 'cmake-project':
            proj = scratch / 'cmake-project'
            proj.mkdir()
            (proj / 'CMakeLists.txt').write_text(text)
            shutil.copy(work / 'prog.c', proj / 'prog.c')
            ok = run(['cmake', '-S', str(proj), '-B', str(proj / 'build'), '-DCMAKE_BUILD_TYPE=Release'],
                     proj, env, f'{where}: cmake configure').returncode == 0
            ok = ok and run(['cmake', '--build', str(proj / 'build')], proj, env,
                            f'{where}: cmake build').returncode == 0
            if not ok:
                fail(f'{where}: the CMake project does not build')
        elif kind == 'python':
            cwd = work
            if 'cwd=flush' in rest:
                cwd = flush_dir(top, scratch, env, mpiexec)
                if cwd is None:
                    fail(f'{where}: the example flush could not be made')
                    continue
            if run([args.python, '-c', text], cwd, env, f'{where}: python').returncode != 0:
                fail(f'{where}: the Python block failed')
        else:
            fail(f'{where}: unknown marker "{marker}"')


def flush_dir(top, scratch, env, mpiexec):
    d = scratch / 'flush'
    if d.exists():
        return d
    d.mkdir()
    pc = subprocess.run(['pkg-config', '--cflags', '--libs', 'gds'], env=env, stdout=subprocess.PIPE,
                        text=True).stdout.split()
    if run(['cc', str(top / 'tests' / 'docs_flush_example.c'), *pc, '-o', 'gen'], d, env,
           'build the example flush').returncode != 0:
        return None
    e = dict(env, GDS_JOB_ID='demo', GDS_PREFIX=str(d / 'prefix'), GDS_COPY_TYPE='NONE')
    if run([*mpiexec, '-n', '2', './gen'], d, e, 'write the example flush').returncode != 0:
        return None
    return d


def report():
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    print('ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
