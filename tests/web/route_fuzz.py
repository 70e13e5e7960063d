"""A bounded fuzz of every route of the app: malformed bodies, odd headers, wrong methods, odd
paths and query strings, sent in-process (Flask's test client, nothing leaves the machine).

``fuzz_requests(app)`` walks ``app.url_map`` and yields the same list every time (no
randomness), so a failure names a request that can be sent again. ``send_all`` sends them and
counts the answers by class; the test asserts no 5xx and ``benchmarks/route_fuzz_bench.py``
prints the figures.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from flask import Flask
from flask.testing import FlaskClient

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

PATH_VALUES = ("0", "0-1", "-1", "0--1", "99999999999999999999", "9" * 5000, "x", "é€", "%ff", "..%2F..%2Fetc%2Fpasswd",
               "0-" * 300 + "0", "\x00", " ", "1.5")
"""What is put in each ``<variable>`` of a route's URL."""

QUERIES = ("", "?limit=x", "?limit=-5", "?limit=99999999999999999999999", "?frames=0", "?frames=-1&frames=x",
           "?overlay=%ff", "?a=" + "b" * 2000)

BAD_VALUES: tuple[Any, ...] = (None, 0, -1, 1.5, 1e308, True, "", " ", "x" * 5000, "\ud800", "é€😀", "\x00",
                               [], ["a"], {}, {"a": "b"}, [[["deep"]]], 10**30, "0", "heads", "cancel")
"""What each field of a body is replaced with, one at a time."""

TEMPLATES: dict[str, dict[str, Any]] = {
    "/api/action": {"action": "cancel"},
    "/api/login": {"pin": "2468"},
    "/api/match": {"game": "sevens", "players": ["Ann", "Bo"], "options": {"sv.rounds": "1"}, "first": "Ann",
                   "pin": "2468", "current_pin": "2468"},
    "/api/answer": {"question": "q1", "answer": "heads"},
    "/api/learn": {"faces": {"0": "heads"}},
}
"""A well-formed body for each route that reads one, so that one bad field reaches the code past the others."""

RAW_BODIES: tuple[bytes, ...] = (
    b"", b"not json", b"null", b"[]", b"{}", b"1e999999", b'{"a":', b"\xff\xfe\x00\x01", b'"\\ud800"',
    b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000, b'{"action": NaN}', b'{"action": Infinity}',
    b'{"pin": "1", "pin": "2468"}', b"{" * 100_000, json.dumps({"action": "x" * 100_000}).encode(),
    b'{"pin": ' + b"9" * 5000 + b"}", b'{"action": "\\u0000"}',
)

CSRF_TOKENS = ("", "forged", "é", "\xff\xfe", "\u20ac" * 50, "x" * 10_000, "\x00")

HEADERS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("Content-Type", "application/json; charset=bogus"),), (("Content-Type", "application/json; charset=\xff"),),
    (("Content-Type", "\xff\xfe"),), (("Cookie", "session=\xff\xfe; x=\x00"),), (("Cookie", "session=" + "a" * 5000),),
    (("Content-Encoding", "gzip"),), (("Transfer-Encoding", "chunked"),), (("Accept", "\xff"),), (("Host", "\xff"),),
    (("X-Forwarded-For", "\xff"),), (("Content-Length", "-5"),), (("Content-Length", "abc"),),
)
"""Odd headers, each sent with a well-formed body."""


@dataclass(frozen=True)
class FuzzRequest:
    """One request of the fuzz."""

    method: str
    path: str
    body: bytes | None = None
    content_type: str | None = None
    csrf: str | None = None
    """The X-CSRF-Token to send; ``None`` sends the session's own."""
    headers: tuple[tuple[str, str], ...] = ()
    """More headers (a Content-Type here replaces ``content_type``)."""

    def __str__(self) -> str:
        body = (self.body or b"")[:80]
        return f"{self.method} {self.path[:120]} {self.content_type} csrf={self.csrf!r:.20} {self.headers!r:.80} body={body!r}"


@dataclass
class FuzzResult:
    """What the fuzz got back."""

    sent: int = 0
    by_class: Counter[str] = field(default_factory=Counter)
    by_status: Counter[int] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    """Each request answered 5xx, with the status."""


def route_paths(app: Flask) -> list[tuple[str, frozenset[str]]]:
    """Every route's URL with each of ``PATH_VALUES`` in its variables, and the methods it allows."""
    paths = []
    for rule in app.url_map.iter_rules():
        allowed = frozenset(rule.methods or ())
        if not rule.arguments:
            paths.append((rule.rule, allowed))
            continue
        for value in PATH_VALUES:
            paths.append((re.sub(r"<[^>]+>", quote(value, safe="%-."), rule.rule), allowed))
    return paths


def bodies(path: str) -> Iterator[tuple[bytes, str]]:
    """Every malformed body for the route at ``path``, with its content type."""
    for raw in RAW_BODIES:
        yield raw, "application/json"
    template = TEMPLATES.get(path)
    if template is None:
        return
    for kind in ("application/json", "text/plain", "application/x-www-form-urlencoded"):
        yield json.dumps(template).encode(), kind
    yield json.dumps({**template, "unknown": [1]}).encode(), "application/json"
    for name in template:
        for value in BAD_VALUES:
            yield json.dumps({**template, name: value}).encode(), "application/json"
    if "faces" in template:
        for key in ("-1", "99999999999", "x", "0.5", "", "\ud800"):
            yield json.dumps({"faces": {key: "heads"}}).encode(), "application/json"
    if "players" in template:
        for players in (["Ann"], ["Ann", "Ann"], [""], ["x" * 1000] * 2, ["p"] * 500, [1, 2]):
            yield json.dumps({**template, "players": players}).encode(), "application/json"
        for options in ({"sv.rounds": "99999999999"}, {"nope": "1"}, {"sv.rounds": None}, {"": ""}, {"sv.rounds": [1]}):
            yield json.dumps({**template, "options": options}).encode(), "application/json"


def fuzz_requests(app: Flask) -> list[FuzzRequest]:
    """The whole fuzz for ``app``: every route with each method; the query strings on what it
    answers to GET; the CSRF tokens and malformed bodies on what changes the match."""
    requests = []
    for path, allowed in route_paths(app):
        for method in METHODS:
            if method not in allowed:
                requests.append(FuzzRequest(method, path, b"{}", "application/json"))
            elif method == "GET":
                requests.extend(FuzzRequest(method, path + query) for query in QUERIES)
            elif method in ("HEAD", "OPTIONS"):
                requests.append(FuzzRequest(method, path))
            else:
                requests.extend(FuzzRequest(method, path, b"{}", "application/json", csrf=token) for token in CSRF_TOKENS)
                requests.extend(FuzzRequest(method, path, body, kind) for body, kind in bodies(path))
                good = json.dumps(TEMPLATES.get(path, {})).encode()
                requests.extend(FuzzRequest(method, path, good, "application/json", headers=extra) for extra in HEADERS)
    return requests


def send_all(client: FlaskClient, csrf: str, requests: list[FuzzRequest]) -> FuzzResult:
    """Send ``requests`` with ``client`` (its session's token is ``csrf``) and count the answers."""
    result = FuzzResult()
    for item in requests:
        headers = {"X-CSRF-Token": csrf if item.csrf is None else item.csrf, **dict(item.headers)}
        content_type = headers.pop("Content-Type", item.content_type)
        response = client.open(item.path, method=item.method, data=item.body, content_type=content_type,
                               headers=headers)
        try:
            result.sent += 1
            result.by_status[response.status_code] += 1
            result.by_class[f"{response.status_code // 100}xx"] += 1
            if response.status_code >= 500:
                result.server_errors.append(f"{response.status_code}: {item}")
        finally:
            response.close()  # an endless stream (events, camera) is left unread
    return result
