package dev.paymentssandbox.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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

  private final BlockingQueue<Delivery> received = new LinkedBlockingQueue<>();
  private HttpServer receiver;
  private String base;
  private String secret;
  private String subscription;

  @BeforeAll
  void subscribe() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hooks", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      received.add(new Delivery(
          exchange.getRequestHeaders().getFirst("x-service-timestamp"), exchange.getRequestHeaders().getFirst("x-service-signature"), body));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    receiver.start();
    base = Sandbox.namespace("webhooks");
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hooks";
    JsonNode created = Sandbox.control(base, "POST", "/_sandbox/records/webhook_subscriptions", "{\"url\":\"" + url + "\"}");
    secret = created.get("secret").asText();
    subscription = created.get("id").asText();
  }

  @AfterAll
  void stopReceiver() {
    if (receiver != null) receiver.stop(0);
  }

  /**
   * What the Java client's Webhooks.verifyWebhook computes (read from its source): HMAC-SHA256 over
   * the raw timestamp header string, a dot and the payload as a String (UTF-8), compared in
   * constant time with each piece of the signature header split on "," (untrimmed).
   */
  private static boolean verifies(String secret, String timestamp, String signatures, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String payload = new String(body, StandardCharsets.UTF_8);
    byte[] expected = HexFormat.of().formatHex(mac.doFinal((timestamp + "." + payload).getBytes(StandardCharsets.UTF_8))).getBytes(StandardCharsets.UTF_8);
    return Arrays.stream(signatures.split(",")).anyMatch(s -> MessageDigest.isEqual(s.getBytes(StandardCharsets.UTF_8), expected));
  }

  /** Updates the buyer through the client's transport: the sandbox sends buyer.updated. */
  private void updateBuyer(String displayName) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String body = Sandbox.JSON.createObjectNode().put("display_name", displayName).toString();
    HttpResponse<String> put = Sandbox.send(client, "PUT", base + "/buyers/" + BUYER, Sandbox.adminToken(base), body);
    assertEquals(200, put.statusCode(), put.body());
  }

  /** The delivery of the buyer.updated event that set this display name (waits on the receiver). */
  private Delivery deliveryOf(String displayName) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < until) {
      Delivery next = received.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (next == null) break;
      JsonNode event = Sandbox.JSON.readTree(next.body());
      if (displayName.equals(event.path("target").path("display_name").asText())) return next;
    }
    throw new AssertionError("no buyer.updated delivery for " + displayName + " within 30 s");
  }

  @Test
  void aRealDeliveryVerifiesOnItsRawTimestampAndATamperedOneDoesNot() throws Exception {
    updateBuyer("Hooked");
    Delivery delivery = deliveryOf("Hooked");
    JsonNode event = Sandbox.JSON.readTree(delivery.body());
    assertEquals("event", event.get("type").asText());
    assertEquals("buyer.updated", event.get("name").asText());
    assertEquals(BUYER, event.get("target").get("id").asText());

    // The raw header is a plain decimal integer: signing it raw or re-formatted gives the same bytes.
    assertTrue(delivery.timestamp().matches("[1-9][0-9]*"), delivery.timestamp());
    assertEquals(delivery.timestamp(), Long.toString(Long.parseLong(delivery.timestamp())));
    long age = Instant.now().getEpochSecond() - Long.parseLong(delivery.timestamp());
    assertTrue(age >= -5 && age < 300, "a wall-clock timestamp, seconds old: " + age);
    assertTrue(verifies(secret, delivery.timestamp(), delivery.signature(), delivery.body()));

    byte[] tampered = delivery.body().clone();
    tampered[tampered.length / 2] ^= 1;
    assertFalse(verifies(secret, delivery.timestamp(), delivery.signature(), tampered));
    assertFalse(verifies(secret, Long.toString(Long.parseLong(delivery.timestamp()) + 1), delivery.signature(), delivery.body()));
    assertFalse(verifies(secret + "x", delivery.timestamp(), delivery.signature(), delivery.body()));
  }

  @Test
  void whileTheSecretRotatesBothSecretsVerifyUnderJavasUntrimmedSplit() throws Exception {
    String rotated = "java-suite-rotated-secret-0001";
    Sandbox.control(base, "POST", "/_sandbox/webhooks/subscriptions/" + subscription + "/rotate-secret", "{\"secret\":\"" + rotated + "\"}");
    // Non-ASCII in the body: the Java helper takes the payload as a String and signs its UTF-8 bytes.
    updateBuyer("Zoë Rotated");
    Delivery delivery = deliveryOf("Zoë Rotated");

    assertEquals(2, delivery.signature().split(",").length, delivery.signature());
    assertTrue(verifies(rotated, delivery.timestamp(), delivery.signature(), delivery.body()), "the new secret");
    assertTrue(verifies(secret, delivery.timestamp(), delivery.signature(), delivery.body()), "the previous secret, second and untrimmed");
    assertFalse(verifies("not-the-secret", delivery.timestamp(), delivery.signature(), delivery.body()));
  }
}
