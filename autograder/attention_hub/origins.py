"""Each user's server on its own origin: the hub's subdomain host, or one origin on purpose.

Both hub configs call :func:`subdomain_host`. Without subdomains every server is a path of one
origin, and a page one student's server serves runs, in the teacher's browser, beside his own
server (it reads his ``_xsrf`` cookie and calls his server's API as him). So the hub starts with
a subdomain host (``ATTENTION_LAB_SUBDOMAIN_HOST``), or with one origin only when the admin says
so by name (``ATTENTION_LAB_ONE_ORIGIN=1``, for a hub whose users are all trusted).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

__all__ = ["ONE_ORIGIN_ENV", "SUBDOMAIN_HOST_ENV", "subdomain_host"]

SUBDOMAIN_HOST_ENV = "ATTENTION_LAB_SUBDOMAIN_HOST"
ONE_ORIGIN_ENV = "ATTENTION_LAB_ONE_ORIGIN"

_HOW = """\
the hub does not start: it has no subdomain host, so every user's server would share one origin
and a page a student's server serves could act, in the teacher's browser, on his server.
Give each server its own origin (docs/hub-admins.md, "Origins apart"), for a hub at
hub.school.example:
  DNS, a wildcard record beside the hub's own:
    hub.school.example.     IN A  203.0.113.10
    *.hub.school.example.   IN A  203.0.113.10
  a certificate for both names (wildcards only through the DNS challenge):
    certbot certonly --manual --preferred-challenges dns -d hub.school.example -d '*.hub.school.example'
  the setting, in the hub's environment:
    {subdomain}=https://hub.school.example
Or, only if every user of this hub is trusted, keep one origin on purpose: {one}=1"""


def subdomain_host(env: Mapping[str, str] = os.environ) -> str:
    """Return ``JupyterHub.subdomain_host`` from the environment ("" when one origin is chosen).

    Parameters
    ----------
    env : mapping of str to str
        The hub's environment: ``ATTENTION_LAB_SUBDOMAIN_HOST`` (``https://hub.school.example``)
        or ``ATTENTION_LAB_ONE_ORIGIN=1``.

    Raises
    ------
    ValueError
        Neither is set (the message gives the DNS record, the certificate and the setting),
        both are, or the host is not an ``http(s)://host[:port]`` address.
    """
    host = env.get(SUBDOMAIN_HOST_ENV, "").strip()
    one_origin = env.get(ONE_ORIGIN_ENV, "").strip()
    if one_origin not in ("", "0", "1"):
        raise ValueError(
            f"the hub does not start: {ONE_ORIGIN_ENV} is 1 or unset, not {one_origin!r}"
        )
    if host and one_origin == "1":
        raise ValueError(
            f"the hub does not start: {SUBDOMAIN_HOST_ENV} and {ONE_ORIGIN_ENV}=1 contradict "
            f"each other; keep the subdomain host and unset {ONE_ORIGIN_ENV}"
        )
    if host:
        parts = urlsplit(host)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
            raise ValueError(
                f"the hub does not start: {SUBDOMAIN_HOST_ENV}={host!r} is not the hub's own "
                "address; give it as https://hub.school.example (no path)"
            )
        return host.rstrip("/")
    if one_origin == "1":
        return ""
    raise ValueError(_HOW.format(subdomain=SUBDOMAIN_HOST_ENV, one=ONE_ORIGIN_ENV))
