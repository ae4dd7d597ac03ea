"""The spawner's server ports (autograder/attention_hub/spawner_limits.py): a bad range fails at
configuration, servers starting together get ports of their own (the range itself:
test_server_port.py). Imports JupyterHub's spawner: collected only with the hub extra
(tests/conftest.py's NEEDS_JUPYTERHUB).
"""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_a_spawner_with_a_bad_range_fails_at_configuration_not_at_a_students_spawn():
    from attention_hub.spawner_limits import LimitedLocalProcessSpawner
    from traitlets import TraitError

    with pytest.raises(TraitError, match="server_ports"):
        LimitedLocalProcessSpawner(server_ports="29999-20000")
    assert LimitedLocalProcessSpawner(server_ports="").server_ports == ""  # JupyterHub's choice


def test_servers_starting_together_get_different_ports_from_the_range_and_give_them_back(request):
    from types import SimpleNamespace

    from attention_hub.spawner_limits import LimitedLocalProcessSpawner

    def spawner(name: str):
        return LimitedLocalProcessSpawner(
            user=SimpleNamespace(name=name), server_ports="21000-21001"
        )

    alice, bob, carol = spawner("alice"), spawner("bob"), spawner("carol")
    request.addfinalizer(LimitedLocalProcessSpawner._port_book.given.clear)
    alice._take_port()
    bob._take_port()  # alice's server is not listening yet: her port is still hers
    assert {alice.port, bob.port} == {21000, 21001}
    with pytest.raises(RuntimeError, match="no free port left"):
        carol._take_port()
    alice._give_back_port()  # her server stopped
    carol._take_port()
    assert carol.port == alice.port
