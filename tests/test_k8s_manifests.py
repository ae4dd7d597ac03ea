"""The Kubernetes manifests (docs/kubernetes.md): every object valid against the Kubernetes schema
(kubernetes-validate, schemas bundled in the wheel: no network), and the grading set-up they
describe -- collect once, an Indexed Job of sandboxed shards, no network but the gradebook.
"""

from __future__ import annotations

import copy
import shlex

import kubernetes_validate
import pytest
import yaml

from tests.support.k8s_files import KUBE_VERSIONS, MANIFESTS, VALUES, find, objects

ALL = [(m, i) for m in MANIFESTS for i in range(len(objects(m)))]


@pytest.mark.slow
@pytest.mark.parametrize("kube", KUBE_VERSIONS)
@pytest.mark.parametrize(("manifest", "index"), ALL)
def test_every_object_is_valid_kubernetes(manifest, index, kube):
    obj = objects(manifest)[index]
    kubernetes_validate.validate(obj, kube, strict=True)  # strict: unknown fields are errors


def grade_job() -> dict:
    return find("Job", "grade-intro-attention")


def _pod(job: dict) -> dict:
    return job["spec"]["template"]["spec"]


@pytest.mark.parametrize(
    ("where", "change", "complaint"),
    [
        ("container securityContext", lambda c, p: c["securityContext"].update(procMout="Unmasked"), "procMout"),
        ("a count as a word", lambda c, p: None, "completions"),
        ("pod field in the container", lambda c, p: c.update(hostUsers=False), "hostUsers"),
    ],
)  # fmt: skip
def test_the_validator_rejects_a_broken_copy(where, change, complaint, tmp_path):
    job = copy.deepcopy(grade_job())
    container = _pod(job)["containers"][0]
    change(container, _pod(job))
    if where == "a count as a word":
        job["spec"]["completions"] = "four"
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(job))
    with pytest.raises(kubernetes_validate.ValidationError, match=complaint):
        kubernetes_validate.validate(yaml.safe_load(broken.read_text()), KUBE_VERSIONS[0], True)


def _env(container: dict) -> dict:
    return {e["name"]: e for e in container.get("env", [])}


def test_the_grading_job_is_indexed_and_each_pod_grades_its_shard():
    job = grade_job()
    spec, (container,) = job["spec"], _pod(job)["containers"]
    assert spec["completionMode"] == "Indexed"
    shards = int(_env(container)["ATTENTION_LAB_SHARDS"]["value"])
    assert spec["completions"] == shards  # pod I of N grades shard I/N: N must agree
    assert 1 <= spec["parallelism"] <= shards
    words = shlex.split(container["args"][0])
    assert words[words.index("--shard") + 1] == "$JOB_COMPLETION_INDEX/$ATTENTION_LAB_SHARDS"
    assert "grade" in words and "collect" not in words  # collect runs once, in its own Job
    collect = find("Job", "collect-intro-attention")
    assert "collect" in shlex.split(_pod(collect)["containers"][0]["args"][0])
    assert "grade" not in shlex.split(_pod(collect)["containers"][0]["args"][0])


def test_the_grading_pods_get_what_bubblewrap_needs_and_nothing_more():
    pod = _pod(grade_job())
    (container,) = pod["containers"]
    sc = container["securityContext"]
    assert pod["hostUsers"] is False  # a user namespace for the pod; required for Unmasked
    assert sc["procMount"] == "Unmasked"
    assert sc["seccompProfile"]["type"] in ("Unconfined", "Localhost")
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"] and "add" not in sc["capabilities"]
    assert not sc.get("privileged")
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["automountServiceAccountToken"] is False  # no API token for student code to find


def test_the_grading_pods_see_the_course_but_not_the_exchange():
    pod = _pod(grade_job())
    claims = {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]}
    assert claims == {"attention-lab-course"}
    course = find("PersistentVolumeClaim", "attention-lab-course")
    assert course["spec"]["accessModes"] == ["ReadWriteMany"]  # pods on several nodes at once


def test_the_gradebook_url_comes_from_the_secret_only():
    for name in ("grade-intro-attention", "collect-intro-attention"):
        (container,) = _pod(find("Job", name))["containers"]
        ref = _env(container)["ATTENTION_LAB_GRADEBOOK"]["valueFrom"]["secretKeyRef"]
        assert ref == {"name": "attention-lab-gradebook", "key": "url"}
        assert "postgresql://" not in container["args"][0]


def test_the_network_policy_isolates_every_grading_pod_but_for_the_gradebook():
    policy = find("NetworkPolicy", "attention-lab-grading")["spec"]
    selector = policy["podSelector"]["matchLabels"]
    for name in ("grade-intro-attention", "collect-intro-attention"):
        labels = find("Job", name)["spec"]["template"]["metadata"]["labels"]
        assert selector.items() <= labels.items(), f"{name}'s pods escape the policy"
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    assert policy["ingress"] == []
    ports = {
        (p["protocol"], p["port"], str(rule["to"][0].get("podSelector", {}).get("matchLabels")))
        for rule in policy["egress"]
        for p in rule["ports"]
    }
    assert ports == {
        ("TCP", 5432, "{'app.kubernetes.io/name': 'postgresql'}"),
        ("UDP", 53, "{'k8s-app': 'kube-dns'}"),
        ("TCP", 53, "{'k8s-app': 'kube-dns'}"),
    }


def _spawn(monkeypatch, group: str, name: str = "ravi", mounts=()):
    """Run the hub's extraConfig hook on a stand-in spawner of user ``name`` in ``group``.

    ``kubespawner.slugs.safe_slug`` (the hub's, not installed here) is stood in for by
    :func:`~attention_grader.exchange.exchange_mounts.folder_slug`, which
    tests/attention_grader/exchange/test_exchange_mounts.py checks against KubeSpawner's own table.
    """
    import asyncio
    import sys
    from types import ModuleType, SimpleNamespace

    from attention_grader.exchange.exchange_mounts import folder_slug
    from traitlets.config import Config

    slugs = ModuleType("kubespawner.slugs")
    slugs.safe_slug = folder_slug
    monkeypatch.setitem(sys.modules, "kubespawner", ModuleType("kubespawner"))
    monkeypatch.setitem(sys.modules, "kubespawner.slugs", slugs)
    values = yaml.safe_load(VALUES.read_text())
    code = values["hub"]["extraConfig"]["attention-lab-classroom"]
    monkeypatch.setenv("ATTENTION_LAB_GRADEBOOK", "postgresql://x@y/z")
    c = Config()
    exec(compile(code, str(VALUES), "exec"), {"c": c})
    user = SimpleNamespace(name=name, groups=[SimpleNamespace(name=group)])
    spawner = SimpleNamespace(user=user, environment={}, volumes=[], volume_mounts=list(mounts),
                              init_containers=[], image="course-image")  # fmt: skip
    asyncio.run(c.KubeSpawner.pre_spawn_hook(spawner))
    return spawner


EXCHANGE = "/srv/nbgrader/exchange"
COURSE = f"{EXCHANGE}/attention-lab"


def test_the_instructor_pod_mounts_the_course_volume_the_jobs_use(monkeypatch):
    """Instructors get the course and the whole exchange; students neither."""
    teacher = _spawn(monkeypatch, "formgrade-attention-lab", "teacher")
    student = _spawn(monkeypatch, "nbgrader-attention-lab", "ravi")
    (volume,) = teacher.volumes
    assert volume["persistentVolumeClaim"]["claimName"] == "attention-lab-course"
    assert {"name": volume["name"], "mountPath": "/srv/course"} in teacher.volume_mounts
    assert {"name": "nbgrader-exchange", "mountPath": EXCHANGE} in teacher.volume_mounts
    assert teacher.environment["ATTENTION_LAB_COURSE"] == "/srv/course"
    mount = find("Job", "grade-intro-attention")["spec"]["template"]["spec"]["containers"][0]
    assert mount["volumeMounts"][0]["mountPath"] == "/srv/course"  # the same path as the Jobs
    assert student.environment == {}  # students never see the course, nor its gradebook
    assert [v for v in student.volumes if "persistentVolumeClaim" in v] == []


def _exchange_view(spawner) -> dict[str, tuple[str, bool]]:
    return {m["mountPath"]: (m.get("subPath", ""), bool(m.get("readOnly")))
            for m in spawner.volume_mounts if m["name"] == "nbgrader-exchange"}  # fmt: skip


def test_a_students_pod_sees_only_her_own_folders_of_the_exchange(monkeypatch):
    whole = {"name": "nbgrader-exchange", "mountPath": EXCHANGE}  # an admin's leftover
    ravi = _spawn(monkeypatch, "nbgrader-attention-lab", "ravi", mounts=[whole])
    assert _exchange_view(ravi) == {
        f"{COURSE}/outbound": ("attention-lab/outbound", True),
        f"{COURSE}/inbound/ravi": ("attention-lab/inbound/ravi", False),
        f"{COURSE}/feedback": ("attention-lab/feedback/ravi", True),  # her pages only
    }
    (root,) = [m for m in ravi.volume_mounts if m["mountPath"] == EXCHANGE]
    (volume,) = [v for v in ravi.volumes if v["name"] == root["name"]]
    assert "emptyDir" in volume  # the pod's own, writable as nbgrader wants; shared with nobody
    (init,) = ravi.init_containers
    assert init["command"] == ["mkdir", "-p", "/course/inbound/ravi", "/course/feedback/ravi"]
    assert init["image"] == "course-image"  # the pod's own image: nothing else to keep in step
    assert init["securityContext"]["runAsUser"] == 1000
    assert init["securityContext"]["allowPrivilegeEscalation"] is False


@pytest.mark.parametrize("name", ["../meera", "meera/../x", "Meera", "x--meera", "meera@school"])
def test_no_login_name_mounts_a_classmates_folder_or_a_path(monkeypatch, name):
    view = _exchange_view(_spawn(monkeypatch, "nbgrader-attention-lab", name))
    (inbound,) = [sub for sub, _ in view.values() if "/inbound/" in sub]
    folder = inbound.removeprefix("attention-lab/inbound/")
    assert "/" not in folder and ".." not in folder and folder != "meera"


@pytest.mark.slow
@pytest.mark.parametrize("kube", KUBE_VERSIONS)
def test_a_students_pod_with_these_mounts_is_valid_kubernetes(monkeypatch, kube):
    """The hook's mounts and init container in a pod as KubeSpawner makes it, strictly valid."""
    ravi = _spawn(monkeypatch, "nbgrader-attention-lab", "ravi")
    values = yaml.safe_load(VALUES.read_text())
    pod = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "jupyter-ravi"},
        "spec": {
            "securityContext": {"runAsUser": 1000, "fsGroup": 100},
            "initContainers": ravi.init_containers,
            "containers": [{"name": "notebook", "image": "x", "volumeMounts": ravi.volume_mounts}],
            "volumes": [*values["singleuser"]["storage"]["extraVolumes"], *ravi.volumes],
        },
    }  # fmt: skip
    kubernetes_validate.validate(pod, kube, strict=True)


def _system_config(text: str, env: dict[str, str]):
    """The values' system ``nbgrader_config.py`` read in ``env`` (and nothing else of ours)."""
    import os
    from unittest import mock

    from traitlets.config import Config

    c = Config()
    clean = {k: v for k, v in os.environ.items() if k != "ATTENTION_LAB_PER_STUDENT_MOUNTS"}
    with mock.patch.dict(os.environ, {**clean, **env}, clear=True):
        exec(compile(text, "nbgrader_config.py", "exec"), {"get_config": lambda: c})
    return c


def test_the_pods_and_the_collect_job_turn_per_student_mounts_on():
    """One uid everywhere on Kubernetes: the students' config, and the course's in the Job."""
    values = yaml.safe_load(VALUES.read_text())
    singleuser = values["singleuser"]
    assert singleuser["extraEnv"]["ATTENTION_LAB_PER_STUDENT_MOUNTS"] == "1"
    (collect,) = _pod(find("Job", "collect-intro-attention"))["containers"]
    assert _env(collect)["ATTENTION_LAB_PER_STUDENT_MOUNTS"]["value"] == "1"
    text = singleuser["extraFiles"]["nbgrader-config"]["stringData"]
    for on in (True, False):
        c = _system_config(text, {"ATTENTION_LAB_PER_STUDENT_MOUNTS": "1"} if on else {})
        assert c.ExchangeLayout.per_student_mounts is on
    assert c.ExchangeFactory.submit.endswith("PrivateExchangeSubmit")
