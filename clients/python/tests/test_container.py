"""The Testcontainers module against the image (npm run test:container sets SANDBOX_IMAGE and
DOCKER_HOST to podman's socket): the official client's calls through a namespace of the container."""

from __future__ import annotations

import os

import httpx
import pytest
from gr4vy import errors

from sandbox_testing.client import sandbox_client
from tests.ids import BUYER, BUYER_RECONCILIATION_ID, CARD

pytestmark = pytest.mark.container


@pytest.fixture(scope="module")
def sandbox():
    from sandbox_testing.container import PaymentsSandboxContainer

    with PaymentsSandboxContainer(os.environ.get("SANDBOX_IMAGE", "payments-sandbox:latest")) as started:
        yield started


def test_the_client_calls_the_container(sandbox):
    url = sandbox.namespace_url()
    assert url.startswith(sandbox.base_url() + "/ns/test-")
    client = sandbox_client(url, sandbox.private_key())
    tokens = client.payment_methods.payment_service_tokens.list(payment_method_id=CARD)
    assert [t.payment_method_id for t in tokens.items] == [CARD] * 3
    # The alias is set: the client's merchant account option is read, and merchant-two has no such card.
    with pytest.raises(errors.Error404):
        sandbox_client(url, sandbox.private_key(), merchant_account_id="merchant-two").payment_methods.payment_service_tokens.list(payment_method_id=CARD)
    # The most ordinary write, parsed strictly: the image serves what the client requires.
    buyer = client.buyers.update(buyer_id=BUYER, display_name="In the container")
    assert (buyer.display_name, buyer.reconciliation_id) == ("In the container", BUYER_RECONCILIATION_ID)
    # The module's token works for plain HTTP; the health route answered before start() returned.
    res = httpx.get(f"{url}/card-scheme-definitions", headers={"authorization": f"Bearer {sandbox.token()}"})
    assert res.status_code == 200 and res.json()["items"]
