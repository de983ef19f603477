#!/usr/bin/env python3
"""Runs every fenced code block of README.md, CONTRIBUTING.md and docs/**/*.md, so examples cannot rot,
and checks that every relative link of theirs leads to a file and a heading that exist.

    python3 scripts/check-docs.py [--ext build/streamqlite.so] [--no-swift] [FILE.md ...]

`make test-docs` (part of `make test`) runs it on README.md, CONTRIBUTING.md and every
docs/**/*.md.

What runs, and how
------------------
Each Markdown file gets its own scratch folder (under build/doc-check/), holding links
to this repository's build/ (so `.load ./build/streamqlite` works as written), sql/,
scripts/, Extension/ and Makefile (so `make install PREFIX=…` and the demo scripts run
as written, from what looks like the repository's root). Blocks run in the order
they appear:

  ```sql        fed to a plain `sqlite3 -bail doc.db` in the scratch folder, with nothing
                preloaded: a block that uses the extension's functions loads it itself
                (`.load build/streamqlite`), as a reader's shell must. Every SQL block of one file works on the same doc.db, so a
                block may use the tables an earlier block made; dot-commands (`.mode`,
                `.param`) last for their block only.
  ```sh         run by `bash -e -o pipefail` in the scratch folder (```bash too), with
                the command-line tool's build folder, Tools/streamqlite/.build/release,
                first on PATH when `make cli` has built the tool there, so `streamqlite`
                runs as written (`make test-docs` builds it first).
  ```swift      compiled and run: the Swift blocks of one file, in order, are one
                program (one executable target's main.swift); `<!-- doc: new -->` before
                a block starts another program. All programs of all files are targets of
                ONE package (build/doc-check/swift) depending on this repository with
                the package trait "Macros" (a program importing StreamQLiteMacros gets
                that product), built by one `swift build` in make test-swift's build
                folder (.build-macros) with its flags (every warning an error), so the
                library and swift-syntax built there are reused; each program runs twice in its own scratch folder
                (holding the file blocks below), so an example that cannot run a
                second time (a table it creates already exists) fails here.
  ```LANG file=NAME
                a file the examples read (```json file=tasks.json, ```csv
                file=people.csv): written into the scratch folder before anything of
                that file runs, and shown to the reader as it is.
  ```text       right after a runnable block (blank lines between are fine): the exact
                output of that block (stdout, then stderr; trailing spaces and blank
                lines at the end are ignored). A runnable block without one must simply
                succeed. For a Swift block, its output is what it prints itself.

Directives are HTML comments (invisible on GitHub), on a line of their own before a block:

  <!-- doc: skip WHY -->        the next block is not run (WHY is required: say what
                                checks it instead, or why it cannot run here)
  <!-- doc: excerpt -->         the next ```text block is an excerpt: each of its lines
                                must appear, in this order, among the output's lines
  <!-- doc: fails -->           the next runnable block must fail (exit status not 0);
                                its ```text block then shows the error as printed
  <!-- doc: new -->             the next ```swift block starts a new program
  <!-- doc: hidden LANG         code run as a block of LANG (sql, sh or swift) but not
  ...                           shown: set-up the reader does not need to see
  -->

Any other fenced block (```c, ```json without file=, a ```text block after nothing
runnable) is an error unless marked skip, so every block is either run or says why not;
so is a fence that does not start its line (in a list item), which this script would miss.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# make test-swift's build folder and flags (the Makefile's SWIFT_TEST): the examples reuse its build.
SWIFT_BUILD = ["--scratch-path", os.path.join(REPO, ".build-macros"), "-Xswiftc", "-warnings-as-errors"]
RUNNABLE = {"sql", "sh", "bash", "swift"}
OUTPUT = {"text", "output"}
FENCE = re.compile(r"^(```+|~~~+)\s*([A-Za-z0-9_+-]*)(.*)$")
DIRECTIVE = re.compile(r"^<!--\s*doc:\s*(\w+)\s*(.*?)\s*(-->)?\s*$")


class Block:
    def __init__(self, doc, line, lang, info, code, hidden=False):
        self.doc, self.line, self.lang, self.info, self.code, self.hidden = doc, line, lang, info, code, hidden
        self.skip = None
        self.excerpt = self.fails = self.new = False
        self.expected = None      # the ```text block's lines
        self.file = None
        m = re.search(r"\bfile=(\S+)", info)
        if m:
            self.file = m.group(1)

    def where(self):
        return f"{os.path.relpath(self.doc, REPO)}:{self.line}"


class DocError(Exception):
    pass


def parse(doc):
    """The blocks of one Markdown file, with their directives and expected outputs."""
    lines = open(doc, encoding="utf-8").read().split("\n")
    blocks, pending, last_runnable = [], {}, None
    i = 0

    def take_pending(block):
        nonlocal pending
        block.skip = pending.get("skip")
        block.excerpt = "excerpt" in pending
        block.fails = "fails" in pending
        block.new = "new" in pending
        pending = {}

    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.match(line)
        if d:
            name, arg, closed = d.group(1), d.group(2), d.group(3)
            if name == "hidden":
                if closed:
                    raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: '<!-- doc: hidden LANG' needs the code on the next lines and '-->' on a line of its own")
                start, body = i + 1, []
                i += 1
                while i < len(lines) and lines[i].strip() != "-->":
                    body.append(lines[i])
                    i += 1
                if i == len(lines):
                    raise DocError(f"{os.path.relpath(doc, REPO)}:{start}: hidden block not closed by a '-->' line")
                b = Block(doc, start, arg, "", "\n".join(body) + "\n", hidden=True)
                if b.lang not in RUNNABLE:
                    raise DocError(f"{b.where()}: hidden block of '{arg}': only sql, sh, bash and swift run")
                take_pending(b)
                blocks.append(b)
                last_runnable = b
            elif name in ("skip", "excerpt", "fails", "new"):
                if not closed:
                    raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: directive '{name}' must end with '-->' on its line")
                if name == "skip" and not arg:
                    raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: '<!-- doc: skip -->' needs a reason")
                pending[name] = arg or True
            else:
                raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: unknown directive '{name}' (skip, excerpt, fails, new, hidden)")
            i += 1
            continue
        f = FENCE.match(line)
        if f:
            fence, lang, info = f.group(1), f.group(2).lower(), f.group(3)
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise DocError(f"{os.path.relpath(doc, REPO)}:{start}: code block not closed")
            i += 1
            b = Block(doc, start, lang, info, "\n".join(body) + "\n")
            take_pending(b)
            if b.lang in OUTPUT and not b.skip and not b.file:
                if last_runnable is None or last_runnable.expected is not None:
                    raise DocError(f"{b.where()}: a ```{lang} block that follows no runnable block: "
                                   "put it right after the block whose output it shows, or mark it <!-- doc: skip WHY -->")
                last_runnable.expected = body
                last_runnable.excerpt = b.excerpt
                last_runnable = None
                continue
            blocks.append(b)
            if b.skip or b.file:
                last_runnable = None
            elif b.lang in RUNNABLE:
                last_runnable = b
            else:
                raise DocError(f"{b.where()}: a ```{lang or '(no language)'} block is neither run nor a file= block: "
                               "mark it <!-- doc: skip WHY --> (see scripts/check-docs.py)")
            continue
        if line.lstrip().startswith(("```", "~~~")):
            raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: an indented code block is not checked: "
                           "start its fence at the beginning of the line")
        if pending and line.strip():
            raise DocError(f"{os.path.relpath(doc, REPO)}:{i + 1}: directive {sorted(pending)} not followed by a code block")
        if line.strip():
            last_runnable = None
        i += 1
    if pending:
        raise DocError(f"{os.path.relpath(doc, REPO)}: directive {sorted(pending)} at the end of the file")
    return blocks


def normalize(text_lines):
    out = [l.rstrip() for l in text_lines]
    while out and not out[-1]:
        out.pop()
    return out


def compare(block, got_text, failures):
    if block.expected is None:
        return
    want, got = normalize(block.expected), normalize(got_text.split("\n"))
    if block.excerpt:
        k = 0
        for line in got:
            if k < len(want) and line == want[k]:
                k += 1
        ok = k == len(want)
    else:
        ok = want == got
    if not ok:
        failures.append(f"{block.where()}: ```{block.lang} printed something else than the text shows"
                        + (" (excerpt: lines missing or out of order)" if block.excerpt else "")
                        + "\n--- shown\n" + "\n".join(want) + "\n--- printed\n" + "\n".join(got))


def scratch_for(root, doc, suffix=""):
    name = re.sub(r"[^A-Za-z0-9]+", "-", os.path.relpath(doc, REPO)).strip("-") + suffix
    d = os.path.join(root, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for link in ("build", "sql", "Makefile", "Extension", "scripts"):
        os.symlink(os.path.join(REPO, link), os.path.join(d, link))
    return d


def write_files(blocks, d):
    for b in blocks:
        if b.file and not b.skip:
            with open(os.path.join(d, b.file), "w", encoding="utf-8") as fh:
                fh.write(b.code)


def run_shell_blocks(doc, blocks, ext, root, failures):
    d = scratch_for(root, doc)
    write_files(blocks, d)
    # A block runs as a reader runs it from a shell: not inside make's jobs (a `make` in a
    # block would otherwise meet the jobserver of the make that runs this check).
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    venv_py = os.path.join(REPO, ".venv", "bin", "python")
    if os.path.exists(venv_py):
        env.setdefault("PYTHON", venv_py)
    # The `streamqlite` command-line tool (docs/cli.md), as `make cli` builds it.
    cli_dir = os.path.join(REPO, "Tools", "streamqlite", ".build", "release")
    if os.path.exists(os.path.join(cli_dir, "streamqlite")):
        env["PATH"] = cli_dir + os.pathsep + env.get("PATH", "")
    n = 0
    for b in blocks:
        if b.skip or b.file or b.lang not in ("sql", "sh", "bash"):
            continue
        n += 1
        if b.lang == "sql":
            p = subprocess.run(["sqlite3", "-bail", "doc.db"], input=b.code, cwd=d, env=env,
                               capture_output=True, text=True, timeout=300)
        else:
            p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", b.code], cwd=d, env=env,
                               capture_output=True, text=True, timeout=600)
        got = p.stdout + p.stderr
        if b.fails and p.returncode == 0:
            failures.append(f"{b.where()}: ```{b.lang} marked 'fails' succeeded:\n{got}")
            continue
        if not b.fails and p.returncode != 0:
            failures.append(f"{b.where()}: ```{b.lang} failed (exit {p.returncode}):\n{got}")
            continue
        compare(b, got, failures)
    return n


def swift_programs(doc, blocks):
    programs = []
    for b in blocks:
        if b.skip or b.file or b.lang != "swift":
            continue
        if b.new or not programs:
            programs.append([])
        programs[-1].append(b)
    return programs


def run_swift(docs_blocks, root, failures):
    """All Swift programs as executable targets of one package, one build, each run twice."""
    pkg = os.path.join(root, "swift")
    targets = []   # (name, doc, blocks)
    for doc, blocks in docs_blocks:
        for k, prog in enumerate(swift_programs(doc, blocks)):
            slug = re.sub(r"[^A-Za-z0-9]+", "_", os.path.relpath(doc, REPO).removesuffix(".md")).strip("_")
            targets.append((f"Doc_{slug}_{k + 1}", doc, blocks, prog))
    if not targets:
        return 0
    os.makedirs(pkg, exist_ok=True)
    for old in glob.glob(os.path.join(pkg, "Sources", "*")):
        shutil.rmtree(old)
    # By path, named: without `name:` the package's identity would be this clone's folder name.
    # Always with the trait "Macros", as make test-swift builds the library: the trait is a
    # compilation condition of the package's targets, so without it the shared build folder
    # would compile the library again. A program that imports StreamQLiteMacros
    # (docs/swift/macro.md) gets that product.
    macros = {name for name, doc, blocks, prog in targets
              if any(re.search(r"^\s*import\s+StreamQLiteMacros\b", b.code, re.M) for b in prog)}
    with open(os.path.join(pkg, "Package.swift"), "w") as fh:
        fh.write("// swift-tools-version:6.1\n// Written by scripts/check-docs.py: the Swift examples of the docs.\n"
                 "import PackageDescription\n\nlet package = Package(\n    name: \"DocExamples\",\n"
                 f"    dependencies: [.package(name: \"StreamQLite\", path: \"{REPO}\", traits: [\"Macros\"])],\n    targets: [\n")
        for name, *_ in targets:
            product = "StreamQLiteMacros" if name in macros else "StreamQLite"
            fh.write(f"        .executableTarget(name: \"{name}\", dependencies: [.product(name: \"{product}\", package: \"StreamQLite\")],\n"
                     "                          swiftSettings: [.swiftLanguageMode(.v6)]),\n")
        fh.write("    ]\n)\n")
    for name, doc, blocks, prog in targets:
        src = os.path.join(pkg, "Sources", name)
        os.makedirs(src)
        with open(os.path.join(src, "main.swift"), "w") as fh:
            for j, b in enumerate(prog):
                fh.write(f"// {b.where()}\nprint(\"\\u{{1e}}doc-block {j}\")\n")
                fh.write(f"#sourceLocation(file: \"{b.where().rsplit(':', 1)[0]}\", line: {b.line})\n")
                fh.write(b.code)
                fh.write("#sourceLocation()\n")
    build = subprocess.run(["swift", "build", *SWIFT_BUILD, "--package-path", pkg],
                           capture_output=True, text=True)
    if build.returncode != 0:
        errors = [l for l in (build.stdout + build.stderr).split("\n") if "error:" in l]
        failures.append("the Swift examples did not compile:\n" + "\n".join(errors[:40] or (build.stdout + build.stderr).split("\n")[-40:]))
        return len(targets)
    bindir = subprocess.run(["swift", "build", *SWIFT_BUILD, "--package-path", pkg,
                             "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    for name, doc, blocks, prog in targets:
        d = scratch_for(root, doc, "-" + name)
        write_files(blocks, d)
        first = None
        for run in (1, 2):
            p = subprocess.run([os.path.join(bindir, name)], cwd=d, capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
            parts = p.stdout.split("\x1edoc-block ")
            outputs = {}
            for part in parts[1:]:
                j, _, text = part.partition("\n")
                outputs[int(j)] = text
            if p.returncode != 0:
                failures.append(f"{prog[0].where()}: the Swift program (blocks {', '.join(b.where() for b in prog)}) "
                                f"failed on run {run} (exit {p.returncode}):\n{p.stdout.replace(chr(30), '')}{p.stderr}")
                break
            if run == 1:
                first = p.stdout
                for j, b in enumerate(prog):
                    compare(b, outputs.get(j, ""), failures)
            elif p.stdout != first:
                failures.append(f"{prog[0].where()}: the Swift program printed something else on its second run "
                                f"(it depends on what its first run left behind):\n--- first\n{first.replace(chr(30), '')}"
                                f"--- second\n{p.stdout.replace(chr(30), '')}")
    return len(targets)


def heading_anchors(path):
    """The anchors GitHub makes of a Markdown file's headings (lowercase; punctuation but
    `-` and `_` dropped; spaces to `-`; a repeated one gets -1, -2, …), outside code fences."""
    anchors, seen, fence = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip()
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)        # a link: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def check_links(doc, failures):
    """Every relative link of `doc` names a file of the repository, and an anchor of it
    (`#…`) is one of its headings: a renamed section or a moved file breaks no link silently.
    Links inside code blocks and inline code are not links."""
    text = open(doc, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        where = os.path.relpath(doc, REPO)
        if not os.path.exists(full):
            failures.append(f"{where}: a link to {target}: no such file")
        elif anchor and full.endswith(".md") and anchor not in heading_anchors(full):
            failures.append(f"{where}: a link to {target}: no heading makes the anchor #{anchor}")


def self_test(args):
    """The checker itself: every block of check-docs-cases/broken-examples.md must fail with
    the message its `<!-- expect: … -->` line names, and nothing else may fail."""
    case = os.path.join(REPO, "scripts", "check-docs-cases", "broken-examples.md")
    expected = re.findall(r"<!-- expect: (.*?) -->", open(case, encoding="utf-8").read())
    cmd = [sys.executable, os.path.abspath(__file__), "--ext", args.ext, case] + (["--no-swift"] if args.no_swift else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if args.no_swift:
        expected = [e for e in expected if "already exists" not in e]   # the Swift case
    found = p.stderr.count("FAIL ")
    missing = [e for e in expected if e not in p.stderr]
    if p.returncode == 0 or missing or found != len(expected):
        sys.exit(f"check-docs --self-test: FAILED: {found} failures, expected {len(expected)}; not seen: {missing}\n{p.stderr}")
    print(f"check-docs --self-test: the {found} broken examples of {os.path.relpath(case, REPO)} are rejected")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ext", default=os.path.join(REPO, "build", "streamqlite.so"))
    ap.add_argument("--no-swift", action="store_true", help="skip the Swift blocks")
    ap.add_argument("--self-test", action="store_true", help="check that scripts/check-docs-cases/broken-examples.md fails as it says")
    ap.add_argument("docs", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        return self_test(args)
    docs = args.docs or [os.path.join(REPO, "README.md"), os.path.join(REPO, "CONTRIBUTING.md")] + sorted(glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
    docs = [os.path.abspath(d) for d in docs]
    ext = os.path.abspath(args.ext)
    if not os.path.exists(ext):
        sys.exit(f"check-docs: {ext} not found (run make first)")
    root = os.path.join(REPO, "build", "doc-check")
    os.makedirs(root, exist_ok=True)
    failures, parsed = [], []
    for doc in docs:
        try:
            parsed.append((doc, parse(doc)))
        except DocError as e:
            failures.append(str(e))
    counts = {"sql/sh": 0, "swift programs": 0, "skipped": 0}
    for doc in docs:
        check_links(doc, failures)
    for doc, blocks in parsed:
        counts["skipped"] += sum(1 for b in blocks if b.skip)
        counts["sql/sh"] += run_shell_blocks(doc, blocks, ext, root, failures)
    if not args.no_swift:
        counts["swift programs"] = run_swift(parsed, root, failures)
    print(f"check-docs: {len(docs)} files, {counts['sql/sh']} sql/sh blocks, {counts['swift programs']} Swift programs "
          f"(each run twice), {counts['skipped']} blocks marked skip")
    for f in failures:
        print(f"FAIL {f}\n", file=sys.stderr)
    if failures:
        sys.exit(f"check-docs: {len(failures)} failed")
    print("check-docs: all passed")


if __name__ == "__main__":
    main()
