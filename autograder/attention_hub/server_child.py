"""What a user's server process does as root between fork and exec, before it drops to the user.

The spawner (``spawner_limits.py``) decides everything beforehand, in the hub; the child only
applies it, in this order: it joins its user's control group (or, where there is none, limits
its address space), gets its own mount namespace with private temporary folders, a /proc of its
user's processes and a capped exchange root (``server_namespace.py``), enters the port fence
(``port_fence.py``; last: a fenced process may mount nothing) and drops to the user.
"""

from __future__ import annotations

import resource
from collections.abc import Callable
from dataclasses import dataclass

from attention_hub.port_fence import enter_fence
from attention_hub.server_namespace import private_proc, private_tmp, shield_exchange_root
from attention_hub.user_cgroup import UserCgroup

__all__ = ["ChildSetup"]


@dataclass(frozen=True)
class ChildSetup:
    """A ``preexec_fn`` for one start of one user's server (called in the child, as root).

    Parameters
    ----------
    group : UserCgroup or None
        The user's control group to join; None: none could be made.
    mem : int or None
        Memory limit in bytes: the child's ``RLIMIT_AS`` when there is no group.
    tmp : int or None
        Size in bytes of each private temporary folder; None: the machine's shared ones.
    keep : tuple of str
        Paths under those folders the server needs, bound in at the same path.
    shielded : tuple of str
        Course folders whose exchange root the server sees capped.
    fence : int or None
        The Landlock ruleset to enter (``port_fence.fence_ruleset``); None: unfenced.
    drop_to_user : callable
        ``LocalProcessSpawner``'s own preexec_fn: becomes the user.
    """

    group: UserCgroup | None
    mem: int | None
    tmp: int | None
    keep: tuple[str, ...]
    shielded: tuple[str, ...]
    fence: int | None
    drop_to_user: Callable[[], None]

    def __call__(self) -> None:
        """Apply the limits, the namespace and the fence, then drop to the user."""
        if self.group is not None:
            self.group.join()
        elif self.mem:
            resource.setrlimit(resource.RLIMIT_AS, (self.mem, self.mem))
        if self.tmp:
            private_tmp(self.tmp, self.keep)
            private_proc()
            shield_exchange_root(self.shielded)
        if self.fence is not None:  # last: a fenced process may mount nothing
            enter_fence(self.fence)
        self.drop_to_user()
