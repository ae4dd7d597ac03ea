"""Install step ``system`` (autograder/attention_hub/system_install.py), in folders of this test:
the exchange and its course folders, the system nbgrader config as nbgrader loads it, the
students' config folder.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
from attention_hub.exchange_folders import COURSE_DIR_MODES
from attention_hub.system_install import (
    course_owners,
    ensure_exchange,
    install_system,
    render_system_config,
)
from traitlets.config.loader import PyFileConfigLoader


def test_system_install_makes_the_exchange_and_a_loadable_config(tmp_path):
    exchange, config_dir = tmp_path / "exchange", tmp_path / "etc"
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    written = install_system(str(exchange), str(config_dir), ["attention-lab"], me)
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777
    assert (exchange / "attention-lab" / "inbound").is_dir()  # made now, not at first release
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(written.parent)).load_config()
    assert cfg.Exchange.root == str(exchange)
    assert cfg.CourseDirectory.course_id == "attention-lab"
    assert cfg.Exchange.path_includes_course is False
    assert cfg.Authenticator.plugin_class.__name__ == "JupyterHubAuthPlugin"
    student = json.loads(
        (
            config_dir
            / "attention-lab"
            / "student"
            / "jupyter_server_config.d"
            / "attention-lab-student.json"
        ).read_text()
    )
    assert (
        student["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"]
        is False
    )


def test_several_courses_put_fetched_copies_under_the_course(tmp_path):
    text = render_system_config(str(tmp_path), ["a-9", "a-10"])
    assert "c.Exchange.path_includes_course = True" in text
    assert "c.CourseDirectory.course_id" not in text.replace("# (several", "")
    with pytest.raises(ValueError, match="absolute"):
        render_system_config("exchange", ["a-9"])


def test_course_folders_get_nbgraders_modes(tmp_path):
    owner = __import__("pwd").getpwuid(os.getuid()).pw_name
    ensure_exchange(str(tmp_path / "x"), ["attention-lab"], owner=owner)
    course = tmp_path / "x" / "attention-lab"
    modes = {sub: stat.S_IMODE((course / sub).stat().st_mode) for sub in COURSE_DIR_MODES}
    # inbound: students may write and enter but not list (nbgrader's 2733 with setgid), and
    # sticky: nobody renames or deletes a classmate's submission
    assert modes == {"": 0o755, "outbound": 0o755, "inbound": 0o3733, "feedback": 0o711}


def test_course_folders_need_an_owner_at_install(tmp_path):
    with pytest.raises(ValueError, match="--owner <instructor>"):
        ensure_exchange(str(tmp_path / "x"), ["attention-lab"], None)
    # several classes: one owner per course, or one for all
    owners = course_owners(["a", "b"], ["a=ann", "bob"])
    assert owners == {"a": "ann", "b": "bob"}
