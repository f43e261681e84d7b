"""Who is asking, by network address: the client address behind a reverse proxy.

A proxy on the same host (deploy/nginx.conf) connects to the app from loopback, so the TCP
peer names the proxy, not the student. The proxy names the student in ``X-Real-IP`` (and
``X-Forwarded-For``); those headers are believed only when the peer is one of the trusted
proxies of ``POSENC_TRUSTED_PROXIES``, since a browser that reaches the app directly could
put any address there and change it on every try.

Pure Python: no Streamlit (``classroom.session`` passes in the peer and the headers).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping

SETTING = "POSENC_TRUSTED_PROXIES"
#: nginx (or any proxy) on the same host: what deploy/run_two.sh runs
DEFAULT = "127.0.0.1, ::1"
#: the IPv6 prefix one limit counts as one address: a host is handed a /64 and picks any of
#: its 2^64 addresses, so counting addresses one by one would limit nothing
IPV6_PREFIX = 64

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies(environ: Mapping[str, str] = os.environ) -> tuple[Network, ...]:
    """The proxies whose address headers are believed: ``$POSENC_TRUSTED_PROXIES``, a comma
    separated list of addresses or networks (``10.0.0.0/8``); "none" trusts no proxy."""
    text = (environ.get(SETTING) or DEFAULT).strip()
    if text.lower() == "none":
        return ()
    nets = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            nets.append(ipaddress.ip_network(part, strict=False))
        except ValueError as exc:
            raise ValueError(
                f"{SETTING} must list addresses or networks separated by commas, got {part!r:.60}"
            ) from exc
    return tuple(nets)


def _address(text) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not isinstance(text, str):
        return None
    try:
        found = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    # an IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d
    mapped = getattr(found, "ipv4_mapped", None)
    return mapped or found


def _trusted(found, nets: tuple[Network, ...]) -> bool:
    return any(found.version == net.version and found in net for net in nets)


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name.lower() and isinstance(value, str):
            return value
    return ""


def client_address(peer: str, headers: Mapping[str, str], trusted: tuple[Network, ...]) -> str:
    """The client's address: the peer's own, unless the peer is a trusted proxy; then the
    proxy's ``X-Real-IP``, else the last ``X-Forwarded-For`` entry that is not a trusted proxy.
    "" when there is no peer (no request, as under AppTest)."""
    found = _address(peer)
    if found is None:
        return ""
    if not _trusted(found, trusted):
        return str(found)
    real = _address(_header(headers, "X-Real-IP"))
    if real is not None:
        return str(real)
    hops = [_address(part) for part in _header(headers, "X-Forwarded-For").split(",")]
    for hop in reversed(hops):
        if hop is None:
            break  # a hop that is not an address: nothing left of it can be believed
        if not _trusted(hop, trusted):
            return str(hop)
    return str(found)


def limit_key(text: str) -> str:
    """What the limits on wrong codes, joins and storage count ``text`` (a client address)
    under: an IPv6 address's /64 ("2001:db8:1:2::/64"), an IPv4 address as itself (an IPv4
    client of a dual-stack socket too), anything that is not an address as it is."""
    found = _address(text)
    if found is None:
        return text
    if found.version == 6:
        return str(ipaddress.ip_network(f"{found}/{IPV6_PREFIX}", strict=False))
    return str(found)
