#!/usr/bin/env python3
"""readme.py: README.md as a test (tests/readme.bats has the rules).

    readme.py lint README.md                 every fenced block classified
    readme.py run README.md TOP SCRATCH      every section's blocks run and
                                             compared, one scratch copy of
                                             the checkout TOP a section

Each problem is one line, "README.md:LINE: what is wrong", then, for a
command that failed, the tail of its output; exit 1 when there is one.
"""
import os
import re
import shutil
import subprocess
import sys
import time

FENCE = re.compile(r'^(```+)\s*([A-Za-z0-9_+-]*)\s*$')
DIRECTIVE = re.compile(r'^<!--\s*(setup|status|file|then):\s*(.*?)\s*-->\s*$')
SECTION = re.compile(r'^(##+)\s+(.*)$')
# A number, signed or not, with a fraction or an exponent: what varies
# from run to run in a transcript.
NUMBER = re.compile(r'[-+]?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')
# How long a section may take, all its commands together.
SECTION_TIMEOUT = 900
# How many times a section is tried before its problems count.
TRIES = 3


class Block:
    def __init__(self, line, info, body, directives, section):
        self.line, self.info, self.body = line, info, body
        self.directives, self.section = directives, section

    def kind(self):
        """sh, text, transcript, file, or None (unmarked)."""
        if self.info == 'text':
            return 'text'
        if any(k == 'file' for k, _ in self.directives):
            return 'file'
        if self.info == 'sh':
            return 'sh'
        if self.info == '' and self.body and self.body[0].startswith('$ '):
            return 'transcript'
        return None

    def commands(self):
        """(README line, command) of each command line of an sh block."""
        out = []
        for i, text in enumerate(self.body):
            if text.strip() and not text.lstrip().startswith('#'):
                out.append((self.line + 1 + i, text))
        return out

    def get(self, key):
        return [v for k, v in self.directives if k == key]


def parse(path):
    """The fenced blocks of a Markdown file, each with the directives on
    the lines just above its fence and the section it is in."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    blocks, section, i = [], (0, ''), 0
    while i < len(lines):
        m = SECTION.match(lines[i])
        if m:
            section = (i + 1, m.group(2))
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info, start = m.group(1), m.group(2), i
        directives, j = [], i - 1
        while j >= 0 and DIRECTIVE.match(lines[j]):
            d = DIRECTIVE.match(lines[j])
            directives.insert(0, (d.group(1), d.group(2)))
            j -= 1
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        blocks.append(Block(start + 1, info, body, directives, section))
        i += 1
    return blocks


def lint(path, blocks):
    bad = []
    for b in blocks:
        k = b.kind()
        where = '%s:%d' % (os.path.basename(path), b.line)
        if k is None:
            bad.append('%s: a block neither run nor marked: tag it ```sh (commands, run), '
                       'start it with "$ command" (a transcript, compared), give it '
                       '<!-- file: PATH --> (written for the commands after it), or tag it '
                       '```text (illustrative)' % where)
        elif k == 'text' and b.directives:
            bad.append('%s: an illustrative block takes no directives' % where)
        if k == 'sh':
            want = b.get('status')
            if want:
                st = ' '.join(want).split()
                if len(st) != len(b.commands()) or not all(s.isdigit() for s in st):
                    bad.append('%s: <!-- status: --> names %d statuses for %d commands'
                               % (where, len(st), len(b.commands())))
    return bad


def mask(s):
    return re.sub(r'\s+', ' ', NUMBER.sub('#', s)).strip()


def line_matches(shown, real):
    """A transcript line as shown matches a line of real output: numbers
    masked, blanks collapsed, and '…' standing for any text."""
    pieces = [mask(p) for p in shown.split('…')]
    rx = '.*'.join(re.escape(p) for p in pieces)
    # A piece's blanks at a '…' may be more or fewer.
    rx = rx.replace(r'\ .*', r'\s*.*').replace(r'.*\ ', r'.*\s*')
    return re.fullmatch(rx, mask(real)) is not None


def transcript_matches(shown, real):
    """Every shown line matches a real one, in order. A shown line '…'
    stands for any lines; a real line of the gate's progress ("gate: ",
    or its loop's, "gaterun: ") that the README leaves out is passed over."""
    progress = ('gate: ', 'gaterun: ')
    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(shown):
            r = all(x.startswith(progress) for x in real[j:])
        elif shown[i].strip() == '…':
            r = any(at(i + 1, k) for k in range(j, len(real) + 1))
        else:
            r = False
            if j < len(real) and line_matches(shown[i], real[j]):
                r = at(i + 1, j + 1)
            if not r and j < len(real) and real[j].startswith(progress):
                r = at(i, j + 1)
        memo[(i, j)] = r
        return r
    sys.setrecursionlimit(100000)
    return at(0, 0)


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def scratch_copy(top, dest):
    """The checkout's files (git's list, tracked or not, but not those it
    ignores; else MANIFEST's), its built tools
    and objects, timestamps kept, so that make rebuilds nothing."""
    try:
        names = subprocess.run(['git', '-C', top, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], check=True,
                               capture_output=True).stdout.decode().split('\0')
    except (OSError, subprocess.CalledProcessError):
        with open(os.path.join(top, 'MANIFEST')) as f:
            names = f.read().split('\n')
    names = [n for n in names if n and os.path.lexists(os.path.join(top, n))]
    os.makedirs(dest)
    tarball = os.path.join(dest, '.files.tar')
    subprocess.run(['tar', '-C', top, '--null', '-T', '-', '-cf', tarball],
                   input='\0'.join(names).encode(), check=True)
    subprocess.run(['tar', '-C', dest, '-xf', tarball], check=True)
    os.unlink(tarball)
    for d in ('bin', 'build/obj'):
        src = os.path.join(top, d)
        if os.path.isdir(src):
            os.makedirs(os.path.join(dest, d), exist_ok=True)
            subprocess.run(['cp', '-a', src + '/.', os.path.join(dest, d)], check=True)


def section_script(blocks, logs):
    """One bash script for a section: its blocks in order, each command's
    output in logs/LINE.log and its status in logs/status. A command runs
    in a subshell of its own, so that one that exits stops only itself;
    a setup runs in the section's shell, so that its cd and exports carry
    to the blocks after it."""
    out = ['exec 3>>%s' % q(os.path.join(logs, 'status'))]
    for b in blocks:
        k = b.kind()
        for s in b.get('setup'):
            out.append('{ %s\n} >>%s 2>&1 </dev/null || { echo "%d setup $?" >&3; exit 0; }'
                       % (s, q(os.path.join(logs, '%d.setup.log' % b.line)), b.line))
        if k == 'file':
            path = b.get('file')[0]
            out.append('mkdir -p "$(dirname %s)" && cat > %s <<\'README_EOF\'' % (q(path), q(path)))
            out.extend(b.body)
            out.append('README_EOF')
        elif k == 'sh':
            for line, cmd in b.commands():
                out.append('( %s\n) >%s 2>&1 </dev/null; echo "%d $?" >&3'
                           % (cmd, q(os.path.join(logs, '%d.log' % line)), line))
        elif k == 'transcript':
            cmd = b.body[0][2:]
            out.append('( %s\n) >%s 2>&1 </dev/null; echo "%d $?" >&3'
                       % (cmd, q(os.path.join(logs, '%d.log' % b.line)), b.line))
        for s in b.get('then'):
            out.append('{ %s\n} >>%s 2>&1 </dev/null || { echo "%d then $?" >&3; exit 0; }'
                       % (s, q(os.path.join(logs, '%d.then.log' % b.line)), b.line))
    return '\n'.join(out) + '\n'


def tail(path, n=15):
    try:
        with open(path, errors='replace') as f:
            lines = f.read().split('\n')
    except OSError:
        return ''
    return '\n'.join('    ' + x for x in lines[-n - 1:])


def run_section(name, n, sline, title, sblocks, top, scratch, env):
    """One try of a section in a fresh scratch copy: the problems found."""
    bad = []
    work = os.path.join(scratch, 's%s' % n)
    logs = os.path.join(scratch, 'logs%s' % n)
    os.makedirs(logs)
    scratch_copy(top, work)
    e = dict(env, HOME=os.path.join(scratch, 'home%s' % n),
             PATH=os.path.join(work, 'bin') + ':' + env.get('PATH', ''))
    os.makedirs(e['HOME'])
    script = section_script(sblocks, logs)
    with open(os.path.join(logs, 'script.sh'), 'w') as f:
        f.write(script)
    try:
        subprocess.run(['bash', os.path.join(logs, 'script.sh')], cwd=work, env=e,
                       timeout=SECTION_TIMEOUT, start_new_session=True)
    except subprocess.TimeoutExpired:
        bad.append('%s:%d: section "%s" took more than %d s' % (name, sline, title, SECTION_TIMEOUT))
    status = {}
    with open(os.path.join(logs, 'status')) as f:
        for ln in f:
            a = ln.split()
            if len(a) == 3 and a[1] in ('setup', 'then'):
                status[(int(a[0]), a[1])] = int(a[2])
            elif len(a) == 2:
                status[int(a[0])] = int(a[1])
    for b in sblocks:
        if (b.line, 'setup') in status:
            bad.append('%s:%d: the setup of this block failed (status %d)\n%s'
                       % (name, b.line, status[(b.line, 'setup')],
                          tail(os.path.join(logs, '%d.setup.log' % b.line))))
            break
        if (b.line, 'then') in status:
            bad.append('%s:%d: the check after this block failed (status %d)\n%s'
                       % (name, b.line, status[(b.line, 'then')],
                          tail(os.path.join(logs, '%d.then.log' % b.line))))
            break
        if b.kind() == 'sh':
            want = ' '.join(b.get('status')).split() or None
            for i, (line, cmd) in enumerate(b.commands()):
                w = int(want[i]) if want else 0
                got = status.get(line)
                if got != w:
                    bad.append('%s:%d: %s: %s, not %d\n%s'
                               % (name, line, cmd.strip(),
                                  'did not run' if got is None else 'status %d' % got, w,
                                  tail(os.path.join(logs, '%d.log' % line))))
        elif b.kind() == 'transcript':
            log = os.path.join(logs, '%d.log' % b.line)
            if b.line not in status:
                bad.append('%s:%d: %s: did not run' % (name, b.line, b.body[0]))
                continue
            with open(log, errors='replace') as f:
                real = f.read().rstrip('\n').split('\n')
            if not transcript_matches(b.body[1:], real):
                bad.append('%s:%d: %s: the output differs from the transcript (numbers masked); it was:\n%s'
                           % (name, b.line, b.body[0], '\n'.join('    ' + x for x in real)))
    return bad


def run(path, top, scratch):
    blocks = parse(path)
    bad = lint(path, blocks)
    if bad:
        return bad
    name = os.path.basename(path)
    sections = []
    for b in blocks:
        if b.kind() in ('sh', 'transcript', 'file'):
            if not sections or sections[-1][0] != b.section:
                sections.append((b.section, []))
            sections[-1][1].append(b)
    env = dict(os.environ)
    for v in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'GATEDIR', 'BASE', 'HEAD', 'BUDGET', 'RUNS', 'DESTDIR'):
        env.pop(v, None)
    # One object store for every section's gates: a side compiled once
    # (the kata, the project) is taken from it by the next section, as a
    # user's second gate takes it from build/gate-objects. What a gate
    # prints and decides is the same either way.
    env['GATE_OBJECTS'] = os.path.join(os.path.abspath(scratch), 'objects')
    times = []
    for n, ((sline, title), sblocks) in enumerate(sections):
        # A measurement differs from run to run beyond what masking hides
        # (a gate that needs a third round, on a busy machine): a section
        # is tried again, in a fresh copy, before its problems count. A
        # stale README fails every try.
        for attempt in range(TRIES):
            t0 = time.monotonic()
            got = run_section(name, '%d.%d' % (n, attempt), sline, title, sblocks, top, scratch, env)
            times.append('%s:%d %.1f s, try %d%s: %s' % (name, sline, time.monotonic() - t0, attempt + 1,
                                                        ', failed' if got else '', title))
            if not got:
                break
            if attempt < TRIES - 1:
                shutil.rmtree(os.path.join(scratch, 's%d.%d' % (n, attempt)), ignore_errors=True)
        bad.extend(got)
    # What each section cost, for tests/README.md (readme.bats keeps it).
    with open(os.path.join(scratch, 'times'), 'w') as f:
        f.write(''.join(t + '\n' for t in times))
    return bad


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'lint':
        bad = lint(sys.argv[2], parse(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == 'run':
        bad = run(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print('usage: readme.py lint README.md | run README.md top scratch', file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
