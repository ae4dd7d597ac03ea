"""Who may do what on the hub (autograder/attention_hub/hub_access.py), without a hub."""

from __future__ import annotations

from attention_hub.course import Course
from attention_hub.hub_access import hub_roles, server_token_scopes


def test_roles_give_instructors_their_own_class_list_only():
    courses = [Course("a-9", instructors=("t",), students=("s",))]
    staff, students = hub_roles(courses)
    assert staff["groups"] == ["formgrade-a-9"] and students["groups"] == ["nbgrader-a-9"]
    assert "groups!group=nbgrader-a-9" in staff["scopes"]
    assert not any(scope.startswith("groups") for scope in students["scopes"])
    # The server token may carry the class-list scope; JupyterHub grants it to holders only.
    assert "groups!group=nbgrader-a-9" in server_token_scopes(courses)
