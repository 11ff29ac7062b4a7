"""Tokens minted by the client's own helper (gr4vy.auth) from the fixtures' keys, and from a key
whose public coordinates start with a zero byte (the kid is the RFC 7638 thumbprint of the full
66-byte coordinates)."""

from __future__ import annotations

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from gr4vy import Gr4vy, auth, errors

from sandbox_testing.client import sandbox_client
from sandbox_testing.sandbox import CLIENT_HTTP, private_key
from tests.ids import BUYER, ROLE_BUYERS_EDITOR


def test_a_read_only_key_reads_but_cannot_write(make_client):
    reader = make_client("read-only")
    assert reader.card_scheme_definitions.list().items
    with pytest.raises(errors.Error403):
        reader.buyers.update(buyer_id=BUYER, display_name="x")


def test_an_inactive_key_is_refused(make_client):
    with pytest.raises(errors.Error401):
        make_client("inactive").card_scheme_definitions.list()


def test_a_token_with_narrow_scopes_is_held_to_them(ns):
    narrow = Gr4vy(server_url=ns.url, bearer_auth=auth.with_token(private_key("admin"), scopes=["buyers.write"]), client=CLIENT_HTTP)
    assert narrow.buyers.update(buyer_id=BUYER, display_name="Scoped").display_name == "Scoped"
    with pytest.raises(errors.Error403):
        narrow.card_scheme_definitions.list()


def zero_led_key():
    """A P-521 key whose x or y, as 66 big-endian bytes, starts with 0x00 (tried until one does)."""
    for _ in range(200):
        key = ec.generate_private_key(ec.SECP521R1())
        numbers = key.public_key().public_numbers()
        if numbers.x.to_bytes(66, "big")[0] == 0 and numbers.y.to_bytes(66, "big")[0] == 0:
            return key
    raise AssertionError("no key with both coordinates zero-led in 200 tries")


def test_a_key_whose_coordinates_start_with_a_zero_byte(client, make_client, ns):
    key = zero_led_key()
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    pair = client.api_key_pairs.create(display_name="Zero-led", role_ids=[ROLE_BUYERS_EDITOR], public_key=public_pem)
    assert pair.private_key is None and pair.algorithm == "ECDSA"
    # The helper's kid is the thumbprint the sandbox computed from the public key, zero bytes kept.
    assert jwt.get_unverified_header(auth.get_token(private_pem))["kid"] == pair.thumbprint
    own = sandbox_client(ns.url, private_pem, client=CLIENT_HTTP)
    assert own.buyers.update(buyer_id=BUYER, display_name="Zero-led").display_name == "Zero-led"
    stored = ns.control("GET", f"/records/api_key_pairs/{pair.id}", params={"shape": "stored"}).json()
    assert stored["last_used_at"] is not None and stored["thumbprint"] == pair.thumbprint
