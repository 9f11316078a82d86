#!/usr/bin/env bash
# Lists the Ginkgo spec titles (It / Entry, with their Describe/Context/When/DescribeTable
# path) of Karpenter core's disruption and scheduling test files at given tags, one TSV per tag,
# plus plain Go tests (func TestX, t.Run) as kind GoTest / GoSubtest.
#
# Usage: scripts/karpenter-it-names.sh GIT_DIR OUT_DIR [TAG...]
#   GIT_DIR  a local git dir of kubernetes-sigs/karpenter (bare or not), with tags
#   OUT_DIR  where TAG.tsv files are written (e.g. data/karpenter-versions/it-names)
#   TAG...   tags to list; default: each v1.N.0 and the newest v1.N.x patch, v1.0.0 .. newest
# Files read at each tag: pkg/controllers/disruption/*_test.go and
#   pkg/controllers/provisioning/scheduling/*_test.go (git ls-tree, no work tree needed).
# Then writes OUT_DIR/changes.tsv: for each consecutive pair of the TAG.tsv files present in
#   OUT_DIR (version order), the specs added (+), removed (-) and retitled (~: a removed and an
#   added spec of the same file whose "path > title" are >85% alike, paired greedily), keyed
#   on file + path + title (line numbers ignored); and OUT_DIR/changes-minors.tsv, the same
#   between the newest patch list of each minor (v1.0.9 -> v1.1.5 -> ... -> v1.14.1).
# No network. Needs bash, git and python3.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 GIT_DIR OUT_DIR [TAG...]" >&2
  exit 2
fi
git_dir=$1
out_dir=$2
shift 2
if [[ -d "$git_dir/.git" ]]; then git_dir="$git_dir/.git"; fi
git --git-dir="$git_dir" rev-parse --git-dir >/dev/null

if [[ $# -gt 0 ]]; then
  tags=("$@")
else
  mapfile -t tags < <(
    git --git-dir="$git_dir" tag --list 'v1.*' | grep -E '^v1\.[0-9]+\.[0-9]+$' | sort -V |
      awk -F. '{ minor = $1 "." $2 } minor != last { if (prev != "") print prev; if ($3 == "0") print $0; last = minor } { prev = $0 } END { print prev }' |
      awk '!seen[$0]++'
  )
fi

mkdir -p "$out_dir"
extractor=$(mktemp)
trap 'rm -f "$extractor"' EXIT
cat >"$extractor" <<'PY'
import re, sys

CONTAINERS = {"Describe", "Context", "When", "DescribeTable", "FDescribe", "FContext", "FWhen",
              "PDescribe", "PContext", "PWhen", "XDescribe", "XContext", "FDescribeTable",
              "PDescribeTable", "XDescribeTable", "DescribeTableSubtree"}
SPECS = {"It", "FIt", "PIt", "XIt", "Specify", "FSpecify", "PSpecify", "XSpecify",
         "Entry", "FEntry", "PEntry", "XEntry"}

def tokens(src):
    """Yield (kind, text, line, start, end): ident, str, punct. Skips comments."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1; i += 1; continue
        if c in " \t\r":
            i += 1; continue
        if src.startswith("//", i):
            j = src.find("\n", i); i = n if j < 0 else j; continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2); j = n if j < 0 else j + 2
            line += src.count("\n", i, j); i = j; continue
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            yield ("str", src[i:j + 1], line, i, j + 1); i = j + 1; continue
        if c == "`":
            j = src.find("`", i + 1); j = n if j < 0 else j
            yield ("str", src[i:j + 1], line, i, j + 1)
            line += src.count("\n", i, j); i = j + 1; continue
        if c == "'":
            j = i + 1
            while j < n and src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            yield ("rune", src[i:j + 1], line, i, j + 1); i = j + 1; continue
        if c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            yield ("ident", src[i:j], line, i, j); i = j; continue
        if c.isdigit():
            j = i
            while j < n and (src[j].isalnum() or src[j] in "._"):
                j += 1
            yield ("num", src[i:j], line, i, j); i = j; continue
        yield ("punct", c, line, i, i + 1); i += 1

def unquote(s):
    if s.startswith("`"):
        return s[1:-1]
    out, i = [], 1
    while i < len(s) - 1:
        if s[i] == "\\" and i + 1 < len(s) - 1:
            nxt = s[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, "\\" + nxt)); i += 2
        else:
            out.append(s[i]); i += 1
    return "".join(out)

def first_arg(toks, k, src):
    """toks[k] is '(' of a call. Return the first argument as text: a string literal (or a
    concatenation of literals) unquoted, otherwise the expression in <...>."""
    depth, j = 0, k
    parts, pure = [], True
    start = toks[k][4]
    end = None
    j = k + 1
    while j < len(toks):
        kind, text = toks[j][0], toks[j][1]
        if text in "([{" and kind == "punct":
            depth += 1
        elif text in ")]}" and kind == "punct":
            if depth == 0:
                end = toks[j][3]; break
            depth -= 1
        elif text == "," and kind == "punct" and depth == 0:
            end = toks[j][3]; break
        if depth == 0 and kind == "str":
            parts.append(unquote(text))
        elif not (depth == 0 and kind == "punct" and text == "+"):
            pure = False
        j += 1
    if end is None:
        end = len(src)
    if pure and parts:
        return "".join(parts)
    expr = " ".join(src[start:end].split())
    return "<" + expr + ">"

def extract(path, src):
    toks = list(tokens(src))
    rows = []
    stack = []  # (paren_depth_at_open, name)
    depth = 0
    gotest_fn = None
    for k, t in enumerate(toks):
        kind, text, line = t[0], t[1], t[2]
        if kind == "punct" and text == "(":
            depth += 1
            prev = toks[k - 1] if k > 0 else None
            prev2 = toks[k - 2] if k > 1 else None
            # a method call x.It( is not Ginkgo; a bare identifier is
            if prev and prev[0] == "ident" and not (prev2 and prev2[1] == "."):
                name = prev[1]
                if name in CONTAINERS:
                    stack.append((depth, first_arg(toks, k, src)))
                elif name in SPECS:
                    title = first_arg(toks, k, src)
                    spec = "Entry" if name.endswith("Entry") else "It"
                    if name[0] in "FPX" and name not in ("It", "Entry"):
                        spec += "(" + name[0] + ")"
                    rows.append((path, spec, " > ".join(s[1] for s in stack), title, prev[2]))
            if prev and prev[0] == "ident" and prev[1] == "Run" and prev2 and prev2[1] == ".":
                rows.append((path, "GoSubtest", gotest_fn or "", first_arg(toks, k, src), prev[2]))
        elif kind == "punct" and text == ")":
            while stack and stack[-1][0] == depth:
                stack.pop()
            depth -= 1
        elif kind == "ident" and text == "func" and depth == 0 and k + 2 < len(toks):
            nm = toks[k + 1]
            if nm[0] == "ident" and re.match(r"^(Test|Benchmark|Fuzz)[A-Z_0-9]", nm[1]) and toks[k + 2][1] == "(":
                gotest_fn = nm[1]
                rows.append((path, "GoTest", "", nm[1], nm[2]))
    return rows

def clean(s):
    return s.replace("\t", "\\t").replace("\n", "\\n")

tag = sys.argv[1]
print("# Ginkgo spec titles in Karpenter core at %s (kubernetes-sigs/karpenter, commit %s)." % (tag, sys.argv[2]))
print("# Files: pkg/controllers/disruption/*_test.go, pkg/controllers/provisioning/scheduling/*_test.go.")
print("# Generated by scripts/karpenter-it-names.sh (a tokenizer over the Go source, not the Go compiler):")
print("#   path = the enclosing Describe/Context/When/DescribeTable titles joined by ' > ';")
print("#   a title that is not a string literal is given as <expression>; kind It(F/P/X) = focused/pending/excluded.")
print("file\tkind\tpath\ttitle\tline")
for path in sys.argv[3:]:
    with open(path.split("=", 1)[1], encoding="utf-8") as f:
        src = f.read()
    for row in extract(path.split("=", 1)[0], src):
        print("\t".join(clean(str(x)) for x in row))
PY

differ=$(mktemp)
work=$(mktemp -d)
trap 'rm -f "$extractor" "$differ"; rm -rf "$work"' EXIT
cat >"$differ" <<'PY'
import collections, difflib, sys

def load(p):
    rows = []
    for l in open(p, encoding="utf-8"):
        if l.startswith("#") or l.startswith("file\t"):
            continue
        f, k, path, title, _line = l.rstrip("\n").split("\t")
        rows.append((f, path, title))
    return rows

print("# Spec changes between consecutive tags of data/karpenter-versions/it-names/*.tsv,")
print("# generated by scripts/karpenter-it-names.sh. op: + added, - removed, ~ retitled (old => new).")
print("# Summary rows: op = '=' with counts (specs before, after, added, removed, retitled).")
print("from\tto\top\tfile\tpath\ttitle\tnew_path\tnew_title")
files = sys.argv[1:]
for fa, fb in zip(files, files[1:]):
    ta = fa.rsplit("/", 1)[-1][:-4]; tb = fb.rsplit("/", 1)[-1][:-4]
    a, b = load(fa), load(fb)
    ka, kb = collections.Counter(a), collections.Counter(b)
    rem = [k for k in ka if k not in kb]
    add = [k for k in kb if k not in ka]
    pairs, used = [], set()
    for r in rem:
        best = None
        for i, x in enumerate(add):
            if i in used or x[0] != r[0]:
                continue
            s = difflib.SequenceMatcher(None, r[1] + " > " + r[2], x[1] + " > " + x[2]).ratio()
            if s > 0.85 and (best is None or s > best[0]):
                best = (s, i)
        if best:
            used.add(best[1]); pairs.append((r, add[best[1]]))
    paired = {p[0] for p in pairs}
    rem2 = [r for r in rem if r not in paired]
    add2 = [x for i, x in enumerate(add) if i not in used]
    print("\t".join([ta, tb, "=", "%d specs -> %d" % (len(a), len(b)), "+%d" % len(add2), "-%d" % len(rem2), "~%d" % len(pairs), ""]))
    for x in add2:
        print("\t".join([ta, tb, "+", x[0], x[1], x[2], "", ""]))
    for x in rem2:
        print("\t".join([ta, tb, "-", x[0], x[1], x[2], "", ""]))
    for r, x in pairs:
        print("\t".join([ta, tb, "~", r[0], r[1], r[2], x[1], x[2]]))
PY
for tag in "${tags[@]}"; do
  commit=$(git --git-dir="$git_dir" rev-parse --short=12 "$tag^{commit}")
  args=()
  while read -r f; do
    case $f in
      pkg/controllers/disruption/*_test.go | pkg/controllers/provisioning/scheduling/*_test.go) ;;
      *) continue ;;
    esac
    local_copy="$work/$tag/$f"
    mkdir -p "$(dirname "$local_copy")"
    git --git-dir="$git_dir" show "$tag:$f" >"$local_copy"
    args+=("$f=$local_copy")
  done < <(git --git-dir="$git_dir" ls-tree --name-only "$tag" pkg/controllers/disruption/ pkg/controllers/provisioning/scheduling/)
  python3 "$extractor" "$tag" "$commit" "${args[@]}" >"$out_dir/$tag.tsv"
  echo "$tag: $(grep -vc '^#' "$out_dir/$tag.tsv") lines incl. header" >&2
done

mapfile -t lists < <(find "$out_dir" -maxdepth 1 -name 'v*.tsv' | sort -V)
python3 "$differ" "${lists[@]}" >"$out_dir/changes.tsv"
echo "changes: $out_dir/changes.tsv" >&2
# minor to minor: the newest patch list of each minor only (a patch branch's backported specs
# otherwise show as removed then added again along the interleaved sequence)
mapfile -t newest < <(printf '%s\n' "${lists[@]}" | awk -F/ '{ f = $NF; split(f, v, "."); m = v[1] "." v[2]; last[m] = $0; if (!(m in seen)) { seen[m] = 1; order[++n] = m } } END { for (i = 1; i <= n; i++) print last[order[i]] }')
python3 "$differ" "${newest[@]}" >"$out_dir/changes-minors.tsv"
echo "changes between minors' newest patches: $out_dir/changes-minors.tsv" >&2
