#!/usr/bin/env python3
"""Renders krew-manifest.yaml (krew-release-bot's template) into a krew plugin manifest.

Does what krew-release-bot's template functions do (`{{ .TagName }}` becomes the tag;
`{{addURIAndSha "URL" .TagName }}` becomes `uri: URL` and `sha256: …`), but takes each
archive's sha256 from local files instead of downloading the release asset. Platforms whose
archive is not given are left out, so a manifest for the host's archive alone installs with
`kubectl krew install --manifest=consolidation.yaml --archive=ARCHIVE`.

usage: render-krew-manifest.py --template krew-manifest.yaml --tag v0.1.0 ARCHIVE... > consolidation.yaml
"""

import argparse
import hashlib
import os
import re
import sys

URI_AND_SHA = re.compile(r'^(?P<indent>\s*)\{\{\s*addURIAndSha\s+"(?P<url>[^"]+)"\s+\.TagName\s*\}\}\s*$')
TAG = re.compile(r"\{\{\s*\.TagName\s*\}\}")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def render(template, tag, sums):
    """The manifest text; `sums` maps an archive's file name to its sha256."""
    head, marker, body = template.partition("\n  platforms:\n")
    if not marker:
        sys.exit("render-krew-manifest: the template has no `  platforms:` list")
    items = re.split(r"\n(?=  - )", body.rstrip("\n"))
    kept = []
    for item in items:
        lines = []
        found = None
        for line in item.split("\n"):
            match = URI_AND_SHA.match(line)
            if match:
                url = TAG.sub(tag, match["url"])
                found = url.rsplit("/", 1)[-1]
                if found in sums:
                    indent = match["indent"]
                    lines.append(f"{indent}uri: {url}")
                    lines.append(f"{indent}sha256: {sums[found]}")
                continue
            lines.append(TAG.sub(tag, line))
        if found is None:
            sys.exit(f"render-krew-manifest: a platform without addURIAndSha:\n{item}")
        if found in sums:
            kept.append("\n".join(lines))
    if not kept:
        sys.exit(f"render-krew-manifest: no platform of the template names any of {sorted(sums)}")
    head = "\n".join(line for line in head.split("\n") if not line.startswith("#"))
    return TAG.sub(tag, head).lstrip("\n") + marker + "\n".join(kept) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--template", required=True)
    parser.add_argument("--tag", required=True, help="the release tag, e.g. v0.1.0")
    parser.add_argument("archives", nargs="+", help="archives named as in the template's URLs")
    args = parser.parse_args()
    sums = {os.path.basename(a): sha256_of(a) for a in args.archives}
    with open(args.template, encoding="utf-8") as f:
        sys.stdout.write(render(f.read(), args.tag, sums))


if __name__ == "__main__":
    main()
