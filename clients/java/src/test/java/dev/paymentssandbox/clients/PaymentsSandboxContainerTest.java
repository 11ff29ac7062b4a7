package dev.paymentssandbox.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.paymentssandbox.testcontainers.PaymentsSandboxContainer;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.testcontainers.utility.DockerImageName;

/**
 * The Testcontainers module against the image (SANDBOX_IMAGE, built by npm run test:container),
 * started through the engine's Docker-compatible socket (DOCKER_HOST). Tagged: the plain run leaves
 * it out; test/container/java-client.test.ts runs it.
 */
@Tag("container")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PaymentsSandboxContainerTest {
  private static final String BUYER = "b0000000-0000-4000-8000-000000000001";

  private PaymentsSandboxContainer sandbox;
  /** The official Java client's transport at its defaults (HTTP/2 first: an h2c upgrade offer). */
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() {
    String image = System.getenv().getOrDefault("SANDBOX_IMAGE", PaymentsSandboxContainer.DEFAULT_IMAGE);
    sandbox = new PaymentsSandboxContainer(DockerImageName.parse(image));
    sandbox.start();
  }

  @AfterAll
  void stop() {
    if (sandbox != null) sandbox.stop();
  }

  private HttpResponse<String> send(String method, String url, String token, String body, String... headers) throws Exception {
    return Sandbox.send(client, method, url, token, body, headers);
  }

  @Test
  void givesEachTestANamespaceATokenAndTheClientsMerchantHeader() throws Exception {
    String a = sandbox.newNamespaceUrl();
    String b = sandbox.newNamespaceUrl();
    assertTrue(a.matches("http://[^/]+:\\d+/ns/test-[0-9a-f-]{36}"), a);
    assertNotEquals(a, b);
    String token = sandbox.token();

    HttpResponse<String> put = send("PUT", a + "/buyers/" + BUYER, token, "{\"display_name\":\"Only in a\"}");
    assertEquals(200, put.statusCode(), put.body());
    assertEquals("Only in a", Sandbox.JSON.readTree(put.body()).get("display_name").asText());
    assertEquals("Only in a", Sandbox.control(a, "GET", "/_sandbox/records/buyers/" + BUYER, null).get("display_name").asText());
    assertNotEquals("Only in a", Sandbox.control(b, "GET", "/_sandbox/records/buyers/" + BUYER, null).get("display_name").asText());

    // The alias the module sets: the official clients' header chooses the merchant account.
    HttpResponse<String> two = send("GET", b + "/gift-cards?limit=5", token, null, PaymentsSandboxContainer.CLIENT_MERCHANT_HEADER, "merchant-two");
    assertEquals(200, two.statusCode(), two.body());
    JsonNode items = Sandbox.JSON.readTree(two.body()).get("items");
    assertTrue(items.size() > 0, two.body());
    for (JsonNode card : items) assertEquals("merchant-two", card.get("merchant_account_id").asText());

    assertEquals(401, send("GET", b + "/connections", "wrong", null).statusCode());
  }
}
