"""The one check of an OpenAI-compatible endpoint before an API key is sent to it.

The key travels in a header of every request, so it goes only over https, or over plain http to this machine
(127.0.0.0/8, ::1, ``localhost``); anything else needs the user's explicit ``--allow-insecure-endpoint``. A URL
that is not one, or that carries credentials or a query (the manifest and provenance record the URL), is refused.
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from mirforge.errors import InputError

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
INSECURE_FLAG = "--allow-insecure-endpoint"


def effective_url(base_url: str | None) -> tuple[str, str]:
    """The URL the openai client will call, and where it came from (the flag, ``OPENAI_BASE_URL`` or the default)."""
    if base_url:
        return base_url, "--base-url"
    from_env = os.environ.get("OPENAI_BASE_URL")
    if from_env:
        return from_env, "OPENAI_BASE_URL"
    return DEFAULT_ENDPOINT, "--base-url"


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def needs_insecure(base_url: str | None) -> bool:
    """True when the endpoint is plain http to another machine (so the key would cross the network in clear)."""
    url, _ = effective_url(base_url)
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and not is_loopback(parts.hostname or "")


def check_endpoint(base_url: str | None, *, allow_insecure: bool = False) -> str:
    """The endpoint's URL when a key may be sent to it; else a one-line InputError naming the option and the fix."""
    url, flag = effective_url(base_url)
    shown = url if len(url) <= 80 else url[:77] + "..."
    example = "e.g. http://127.0.0.1:8000/v1 or https://api.example.com/v1"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise InputError(f"{flag}: {shown!r} is not a URL; give an http(s) URL, {example}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url):
        raise InputError(f"{flag}: {shown!r} is not an http(s) URL with a host; {example}")
    if "@" in parts.netloc or parts.query:
        raise InputError(f"{flag}: put the API key in OPENAI_API_KEY, not in the URL (the manifest records it)")
    if needs_insecure(url) and not allow_insecure:
        raise InputError(
            f"{flag}: {shown} is plain http to another machine, so the API key would cross the network in clear "
            f"text; use https or a loopback address (127.0.0.1, ::1, localhost), or pass {INSECURE_FLAG}"
        )
    return url
