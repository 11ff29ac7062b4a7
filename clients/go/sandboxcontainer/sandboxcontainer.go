// Package sandboxcontainer runs the payments sandbox's image for Go tests with Testcontainers:
// ready when /_sandbox/health answers 200, with the merchant account header the official clients
// send (x-gr4vy-merchant-account-id) accepted as an alias, a namespace per test and a token.
package sandboxcontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

const (
	// Image is what `npm run image` builds.
	Image = "payments-sandbox:latest"
	// ClientMerchantHeader is the header the official clients name the merchant account in.
	ClientMerchantHeader = "x-gr4vy-merchant-account-id"
	port                 = "4010/tcp"
)

// Sandbox is a started sandbox container.
type Sandbox struct {
	*testcontainers.DockerContainer
	// BaseURL is the default namespace's address, e.g. http://127.0.0.1:32768.
	BaseURL string
}

// Run starts image (Image when empty) and waits for its health route; opts customise the request
// further (testcontainers.WithEnv, ...).
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Sandbox, error) {
	if image == "" {
		image = Image
	}
	defaults := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(port),
		testcontainers.WithEnv(map[string]string{"SANDBOX_MERCHANT_ACCOUNT_HEADER": ClientMerchantHeader}),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/_sandbox/health").WithPort(port).WithStartupTimeout(60 * time.Second)),
	}
	container, err := testcontainers.Run(ctx, image, append(defaults, opts...)...)
	if err != nil {
		// A container that started but never became healthy is removed here, not left behind.
		_ = testcontainers.TerminateContainer(container)
		return nil, fmt.Errorf("starting %s: %w", image, err)
	}
	endpoint, err := container.PortEndpoint(ctx, port, "http")
	if err != nil {
		_ = testcontainers.TerminateContainer(container)
		return nil, err
	}
	return &Sandbox{DockerContainer: container, BaseURL: endpoint}, nil
}

// Namespace is the base URL of namespace name: its own records, clock, scenarios and journal, so
// tests sharing one container do not share state.
func (s *Sandbox) Namespace(name string) string {
	return s.BaseURL + "/ns/" + name
}

// Token mints a token of the fixtures' admin key pair (every scope) through the control API.
func (s *Sandbox) Token(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+"/_sandbox/tokens", strings.NewReader("{}"))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var body struct {
		Token string `json:"token"`
	}
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(res.Body); err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST /_sandbox/tokens: %d %s", res.StatusCode, raw.String())
	}
	if err := json.Unmarshal(raw.Bytes(), &body); err != nil || body.Token == "" {
		return "", fmt.Errorf("POST /_sandbox/tokens: no token in %s", raw.String())
	}
	return body.Token, nil
}
