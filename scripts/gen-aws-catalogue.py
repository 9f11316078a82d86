#!/usr/bin/env python3
"""Compiles data/aws-instance-types.tsv: the EC2 instance types Karpenter's AWS provider can launch.

Reads three kinds of public fact from a git checkout of aws/karpenter-provider-aws (a bare mirror
works) at a pinned commit, and writes only the extracted facts (no upstream code or prose):

* website/content/en/<version>/reference/instance-types.md: the generated instance-type reference
  (hack/docs/instancetypes_gen). Per type: the well-known labels (vCPU, memory MiB, arch, family,
  category, generation, size, hypervisor, CPU, GPU and accelerator facts, local NVMe, bandwidths)
  and the extended resources (nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron[core],
  vpc.amazonaws.com/efa). Its cpu/memory/pods rows are used only to check our formulas.
* pkg/providers/instancetype/zz_generated.vpclimits.go: ENIs on the default network card, IPv4
  addresses per ENI, branch ENIs (vpc.amazonaws.com/pod-eni) when trunking-compatible.
* pkg/providers/pricing/zz_generated.pricing_aws*.go: static on-demand prices per region.

Usage: scripts/gen-aws-catalogue.py REPO [COMMIT] [DOC_VERSION] > data/aws-instance-types.tsv

The check at the end recomputes every type's allocatable cpu, memory and pods with the AWS
provider's formulas (pkg/providers/instancetype/types.go: memory, pods, ENILimitedPods,
kubeReservedResources, evictionThreshold; VM_MEMORY_OVERHEAD_PERCENT 0.075, reservedENIs 0) and
reports, on stderr, every row where the reference doc disagrees.
"""

import math
import re
import subprocess
import sys

PRICE_FILES = [
    "pkg/providers/pricing/zz_generated.pricing_aws.go",
    "pkg/providers/pricing/zz_generated.pricing_aws_us_gov.go",
    "pkg/providers/pricing/zz_generated.pricing_aws_cn.go",
]
VPC_FILE = "pkg/providers/instancetype/zz_generated.vpclimits.go"
LABEL = "karpenter.k8s.aws/instance-"
# Columns after name: label suffixes (karpenter.k8s.aws/instance-*), '-' when absent.
LABEL_COLUMNS = [
    "cpu", "memory", "category", "family", "generation", "size", "hypervisor",
    "cpu-manufacturer", "cpu-sustained-clock-speed-mhz", "ebs-bandwidth", "network-bandwidth",
    "encryption-in-transit-supported", "capability-flex", "local-nvme",
    "gpu-name", "gpu-manufacturer", "gpu-count", "gpu-memory",
    "accelerator-name", "accelerator-manufacturer", "accelerator-count",
]
EXTENDED = ["nvidia.com/gpu", "amd.com/gpu", "aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
            "habana.ai/gaudi", "vpc.amazonaws.com/efa"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def show(repo, commit, path):
    return git(repo, "show", f"{commit}:{path}")


def last_change(repo, commit, path):
    return git(repo, "log", "-1", "--format=%h %cs", commit, "--", path).strip()


def parse_doc(text):
    types, current, section = {}, None, None
    for line in text.splitlines():
        if line.startswith("### `"):
            current = {"labels": {}, "resources": {}}
            types[line[5:line.index("`", 5)]] = current
        elif line.startswith("#### "):
            section = "labels" if "Labels" in line else "resources"
        elif current is not None and line.startswith(" |") and not line.startswith(" |--"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 2 and cells[0] not in ("Label", "Resource"):
                current[section][cells[0]] = cells[1]
    return types


def parse_vpc(text):
    limits = {}
    for m in re.finditer(r'^\t"([^"]+)": \{\n(.*?)^\t\},', text, re.S | re.M):
        body = m.group(2)
        field = lambda name: re.search(rf"\b{name}:\s*([^,\n]+),", body).group(1).strip().strip('"')
        default_card = int(field("DefaultNetworkCardIndex"))
        cards = {int(c.group(2)): int(c.group(1)) for c in re.finditer(
            r"MaximumNetworkInterfaces:\s*(\d+),\s*NetworkCardIndex:\s*(\d+),", body)}
        limits[m.group(1)] = {
            "enis": cards.get(default_card, int(field("Interface"))),
            "ipv4": int(field("IPv4PerInterface")),
            "branch": int(field("BranchInterface")) if field("IsTrunkingCompatible") == "true" else 0,
        }
    return limits


def parse_prices(text):
    prices, region = {}, None
    for line in text.splitlines():
        m = re.match(r'^\t"([a-z0-9-]+)": \{', line)
        if m:
            region = m.group(1)
            prices[region] = {}
            continue
        if region:
            for t, p in re.findall(r'"([a-z0-9.-]+)": ([0-9.]+)', line):
                prices[region][t] = float(p)
    return prices


def parse_quantity_mi(q):
    if q.endswith("Mi"):
        return int(q[:-2])
    if q.endswith("Gi"):
        return int(q[:-2]) * 1024
    raise ValueError(q)


def expected(vcpu, mem_mib, arch, enis, ipv4):
    """Karpenter's pre-launch allocatable for AL2023 with defaults (see module docstring)."""
    pods = 0 if enis <= 0 else enis * (ipv4 - 1) + 2
    mem = mem_mib - (64 if arch == "arm64" else 0)
    mem -= math.ceil(mem * 0.075)
    alloc_mem = mem - (11 * pods + 255) - 100
    milli = vcpu * 1000
    reserved = 0
    for start, end, pct in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if milli >= start:
            reserved += int((min(milli, end) - start) * pct)
    return milli - reserved, alloc_mem, pods


def main():
    repo = sys.argv[1]
    commit = git(repo, "rev-parse", sys.argv[2] if len(sys.argv) > 2 else "HEAD").strip()
    version = sys.argv[3] if len(sys.argv) > 3 else "v1.14"
    doc_path = f"website/content/en/{version}/reference/instance-types.md"
    doc = parse_doc(show(repo, commit, doc_path))
    vpc_text = show(repo, commit, VPC_FILE)
    vpc = parse_vpc(vpc_text)
    prices = {}
    stamps = []
    for path in PRICE_FILES:
        text = show(repo, commit, path)
        stamp = re.search(r"generated at (\S+)", text)
        stamps.append(f"#   {path} @ {last_change(repo, commit, path)} (generated {stamp.group(1) if stamp else '?'})")
        prices.update(parse_prices(text))
    regions = sorted(prices)
    vpc_stamp = re.search(r"generated at (\S+)", vpc_text)

    out = [
        "# EC2 instance types Karpenter's AWS provider can launch: facts only, compiled by",
        "# scripts/gen-aws-catalogue.py from aws/karpenter-provider-aws @ " + commit,
        f"#   {doc_path} @ {last_change(repo, commit, doc_path)}",
        f"#   {VPC_FILE} @ {last_change(repo, commit, VPC_FILE)} (generated {vpc_stamp.group(1) if vpc_stamp else '?'})",
        *stamps,
        "# Labels are karpenter.k8s.aws/instance-<column>; '-' = absent. enis = ENIs on the default network",
        "# card; ipv4 = IPv4 addresses per ENI; pod-eni = branch ENIs when trunking-compatible; extended =",
        "# extended resources; price.<region> = on-demand USD/h, Linux, shared tenancy.",
        "\t".join(["name", "arch", "os", *LABEL_COLUMNS, "enis", "ipv4", "pod-eni", "extended",
                   *[f"price.{r}" for r in regions]]),
    ]
    mismatches = 0
    missing_vpc = 0
    for name in sorted(doc, key=lambda n: (n.split(".")[0], n)):
        labels, resources = doc[name]["labels"], doc[name]["resources"]
        limits = vpc.get(name)
        if limits is None:
            missing_vpc += 1
            print(f"no VPC limits for {name}: skipped (Karpenter cannot compute its pods)", file=sys.stderr)
            continue
        row = [name, labels["kubernetes.io/arch"], labels["kubernetes.io/os"]]
        row += [labels.get(LABEL + c, "-") or "-" for c in LABEL_COLUMNS]
        row += [str(limits["enis"]), str(limits["ipv4"]), str(limits["branch"])]
        extended = ",".join(f"{k}={resources[k]}" for k in EXTENDED if k in resources)
        row.append(extended or "-")
        row += [("%g" % prices[r][name]) if name in prices[r] else "-" for r in regions]
        out.append("\t".join(row))
        cpu, mem, pods = expected(int(labels[LABEL + "cpu"]), int(labels[LABEL + "memory"]),
                                  labels["kubernetes.io/arch"], limits["enis"], limits["ipv4"])
        doc_cpu = resources["cpu"]
        doc_cpu = int(doc_cpu[:-1]) if doc_cpu.endswith("m") else int(doc_cpu) * 1000
        got = (doc_cpu, parse_quantity_mi(resources["memory"]), int(resources["pods"]))
        if got != (cpu, mem, pods):
            mismatches += 1
            print(f"formula disagrees for {name}: doc {got}, formula {(cpu, mem, pods)}", file=sys.stderr)
    print("\n".join(out))
    print(f"{len(out) - 10} types, {mismatches} formula mismatches, {missing_vpc} without VPC limits",
          file=sys.stderr)


if __name__ == "__main__":
    main()
