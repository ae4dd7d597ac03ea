"""The Kubernetes files of the course, read once for the tests: manifests, values, Dockerfile."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "autograder" / "jupyterhub"
MANIFESTS = ["k8s-classroom.yaml", "k8s-collect-job.yaml", "k8s-grade-job.yaml"]
VALUES = HUB / "z2jh-values.yaml"
DOCKERFILE = ROOT / "docker" / "singleuser.Dockerfile"
#: The oldest Kubernetes the manifests claim (hostUsers on by default) and the newest bundled.
KUBE_VERSIONS = ["1.33.0", "1.37.0"]


def objects(name: str) -> list[dict]:
    """Every object of the manifest ``name`` (under autograder/jupyterhub/)."""
    return [doc for doc in yaml.safe_load_all((HUB / name).read_text()) if doc]


def find(kind: str, name: str) -> dict:
    """The object of ``kind`` called ``name`` in any manifest."""
    for manifest in MANIFESTS:
        for obj in objects(manifest):
            if obj["kind"] == kind and obj["metadata"]["name"] == name:
                return obj
    raise KeyError(f"no {kind} {name} in {MANIFESTS}")


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def instructions(text: str) -> list[tuple[str, str]]:
    r"""A Dockerfile as ``(INSTRUCTION, arguments)``: comments dropped, ``\`` lines joined."""
    out, pending = [], ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if pending and line.lstrip().startswith("#"):
            continue  # a comment inside a continued RUN
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        word, _, rest = pending.strip().partition(" ")
        out.append((word.upper(), re.sub(r"\s+", " ", rest.strip())))
        pending = ""
    return out
