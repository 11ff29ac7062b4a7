package dev.paymentssandbox.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A real delivery, checked the way the official Java client's verify helper checks it: that helper
 * signs the timestamp header as the raw string it received (the other clients parse it to an integer
 * and format it again), so the sandbox's `x-service-timestamp` must be a plain decimal integer whose
 * string is exactly what it signed. A receiver on 127.0.0.1, a subscription made through the control
 * API, and a buyer update through the client's transport that fires `buyer.updated`.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookDeliveryTest {
  private static final String BUYER = "b0000000-0000-4000-8000-000000000001";

  /** One delivery as received: the two headers as raw strings and the raw body bytes. */
  record Delivery(String timestamp, String signature, byte[] body) {}

  private final CompletableFuture<Delivery> received = new CompletableFuture<>();
  private HttpServer receiver;
  private String base;
  private String secret;

  @BeforeAll
  void subscribe() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hooks", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      received.complete(new Delivery(
          exchange.getRequestHeaders().getFirst("x-service-timestamp"), exchange.getRequestHeaders().getFirst("x-service-signature"), body));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    receiver.start();
    base = Sandbox.namespace("webhooks");
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
    secret = Sandbox.control(base, "POST", "/_sandbox/records/webhook_subscriptions", "{\"url\":\"" + url + "\"}").get("secret").asText();
  }

  @AfterAll
  void stopReceiver() {
    if (receiver != null) receiver.stop(0);
  }

  /** What the Java client's helper computes: HMAC-SHA256 over the raw timestamp string, a dot, the raw body. */
  private boolean verifies(String timestamp, String signatures, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
    byte[] expected = HexFormat.of().formatHex(mac.doFinal(body)).getBytes(StandardCharsets.US_ASCII);
    return Arrays.stream(signatures.split(",")).anyMatch(s -> MessageDigest.isEqual(expected, s.trim().getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void aRealDeliveryVerifiesOnItsRawTimestampAndATamperedOneDoesNot() throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> put = client.send(
        HttpRequest.newBuilder(URI.create(base + "/buyers/" + BUYER))
            .timeout(Duration.ofSeconds(10))
            .header("authorization", "Bearer " + Sandbox.adminToken(base))
            .header("content-type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString("{\"display_name\":\"Hooked\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, put.statusCode(), put.body());

    Delivery delivery = received.get(30, TimeUnit.SECONDS);
    JsonNode event = Sandbox.JSON.readTree(delivery.body());
    assertEquals("event", event.get("type").asText());
    assertEquals("buyer.updated", event.get("name").asText());
    assertEquals(BUYER, event.get("target").get("id").asText());
    assertEquals("Hooked", event.get("target").get("display_name").asText());

    // The raw header is a plain decimal integer: signing it raw or re-formatted gives the same bytes.
    assertTrue(delivery.timestamp().matches("[1-9][0-9]*"), delivery.timestamp());
    assertEquals(delivery.timestamp(), Long.toString(Long.parseLong(delivery.timestamp())));
    long age = Instant.now().getEpochSecond() - Long.parseLong(delivery.timestamp());
    assertTrue(age >= -5 && age < 300, "a wall-clock timestamp, seconds old: " + age);
    assertTrue(verifies(delivery.timestamp(), delivery.signature(), delivery.body()));

    byte[] tampered = delivery.body().clone();
    tampered[tampered.length / 2] ^= 1;
    assertFalse(verifies(delivery.timestamp(), delivery.signature(), tampered));
    assertFalse(verifies(Long.toString(Long.parseLong(delivery.timestamp()) + 1), delivery.signature(), delivery.body()));
  }
}
