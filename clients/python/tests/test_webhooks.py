"""The client's webhook-verification helper on a real delivery: a receiver on 127.0.0.1, a
subscription made through the control API, a buyer update that fires buyer.updated."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sandbox_testing.client import verify_notification
from tests.ids import BUYER


class Receiver:
    def __init__(self) -> None:
        self.deliveries: list[tuple[str, dict]] = []
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers["content-length"])).decode()
                receiver.deliveries.append((raw, {k.lower(): v for k, v in self.headers.items()}))
                self.send_response(204)
                self.end_headers()
                receiver.arrived.set()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_a_real_delivery_verifies_and_a_tampered_one_does_not(client, ns, receiver):
    made = ns.control("POST", "/records/webhook_subscriptions", json={"url": receiver.url})
    assert made.status_code == 201, made.text
    secret = made.json()["secret"]
    client.buyers.update(buyer_id=BUYER, display_name="Hooked")
    assert receiver.arrived.wait(15), "no delivery within 15 s"
    raw, headers = receiver.deliveries[0]
    event = json.loads(raw)
    assert (event["name"], event["target"]["id"], event["target"]["display_name"]) == ("buyer.updated", BUYER, "Hooked")

    verify_notification(raw, secret, headers)  # the client's helper accepts it
    with pytest.raises(ValueError, match="No matching signature"):
        verify_notification(raw.replace("Hooked", "Hacked"), secret, headers)
    with pytest.raises(ValueError, match="No matching signature"):
        verify_notification(raw, secret + "x", headers)
    with pytest.raises(ValueError, match="No matching signature"):
        verify_notification(raw, secret, {**headers, "x-service-timestamp": str(int(headers["x-service-timestamp"]) + 1)})
