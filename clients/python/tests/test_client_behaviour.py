"""The client's own behaviour against the sandbox: retry, timeout, merchant account, pagination,
and the strictness of its models (a field missing or unknown fails the parse)."""

from __future__ import annotations

import time

import httpx
import pytest
from gr4vy import errors, models

from sandbox_testing import strict
from tests.ids import BUYER, BUYER_TWO


def test_a_get_is_retried_after_a_5xx(client, ns):
    ns.define_scenario({"name": "first-fails", "description": "The first list fails.", "operations": ["listGiftCards"], "calls": [1], "respond": {"status": 500}})
    assert ns.control("PUT", "/scenarios/active", json={"scenarios": ["first-fails"]}).status_code in (200, 204)
    res = client.gift_cards.list(limit=5)  # the client's default retry for GETs: backoff on 5XX
    assert len(res.result.items) == 5
    second, first = ns.requests(operation_id="listGiftCards")
    assert (first["status"], first["scenario"]) == (500, "first-fails")
    assert (second["status"], second["scenario"]) == (200, "first-fails")  # its later calls pass through


def test_a_write_is_not_retried_after_a_5xx(client, ns):
    ns.define_scenario({"name": "first-fails", "description": "The first update fails.", "operations": ["updateBuyer"], "calls": [1], "respond": {"status": 500}})
    assert ns.control("PUT", "/scenarios/active", json={"scenarios": ["first-fails"]}).status_code in (200, 204)
    with pytest.raises(errors.Error500):
        client.buyers.update(buyer_id=BUYER, display_name="x")
    assert [e["status"] for e in ns.requests(operation_id="updateBuyer")] == [500]


def test_the_timeout_gives_up_on_a_slow_answer(make_client, ns):
    ns.define_scenario({"name": "slow-list", "description": "2 s late.", "operations": ["listGiftCards"], "steps": [{"delay_ms": 2000, "pass": True}]})
    client = make_client(timeout_ms=300)
    started = time.monotonic()
    with pytest.raises(httpx.TimeoutException):
        client.gift_cards.list(limit=1, retries=None, http_headers={"x-sandbox-scenario": "slow-list"})
    assert time.monotonic() - started < 1.5
    # Without the scenario the same client is answered in time.
    assert len(client.gift_cards.list(limit=1, retries=None).result.items) == 1


def test_the_merchant_account_setting_chooses_the_account(make_client):
    two = make_client(merchant_account_id="merchant-two")
    buyer = two.buyers.update(buyer_id=BUYER_TWO, display_name="Joost")
    assert (buyer.id, buyer.merchant_account_id, buyer.display_name) == (BUYER_TWO, "merchant-two", "Joost")
    with pytest.raises(errors.Error404):  # default's buyer is not in merchant-two
        two.buyers.update(buyer_id=BUYER, display_name="x")
    cards = two.gift_cards.list(limit=100).result.items
    assert cards and {c.merchant_account_id for c in cards} == {"merchant-two"}
    # The per-call parameter overrides the client's setting.
    assert make_client().buyers.update(buyer_id=BUYER_TWO, display_name="y", merchant_account_id="merchant-two").merchant_account_id == "merchant-two"
    with pytest.raises(errors.Error403):  # an account that does not exist
        make_client(merchant_account_id="no-such-account").gift_cards.list()


def test_the_pagination_helper_walks_every_page(client, ns):
    expected = ns.control("GET", "/records/gift_cards", params={"merchant_account_id": "default", "limit": 1}).json()["total"]
    page, ids, pages = client.gift_cards.list(limit=7), [], 0
    while page is not None:
        assert len(page.result.items) <= 7
        ids += [c.id for c in page.result.items]
        pages += 1
        page = page.next()
    assert len(ids) == len(set(ids)) == expected
    assert pages == -(-expected // 7) and expected > 7


def test_the_models_are_strict():
    assert strict.is_on()
    good = {"id": BUYER, "reconciliation_id": "5M6eGrrw2XGw3LSBPJpxr7", "merchant_account_id": "default", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}
    models.Buyer.model_validate(good)
    with pytest.raises(Exception, match="reconciliation_id"):
        models.Buyer.model_validate({k: v for k, v in good.items() if k != "reconciliation_id"})
    with pytest.raises(Exception, match="extra_forbidden|Extra inputs"):
        models.Buyer.model_validate({**good, "surprise": 1})


@pytest.mark.parametrize(
    ("merge", "complaint"),
    [({"reconciliation_id": None}, "reconciliation_id"), ({"surprise": 1}, "surprise"), ({"billing_details": {"tax_id": {"value": "1", "kind": "xx.unknown"}}}, "xx.unknown")],
)
def test_an_answer_with_a_field_missing_or_unknown_fails_the_client(client, ns, merge, complaint):
    ns.define_scenario({"name": "bent", "description": "A bent buyer.", "operations": ["updateBuyer"], "steps": [{"merge": merge}]})
    with pytest.raises(errors.ResponseValidationError, match=complaint):
        client.buyers.update(buyer_id=BUYER, display_name="x", http_headers={"x-sandbox-scenario": "bent"})
