package dev.paymentssandbox.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sandbox under test: SANDBOX_URL when the runner (test/clients/java.test.ts) started one, else
 * the built CLI started here the way a user starts it, with the official clients' merchant header
 * alias. Each test class takes a namespace of its own, so classes share no state.
 */
public final class Sandbox {
  public static final String MERCHANT_HEADER = "x-gr4vy-merchant-account-id";
  public static final ObjectMapper JSON = new ObjectMapper();

  private static final Pattern BANNER = Pattern.compile("listening on (http://[^\\s\"]+)");
  private static String root;

  private Sandbox() {}

  /** The sandbox's root URL (no namespace). */
  public static synchronized String root() {
    if (root == null) {
      String given = System.getenv("SANDBOX_URL");
      root = given != null && !given.isBlank() ? given.replaceAll("/+$", "") : startCli();
    }
    return root;
  }

  /** A namespace of its own for one test class: its records, clock, journal and scenarios. */
  public static String namespace(String name) {
    return root() + "/ns/java-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** The repository root, for fixtures/keys (SANDBOX_ROOT, else two folders up from clients/java). */
  public static Path repoRoot() {
    String given = System.getenv("SANDBOX_ROOT");
    return given != null ? Path.of(given) : Path.of("").toAbsolutePath().resolve("../..").normalize();
  }

  /** A token of the admin key pair, minted by the control API (setup, not the client's helper). */
  public static String adminToken(String baseUrl) throws Exception {
    return control(baseUrl, "POST", "/_sandbox/tokens", "{}").get("token").asText();
  }

  /**
   * A request the way the official Java client sends one: through `client` (java.net.http at its
   * defaults, HTTP/2 first), a bearer token, and `noBody()` on GET and DELETE (`content-length: 0`).
   */
  public static HttpResponse<String> send(HttpClient client, String method, String url, String token, String body, String... headers)
      throws Exception {
    // snippet-start
    // client: HttpClient.newBuilder().build(), HTTP/2 first as in the official client (an h2c offer on http)
    // url: http://127.0.0.1:4010/ns/<name>/gift-cards; the merchant account: headers
    // "x-gr4vy-merchant-account-id", "merchant-two" (the sandbox started with that alias)
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(10))
        .header("authorization", "Bearer " + token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) request.header("content-type", "application/json");
    if (headers.length > 0) request.headers(headers);
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    // snippet-end
  }

  /** A control API call (/_sandbox/*) by plain HTTP/1.1: setup only, never what is under test. */
  public static JsonNode control(String baseUrl, String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(10));
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) request.header("content-type", "application/json");
    HttpResponse<String> res = PLAIN.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() >= 300) throw new IllegalStateException(method + " " + path + ": " + res.statusCode() + " " + res.body());
    return res.body().isEmpty() ? JSON.nullNode() : JSON.readTree(res.body());
  }

  private static final HttpClient PLAIN = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  /** `node ../../dist/bundle/cli.js --port 0 ...`, its address read from the banner on stderr. */
  private static String startCli() {
    Path cli = repoRoot().resolve("dist/bundle/cli.js");
    try {
      Process process = new ProcessBuilder(
              "node", cli.toString(), "--port", "0", "--merchant-account-header", MERCHANT_HEADER, "--log-level", "warn")
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      Runtime.getRuntime().addShutdownHook(new Thread(process::destroy));
      BufferedReader stderr = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> url = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try {
          for (String line; (line = stderr.readLine()) != null; ) {
            Matcher m = BANNER.matcher(line);
            if (m.find()) url.complete(m.group(1));
          }
          url.completeExceptionally(new IllegalStateException("the sandbox exited before listening (is dist/ built? npm run build)"));
        } catch (IOException e) {
          url.completeExceptionally(e);
        }
      });
      reader.setDaemon(true);
      reader.start();
      return url.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not start " + cli + ": " + e.getMessage(), e);
    }
  }
}
