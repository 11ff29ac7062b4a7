"""The client's typed error for every status each covered operation declares (openapi.json), each
answered by a scenario the request selects with the x-sandbox-scenario header."""

from __future__ import annotations

import json

import pytest
from gr4vy import errors

from conftest import client_for
from sandbox_testing.sandbox import ROOT
from tests.ids import BUYER, CARD, CHECKOUT_SESSION, NETWORK_TOKEN, REPORT_EXECUTION, ROLE_READ_ONLY
from tests.test_operations import REPORT_SPEC

# operationId -> a call of the client, with extra headers.
CALLS = {
    "createApiKeyPair": lambda c, h: c.api_key_pairs.create(display_name="x", role_ids=[ROLE_READ_ONLY], http_headers=h, retries=None),
    "updateBuyer": lambda c, h: c.buyers.update(buyer_id=BUYER, display_name="x", http_headers=h, retries=None),
    "listBuyerPaymentMethods": lambda c, h: c.buyers.payment_methods.list(buyer_id=BUYER, http_headers=h, retries=None),
    "listGiftCards": lambda c, h: c.gift_cards.list(http_headers=h, retries=None),
    "listPaymentServiceTokens": lambda c, h: c.payment_methods.payment_service_tokens.list(payment_method_id=CARD, http_headers=h, retries=None),
    "createNetworkTokenCryptogram": lambda c, h: c.payment_methods.network_tokens.cryptogram.create(
        payment_method_id=CARD, network_token_id=NETWORK_TOKEN, merchant_initiated=False, http_headers=h, retries=None
    ),
    "createGooglePaySession": lambda c, h: c.digital_wallets.sessions.google_pay(origin_domain="shop.example.com", http_headers=h, retries=None),
    "createClickToPaySession": lambda c, h: c.digital_wallets.sessions.click_to_pay(checkout_session_id=CHECKOUT_SESSION, http_headers=h, retries=None),
    "deleteCheckoutSession": lambda c, h: c.checkout_sessions.delete(session_id=CHECKOUT_SESSION, http_headers=h, retries=None),
    "listCardSchemeDefinitions": lambda c, h: c.card_scheme_definitions.list(http_headers=h, retries=None),
    "createReport": lambda c, h: c.reports.create(name="x", schedule="daily", schedule_enabled=True, spec=REPORT_SPEC, http_headers=h, retries=None),
    "getReportExecution": lambda c, h: c.reports.executions.get(report_execution_id=REPORT_EXECUTION, http_headers=h, retries=None),
}

# The client's class for each status (422 is its validation error; other 5xx are APIError).
TYPED = {
    400: errors.Error400,
    401: errors.Error401,
    403: errors.Error403,
    404: errors.Error404,
    405: errors.Error405,
    409: errors.Error409,
    422: errors.HTTPValidationError,
    425: errors.Error425,
    429: errors.Error429,
    500: errors.Error500,
    502: errors.Error502,
    504: errors.Error504,
}


def declared():
    spec = json.loads((ROOT / "openapi.json").read_text())
    for path_item in spec["paths"].values():
        for op in path_item.values():
            if isinstance(op, dict) and op.get("operationId") in CALLS:
                for status in sorted(int(s) for s in op["responses"] if int(s) >= 400):
                    yield op["operationId"], status


CASES = list(declared())


def test_every_covered_operation_declares_errors():
    assert {op for op, _ in CASES} == set(CALLS)
    assert len(CASES) >= 100


@pytest.fixture(scope="module")
def status_scenarios(module_ns):
    """One scenario per status, defined once in this module's namespace (429 with Retry-After: 7).
    A scenario's answer changes nothing, so the tests share the namespace."""
    ns = module_ns
    for status in TYPED:
        respond = {"status": status, **({"retry_after": 7} if status == 429 else {})}
        ns.define_scenario({"name": f"status-{status}", "description": f"Answers {status}.", "operations": "*", "respond": respond})
    return ns


@pytest.mark.parametrize(("operation", "status"), CASES, ids=[f"{op}-{status}" for op, status in CASES])
def test_typed_error(status_scenarios, operation, status):
    client = client_for(status_scenarios)
    with pytest.raises(TYPED[status]) as raised:
        CALLS[operation](client, {"x-sandbox-scenario": f"status-{status}"})
    error = raised.value
    assert error.status_code == status
    assert error.raw_response.headers["x-sandbox-scenario"] == f"status-{status}"
    body = error.raw_response.json()
    if status == 422:  # the validation body: {detail: [{loc, msg, type, input, ctx}]}
        [detail] = error.data.detail
        assert (detail.loc, detail.type) == (["body"], "value_error") and "scenario status-422" in detail.msg
    else:
        assert body["type"] == "error" and body["status"] == status and body["message"]
        assert (error.data.status, error.data.code, error.data.message) == (status, body["code"], body["message"])
    if status == 429:
        assert error.raw_response.headers["retry-after"] == "7"
    # The scenario answered: the journal's newest call of the operation is this one, with its status.
    entry = status_scenarios.requests(operation_id=operation, limit=1)[0]
    assert (entry["status"], entry["scenario"], entry["request_id"]) == (status, f"status-{status}", error.raw_response.headers["x-request-id"])
