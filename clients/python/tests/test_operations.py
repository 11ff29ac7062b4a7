"""Every operation of the 19 that gr4vy 2.4.27 has, through its own calls, answers parsed strictly.

The 19 and where each is covered:
  POST   /api-key-pairs                                   api_key_pairs.create              here
  PUT    /buyers/{id}                                     buyers.update                     here
  GET    /buyers/payment-methods                          buyers.payment_methods.list       here
  GET    /gift-cards                                      gift_cards.list                   here, test_pagination
  GET    /payment-methods/{id}/payment-service-tokens     payment_methods.payment_service_tokens.list   here
  POST   /payment-methods/{id}/network-tokens/{id}/cryptogram   payment_methods.network_tokens.cryptogram.create  here
  POST   /digital-wallets/google/session                  digital_wallets.sessions.google_pay   here
  POST   /digital-wallets/click-to-pay/session            digital_wallets.sessions.click_to_pay here
  DELETE /checkout/sessions/{id}                          checkout_sessions.delete          here
  GET    /card-scheme-definitions                         card_scheme_definitions.list      here
  POST   /reports                                         reports.create                    here
  GET    /report-executions/{id}                          reports.executions.get            here
The client has no call for these seven (gr4vy 2.4.27 lacks them; nothing to cover):
  POST   /transactions/{id}/session                       (no transaction session call)
  DELETE /anti-fraud-services/{id}                        (no anti-fraud services area)
  DELETE /apple-pay-certificates/{id}                     (no Apple Pay certificates area)
  GET    /connections                                     (no connections area)
  GET    /flows/{flow}                                    (no flows area)
  GET    /vault-forward/configs/{id}/authentications      (no Vault Forward area)
  DELETE /webhook-subscriptions/{id}                      (no webhook subscriptions area)
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from gr4vy import errors, models

from tests.ids import (
    BUYER,
    BUYER_RECONCILIATION_ID,
    CARD,
    CHECKOUT_SESSION,
    KEY_PAIR_ADMIN,
    NETWORK_TOKEN,
    REPORT,
    REPORT_EXECUTION,
    ROLE_READ_ONLY,
)

REPORT_SPEC = {"model": "transactions", "params": {"filters": {"ingested_at": {"start": "2026-11-01T00:00:00Z", "end": "2026-11-22T00:00:00Z"}}}}


def test_create_api_key_pair_generates_a_pair_with_its_roles_accounts_and_creator(client, ns):
    pair = client.api_key_pairs.create(display_name="CI key", role_ids=[ROLE_READ_ONLY], merchant_account_ids=["default"])
    assert isinstance(pair, models.APIKeyPair)
    assert (pair.display_name, pair.algorithm, pair.active, pair.last_used_at) == ("CI key", "ECDSA", True, None)
    assert pair.private_key.startswith("-----BEGIN PRIVATE KEY-----")
    assert len(pair.thumbprint) == 43
    assert pair.creator.id == KEY_PAIR_ADMIN and pair.creator.name == "Admin key" and len(pair.creator.thumbprint) == 43
    assert [(m.id, m.display_name) for m in pair.merchant_accounts] == [("default", "Default")]
    [role] = pair.roles
    assert (role.id, role.name, role.slug, role.permissions.allow, role.is_standalone_assignable) == (ROLE_READ_ONLY, "read-only", "read-only", ["*.read"], True)
    stored = ns.control("GET", f"/records/api_key_pairs/{pair.id}", params={"shape": "stored"}).json()
    assert stored["role_ids"] == [ROLE_READ_ONLY] and "private_key" not in stored


def test_update_buyer_merges_and_serves_the_reconciliation_id(client, ns):
    buyer = client.buyers.update(buyer_id=BUYER, display_name="Janet Doe", account_number=None)
    assert isinstance(buyer, models.Buyer)
    assert (buyer.id, buyer.reconciliation_id, buyer.merchant_account_id) == (BUYER, BUYER_RECONCILIATION_ID, "default")
    assert (buyer.display_name, buyer.account_number, buyer.external_identifier) == ("Janet Doe", None, "buyer-ext-0001")
    assert buyer.billing_details.first_name == "Jane" and buyer.billing_details.address.country == "US"
    assert isinstance(buyer.updated_at, datetime) and buyer.updated_at.tzinfo is not None
    stored = ns.control("GET", f"/records/buyers/{BUYER}", params={"shape": "stored"}).json()
    assert (stored["display_name"], stored["account_number"], stored["reconciliation_id"]) == ("Janet Doe", None, BUYER_RECONCILIATION_ID)


def test_list_buyer_payment_methods(client):
    page = client.buyers.payment_methods.list(buyer_id=BUYER)
    assert isinstance(page, models.PaymentMethodSummaries)
    assert len(page.items) == 6
    assert CARD in [m.id for m in page.items]
    card = next(m for m in page.items if m.id == CARD)
    assert (card.method, card.country, card.currency) == ("card", "US", "USD")


def test_list_gift_cards_of_a_buyer(client):
    res = client.gift_cards.list(buyer_id=BUYER, limit=100)
    assert isinstance(res, models.ListGiftCardsResponse)
    assert res.result.items, "the well-known buyer has gift cards"
    for card in res.result.items:
        assert card.buyer.id == BUYER and card.buyer.reconciliation_id == BUYER_RECONCILIATION_ID
        assert isinstance(card.usage_count, int) and isinstance(card.cit_usage_count, int)


def test_list_payment_service_tokens(client):
    tokens = client.payment_methods.payment_service_tokens.list(payment_method_id=CARD)
    assert isinstance(tokens, models.PaymentServiceTokens)
    assert [(t.id[:2], t.status) for t in tokens.items] == [("c2", "succeeded"), ("c2", "processing"), ("c2", "buyer_approval_required")]
    assert all(t.payment_method_id == CARD for t in tokens.items)


def test_create_network_token_cryptogram(client):
    cryptogram = client.payment_methods.network_tokens.cryptogram.create(payment_method_id=CARD, network_token_id=NETWORK_TOKEN, merchant_initiated=False)
    assert isinstance(cryptogram, models.Cryptogram)
    assert len(cryptogram.cryptogram) >= 20


def test_create_google_pay_session(client):
    session = client.digital_wallets.sessions.google_pay(origin_domain="shop.example.com")
    assert isinstance(session, models.GooglePaySession)
    assert session.gateway_merchant_id == "default"
    assert session.token.count(".") == 2


def test_create_click_to_pay_session(client):
    session = client.digital_wallets.sessions.click_to_pay(checkout_session_id=CHECKOUT_SESSION)
    assert isinstance(session, models.ClickToPaySession)
    assert (session.digital_payment_application_id, session.digital_payment_application_name) == ("sandbox-dpa-default", "Default")


def test_delete_checkout_session_then_it_is_gone(client, ns):
    assert client.checkout_sessions.delete(session_id=CHECKOUT_SESSION) is None
    assert ns.control("GET", f"/records/checkout_sessions/{CHECKOUT_SESSION}").status_code == 404
    with pytest.raises(errors.Error404):
        client.checkout_sessions.delete(session_id=CHECKOUT_SESSION)


def test_list_card_scheme_definitions(client):
    definitions = client.card_scheme_definitions.list()
    assert isinstance(definitions, models.CardSchemeDefinitions)
    ids = [d.id for d in definitions.items]
    assert ids[:2] == ["visa", "mastercard"]
    assert all(d.icon_url.startswith("https://") and d.display_name for d in definitions.items)


def test_create_report(client, ns):
    report = client.reports.create(name="Daily sales", schedule="daily", schedule_enabled=True, spec=REPORT_SPEC)
    assert isinstance(report, models.Report)
    assert (report.name, report.schedule, report.schedule_enabled, report.merchant_account_id) == ("Daily sales", "daily", True, "default")
    assert report.spec.model == "transactions"
    assert ns.control("GET", f"/records/reports/{report.id}").status_code == 200


def test_create_report_with_the_date_times_python_sends(client):
    # The client serializes a datetime as Python does: 6 fraction digits, no offset when naive.
    start, end = datetime(2026, 11, 1, 8, 30, 15, 123456), datetime(2026, 11, 22, tzinfo=timezone.utc)
    spec = {"model": "transactions", "params": {"filters": {"ingested_at": {"start": start, "end": end}}}}
    report = client.reports.create(name="Python times", schedule="once", schedule_enabled=False, spec=spec)
    assert report.spec.params == {"filters": {"ingested_at": {"start": "2026-11-01T08:30:15.123456", "end": "2026-11-22T00:00:00Z"}}}


def test_get_report_execution(client):
    execution = client.reports.executions.get(report_execution_id=REPORT_EXECUTION)
    assert isinstance(execution, models.ReportExecution)
    assert (execution.id, execution.status, execution.report.id, execution.report.name) == (REPORT_EXECUTION, "pending", REPORT, "Daily transactions")
