package dev.paymentssandbox.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the official Java client's transport sends, answered as the real service answers it. That
 * client is built on java.net.http.HttpClient at its defaults: HTTP/2 first, so on plain http every
 * new connection's first request carries `Connection: Upgrade, HTTP2-Settings`, `Upgrade: h2c` and
 * `HTTP2-Settings`, and its GETs and DELETEs carry `content-length: 0`. A server that takes the
 * upgrade offer and never answers hangs that client; the sandbox must answer over HTTP/1.1.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdkTransportTest {
  private static final String BUYER = "b0000000-0000-4000-8000-000000000001";
  private static final String CHECKOUT_SESSION = "d1000000-0000-4000-8000-000000000001";

  /** The official client's transport at its defaults (HTTP/2 first), a new one per test: a fresh connection. */
  private HttpClient client;
  private String base;
  private String token;

  @BeforeAll
  void namespace() throws Exception {
    base = Sandbox.namespace("transport");
    token = Sandbox.adminToken(base);
  }

  @BeforeEach
  void freshClient() {
    client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
    return Sandbox.send(client, method, base + path, token, body, headers);
  }

  /** The newest journal entry of the namespace: what the sandbox received. */
  private JsonNode lastRequest() throws Exception {
    return Sandbox.control(base, "GET", "/_sandbox/requests?limit=1", null).get("items").get(0);
  }

  @Test
  void aGetOfferingH2cIsAnsweredOverHttp11() throws Exception {
    HttpResponse<String> res = send("GET", "/gift-cards?limit=2", null);

    assertEquals(200, res.statusCode(), res.body());
    assertEquals(HttpClient.Version.HTTP_1_1, res.version());
    assertEquals("application/json", res.headers().firstValue("content-type").orElse("").split(";")[0]);
    JsonNode page = Sandbox.JSON.readTree(res.body());
    assertEquals(2, page.get("items").size());
    assertEquals(2, page.get("limit").asInt());
    assertTrue(page.get("next_cursor").isTextual(), "a second page exists: " + page.get("next_cursor"));

    // The upgrade offer and the empty body were really sent, and the sandbox answered them.
    JsonNode sent = lastRequest().get("headers");
    assertEquals("h2c", sent.path("upgrade").asText());
    assertFalse(sent.path("http2-settings").asText().isEmpty(), sent.toString());
    assertEquals("Upgrade, HTTP2-Settings", sent.path("connection").asText());
    assertEquals("0", sent.path("content-length").asText());
    assertEquals(200, lastRequest().get("status").asInt());
  }

  @Test
  void theConnectionKeepsServingAfterTheOfferIsDeclined() throws Exception {
    List<String> cursors = new ArrayList<>();
    String path = "/gift-cards?limit=1";
    for (int page = 0; page < 3; page++) {
      HttpResponse<String> res = send("GET", path, null);
      assertEquals(200, res.statusCode(), res.body());
      JsonNode body = Sandbox.JSON.readTree(res.body());
      assertEquals(1, body.get("items").size());
      String cursor = body.get("next_cursor").asText();
      cursors.add(cursor);
      path = "/gift-cards?limit=1&cursor=" + cursor;
    }
    assertEquals(3, cursors.stream().distinct().count(), cursors.toString());
  }

  @Test
  void aDeleteWithContentLengthZeroDeletes() throws Exception {
    HttpResponse<String> res = send("DELETE", "/checkout/sessions/" + CHECKOUT_SESSION, null);

    assertEquals(204, res.statusCode(), res.body());
    assertEquals("", res.body());
    assertEquals("0", lastRequest().get("headers").path("content-length").asText());
    HttpResponse<String> again = send("DELETE", "/checkout/sessions/" + CHECKOUT_SESSION, null);
    assertEquals(404, again.statusCode());
    JsonNode error = Sandbox.JSON.readTree(again.body());
    assertEquals("error", error.get("type").asText());
    assertEquals("not_found", error.get("code").asText());
    assertEquals(404, error.get("status").asInt());
  }

  @Test
  void aPutWithABodyWritesTheBuyer() throws Exception {
    HttpResponse<String> res = send("PUT", "/buyers/" + BUYER, "{\"display_name\":\"Set by java.net.http\"}");

    assertEquals(200, res.statusCode(), res.body());
    JsonNode buyer = Sandbox.JSON.readTree(res.body());
    assertEquals("buyer", buyer.get("type").asText());
    assertEquals(BUYER, buyer.get("id").asText());
    assertEquals("Set by java.net.http", buyer.get("display_name").asText());
    JsonNode stored = Sandbox.control(base, "GET", "/_sandbox/records/buyers/" + BUYER, null);
    assertEquals("Set by java.net.http", stored.get("display_name").asText());

    // The fields the Java client's Buyer constructor checks non-null (read from its model, since
    // the client is not served here): a null or absent one throws in buyers().update().
    for (String field : List.of("id", "reconciliation_id", "merchant_account_id", "created_at", "updated_at")) {
      assertTrue(buyer.hasNonNull(field), field + " is required by com.gr4vy:sdk's Buyer: " + buyer);
    }
    assertTrue(buyer.get("reconciliation_id").asText().matches("[0-9A-Za-z]{22}"), buyer.get("reconciliation_id").asText());
    assertEquals("default", buyer.get("merchant_account_id").asText());
    OffsetDateTime.parse(buyer.get("created_at").asText());
    OffsetDateTime.parse(buyer.get("updated_at").asText());
  }

  @Test
  void theClientsMerchantHeaderChoosesTheAccount() throws Exception {
    HttpResponse<String> two = send("GET", "/gift-cards?limit=20", null, Sandbox.MERCHANT_HEADER, "merchant-two");
    assertEquals(200, two.statusCode(), two.body());
    JsonNode items = Sandbox.JSON.readTree(two.body()).get("items");
    assertTrue(items.size() > 0, "merchant-two has gift cards");
    for (JsonNode card : items) assertEquals("merchant-two", card.get("merchant_account_id").asText());
    assertEquals("merchant-two", lastRequest().get("merchant_account_id").asText());

    HttpResponse<String> none = send("GET", "/gift-cards?limit=20", null);
    JsonNode defaults = Sandbox.JSON.readTree(none.body()).get("items");
    for (JsonNode card : defaults) assertNotEquals("merchant-two", card.get("merchant_account_id").asText());

    HttpResponse<String> unknown = send("GET", "/gift-cards", null, Sandbox.MERCHANT_HEADER, "no-such-account");
    assertEquals(403, unknown.statusCode());
    JsonNode error = Sandbox.JSON.readTree(unknown.body());
    assertEquals("forbidden", error.get("code").asText());
    assertTrue(error.get("message").asText().contains("no-such-account"), error.toString());
  }

  @Test
  void aCallSlowerThanTheClientsTimeoutTimesOutAndTheNextIsServed() throws Exception {
    // The `slow` scenario answers 1.5 s late; the client gives up after 0.5 s, as on a slow service.
    HttpRequest slow = HttpRequest.newBuilder(URI.create(base + "/card-scheme-definitions"))
        .timeout(Duration.ofMillis(500))
        .header("authorization", "Bearer " + token)
        .header("x-sandbox-scenario", "slow")
        .build();
    long started = System.nanoTime();
    assertThrows(HttpTimeoutException.class, () -> client.send(slow, HttpResponse.BodyHandlers.ofString()));
    long waitedMs = (System.nanoTime() - started) / 1_000_000;
    assertTrue(waitedMs >= 500 && waitedMs < 1500, "gave up after " + waitedMs + " ms");

    HttpResponse<String> next = send("GET", "/card-scheme-definitions", null);
    assertEquals(200, next.statusCode(), next.body());
    assertTrue(Sandbox.JSON.readTree(next.body()).get("items").size() > 0, next.body());
  }
}
