"""The sandbox the suite talks to: SANDBOX_URL (the vitest wrapper starts one), or one started here
from the built CLI, as a user would (`node dist/bundle/cli.js`)."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(os.environ.get("SANDBOX_ROOT") or Path(__file__).resolve().parents[3])
KEYS = ROOT / "fixtures" / "keys"
MERCHANT_HEADER = "x-gr4vy-merchant-account-id"
# One connection pool for the control calls (a client per call builds an SSL context each time).
CONTROL = httpx.Client(timeout=10)
# The clients' own connection pool, shared for the same reason (Gr4vy's `client` option).
CLIENT_HTTP = httpx.Client(follow_redirects=True)


def private_key(name: str = "admin") -> str:
    return (KEYS / f"{name}.pem").read_text()


class StartedSandbox:
    """The built CLI on a free port; its banner names the address."""

    def __init__(self) -> None:
        cli = ROOT / "dist" / "bundle" / "cli.js"
        if not cli.exists():
            raise RuntimeError(f"{cli} is missing: run `npm run build` in {ROOT} first")
        self.process = subprocess.Popen(
            ["node", str(cli), "--port", "0", "--merchant-account-header", MERCHANT_HEADER, "--log-level", "warn"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for line in self.process.stderr:  # the banner goes to stderr; its first line has the address
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        else:
            raise RuntimeError(f"the sandbox exited ({self.process.wait()}) before listening")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@dataclass
class Namespace:
    """One namespace of the sandbox (`/ns/<name>`): its base URL and its control API."""

    root: str
    name: str

    @property
    def url(self) -> str:
        return f"{self.root}/ns/{self.name}"

    def control(self, method: str, path: str, **kwargs) -> httpx.Response:
        """Plain HTTP to /_sandbox/* of this namespace (set-up only: the client never calls it)."""
        return CONTROL.request(method, f"{self.url}/_sandbox{path}", **kwargs)

    def define_scenario(self, definition: dict) -> None:
        res = self.control("POST", "/scenarios", json=definition)
        assert res.status_code == 201, res.text

    def requests(self, **query) -> list[dict]:
        """The journal of this namespace, newest first."""
        res = self.control("GET", "/requests", params=query)
        assert res.status_code == 200, res.text
        body = res.json()
        return body["items"] if isinstance(body, dict) else body


def new_namespace(root: str, prefix: str) -> Namespace:
    return Namespace(root, f"{prefix}-{uuid.uuid4().hex[:12]}")
