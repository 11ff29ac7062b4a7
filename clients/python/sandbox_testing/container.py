"""A Testcontainers module for the sandbox's image (Python `testcontainers`): the container,
ready when /_sandbox/health answers 200, with the merchant header alias the official clients send.

    with PaymentsSandboxContainer("payments-sandbox:latest") as sandbox:
        client = sandbox_client(sandbox.namespace_url(), sandbox.private_key())
"""

from __future__ import annotations

import uuid

from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import HttpWaitStrategy

PORT = 4010
OFFICIAL_CLIENTS_HEADER = "x-gr4vy-merchant-account-id"


class PaymentsSandboxContainer(DockerContainer):
    def __init__(self, image: str = "payments-sandbox:latest", merchant_header: str = OFFICIAL_CLIENTS_HEADER, **kwargs) -> None:
        super().__init__(image, **kwargs)
        self.with_exposed_ports(PORT)
        # The official clients send the merchant account under their own header name.
        self.with_env("SANDBOX_MERCHANT_ACCOUNT_HEADER", merchant_header)
        self.waiting_for(HttpWaitStrategy(PORT, "/_sandbox/health").for_status_code(200))

    def base_url(self) -> str:
        return f"http://{self.get_container_host_ip()}:{self.get_exposed_port(PORT)}"

    def namespace_url(self, name: str | None = None) -> str:
        """The base URL of a namespace of its own (records, clock, journal): one per test."""
        return f"{self.base_url()}/ns/{name or f'test-{uuid.uuid4()}'}"

    def token(self) -> str:
        """An admin token for plain HTTP (the official clients mint their own from private_key())."""
        result = self.exec(["node", "/app/dist/bundle/cli.js", "token"])
        assert result.exit_code == 0, result.output
        return result.output.decode().strip()

    def private_key(self) -> str:
        """The image's admin test key (fixtures/keys/admin.pem), for a client's token helper."""
        result = self.exec(["cat", "/app/fixtures/keys/admin.pem"])
        assert result.exit_code == 0, result.output
        return result.output.decode()
