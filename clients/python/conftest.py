"""The Python suite of the official client (gr4vy on PyPI), pointed at the sandbox.

Run by test/clients/python.test.ts with SANDBOX_URL set, or by hand (`.venv/bin/pytest` here), in
which case it starts the built sandbox itself. Every test gets a namespace of its own.
"""

from __future__ import annotations

import os
import re

from sandbox_testing import strict

# Before any test module imports gr4vy's models: unknown fields fail (sandbox_testing/strict.py).
strict.switch_on()

import pytest  # noqa: E402

from sandbox_testing.client import sandbox_client  # noqa: E402
from sandbox_testing.sandbox import CLIENT_HTTP, CONTROL, Namespace, StartedSandbox, new_namespace, private_key  # noqa: E402


@pytest.fixture(scope="session")
def sandbox_url():
    given = os.environ.get("SANDBOX_URL")
    if given:
        yield given.rstrip("/")
        return
    started = StartedSandbox()
    try:
        yield started.url
    finally:
        started.stop()


def _namespace(sandbox_url: str, name: str):
    ns = new_namespace(sandbox_url, re.sub(r"[^a-z0-9]+", "-", name.lower())[:40].strip("-"))
    yield ns
    # Dropped after use: the sandbox keeps at most 50 namespaces (--namespace-cap).
    CONTROL.delete(f"{sandbox_url}/_sandbox/namespaces/{ns.name}")


@pytest.fixture
def ns(sandbox_url, request):
    """A namespace of this test alone: its state, scenarios and journal are its own."""
    yield from _namespace(sandbox_url, request.node.name)


@pytest.fixture(scope="module")
def module_ns(sandbox_url, request):
    """A namespace shared by the tests of one module (tests that change no state)."""
    yield from _namespace(sandbox_url, request.module.__name__.rsplit(".", 1)[-1])


def client_for(ns: Namespace, key: str = "admin", **options):
    """A client of this namespace, its tokens minted by the client's helper from fixtures/keys/<key>.pem."""
    options.setdefault("client", CLIENT_HTTP)
    return sandbox_client(ns.url, private_key(key), **options)


@pytest.fixture
def client(ns):
    return client_for(ns)


@pytest.fixture
def make_client(ns):
    """Clients of this test's namespace with another key or other options."""
    return lambda key="admin", **options: client_for(ns, key, **options)

