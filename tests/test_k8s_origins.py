"""The Kubernetes hub's origins (z2jh-values.yaml's ``attention-lab-origins``) follow the same
rule as the one-machine hubs (autograder/attention_hub/origins.py): a subdomain per user, or one
origin only on purpose; the hub refuses to start with neither, or both.
"""

from __future__ import annotations

import pytest
import yaml
from attention_hub.origins import subdomain_host
from traitlets.config import Config

from tests.support.k8s_files import VALUES

HOST = "https://hub.school.example"
CASES = {
    "neither": {},
    "a subdomain host": {"ATTENTION_LAB_SUBDOMAIN_HOST": HOST + "/"},
    "one origin on purpose": {"ATTENTION_LAB_ONE_ORIGIN": "1"},
    "both": {"ATTENTION_LAB_SUBDOMAIN_HOST": HOST, "ATTENTION_LAB_ONE_ORIGIN": "1"},
}


def _values_hub(env: dict[str, str], monkeypatch) -> Config:
    """The values' origins snippet run as the z2jh hub runs its extraConfig, in ``env``."""
    for name in ("ATTENTION_LAB_SUBDOMAIN_HOST", "ATTENTION_LAB_ONE_ORIGIN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = yaml.safe_load(VALUES.read_text())["hub"]["extraConfig"]["attention-lab-origins"]
    c = Config()
    exec(compile(code, str(VALUES), "exec"), {"c": c})
    return c


@pytest.mark.parametrize("case", CASES)
def test_the_kubernetes_hub_starts_only_as_a_one_machine_hub_would(case, monkeypatch):
    env = CASES[case]
    try:
        expected = subdomain_host(env)
    except ValueError:
        with pytest.raises(ValueError, match="the hub does not start"):
            _values_hub(env, monkeypatch)
        return
    c = _values_hub(env, monkeypatch)
    assert c.JupyterHub.get("subdomain_host", "") == expected


def test_the_shipped_values_refuse_to_start_until_the_admin_chooses(monkeypatch):
    """No default host in the values: the refusal says where to set one in them."""
    hub_env = yaml.safe_load(VALUES.read_text())["hub"]["extraEnv"]
    assert "ATTENTION_LAB_SUBDOMAIN_HOST" not in hub_env
    assert "ATTENTION_LAB_ONE_ORIGIN" not in hub_env
    with pytest.raises(ValueError, match=r"hub\.extraEnv\.ATTENTION_LAB_SUBDOMAIN_HOST"):
        _values_hub({}, monkeypatch)
