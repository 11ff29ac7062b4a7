"""Errors the sandbox gives on its own (no scenario), as the client types them."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from gr4vy import errors

from tests.ids import BUYER_TWO, MISSING, ROLE_READ_ONLY


def test_a_missing_buyer_is_a_404(client):
    with pytest.raises(errors.Error404) as raised:
        client.buyers.update(buyer_id=MISSING, display_name="Nobody")
    assert raised.value.data.code == "not_found" and MISSING in raised.value.data.message


def test_another_accounts_buyer_is_a_404(client):
    with pytest.raises(errors.Error404):
        client.buyers.update(buyer_id=BUYER_TWO, display_name="Not mine")


def test_a_bad_limit_is_a_400_naming_it(client):
    with pytest.raises(errors.Error400) as raised:
        client.gift_cards.list(limit=0, retries=None)
    assert raised.value.data.code == "bad_request" and "limit" in raised.value.data.message


def test_an_unknown_role_is_a_422_at_its_place(client):
    with pytest.raises(errors.HTTPValidationError) as raised:
        client.api_key_pairs.create(display_name="x", role_ids=[MISSING])
    [detail] = raised.value.data.detail
    assert detail.loc == ["body", "role_ids", "0"] and MISSING in detail.msg


def test_the_same_public_key_twice_is_a_409_naming_the_pair(client):
    pem = ec.generate_private_key(ec.SECP521R1()).public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    first = client.api_key_pairs.create(display_name="once", role_ids=[ROLE_READ_ONLY], public_key=pem)
    with pytest.raises(errors.Error409) as raised:
        client.api_key_pairs.create(display_name="twice", role_ids=[ROLE_READ_ONLY], public_key=pem)
    assert raised.value.data.code == "duplicate_record" and first.id in raised.value.data.message
