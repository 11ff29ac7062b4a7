"""How the suite builds its clients: the lines docs/sdk.md shows (between the snippet markers)."""

from __future__ import annotations

# snippet-start
from gr4vy import Gr4vy, auth
from gr4vy.webhooks import verify_webhook


def sandbox_client(base_url: str, private_key_pem: str, merchant_account_id: str = "default", **options) -> Gr4vy:
    # base_url: http://127.0.0.1:4010, or http://127.0.0.1:4010/ns/<name> for a namespace of your own;
    # private_key_pem: fixtures/keys/admin.pem (a test key); start the sandbox with
    # --merchant-account-header x-gr4vy-merchant-account-id
    return Gr4vy(
        server_url=base_url,
        bearer_auth=auth.with_token(private_key_pem),  # a fresh ES512 token per call, kid = the key's thumbprint
        merchant_account_id=merchant_account_id,  # "default" or "merchant-two": x-gr4vy-merchant-account-id
        **options,
    )


def verify_notification(raw_body: str, secret: str, headers) -> None:
    # secret: the subscription's (the control API shows it); raises ValueError unless it signed raw_body
    verify_webhook(raw_body, secret, headers["x-service-signature"], headers["x-service-timestamp"], 300)
# snippet-end
