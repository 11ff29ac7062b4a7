package dev.paymentssandbox.testcontainers;

import java.io.IOException;
import java.util.UUID;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The payments sandbox as a Testcontainers module: the image, ready once `/_sandbox/health` answers
 * 200, with the official clients' merchant header (`x-gr4vy-merchant-account-id`) accepted as an
 * alias of the sandbox's own. Start it once per test class; give each test a namespace of its own
 * ({@link #newNamespaceUrl()}: its own records, clock and journal, nothing to reset) and a token.
 */
public class PaymentsSandboxContainer extends GenericContainer<PaymentsSandboxContainer> {
  public static final int PORT = 4010;
  public static final String DEFAULT_IMAGE = "payments-sandbox:latest";
  /** The header the official clients send the merchant account under. */
  public static final String CLIENT_MERCHANT_HEADER = "x-gr4vy-merchant-account-id";

  public PaymentsSandboxContainer() {
    this(DockerImageName.parse(DEFAULT_IMAGE));
  }

  public PaymentsSandboxContainer(DockerImageName image) {
    super(image);
    withExposedPorts(PORT);
    withEnv("SANDBOX_MERCHANT_ACCOUNT_HEADER", CLIENT_MERCHANT_HEADER);
    waitingFor(Wait.forHttp("/_sandbox/health").forPort(PORT).forStatusCode(200));
  }

  /** The sandbox's root URL on the host, e.g. http://localhost:32771. */
  public String baseUrl() {
    return "http://" + getHost() + ":" + getMappedPort(PORT);
  }

  /** A base URL of a namespace no one else uses: point a client's server URL at it. */
  public String newNamespaceUrl() {
    return baseUrl() + "/ns/test-" + UUID.randomUUID();
  }

  /** A bearer token of the image's admin test key (every scope, every merchant account). */
  public String token() throws IOException, InterruptedException {
    ExecResult result = execInContainer("node", "/app/dist/bundle/cli.js", "token");
    if (result.getExitCode() != 0) throw new IllegalStateException("payments-sandbox token failed: " + result.getStderr());
    return result.getStdout().trim();
  }
}
