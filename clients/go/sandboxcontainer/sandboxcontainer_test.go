//go:build container

// Run by `npm run test:container` (test/container/go-client.test.ts) with DOCKER_HOST on podman's
// Docker-compatible socket and SANDBOX_IMAGE the image it built; kept out of the plain suite by the
// build tag. By hand: go test -tags container ./sandboxcontainer
package sandboxcontainer_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"

	"payments-sandbox/clients/go/sandboxcontainer"
)

const merchantTwoBuyer = "b0000000-0000-4000-8000-000000000002"

func TestSandboxContainerServesAClientCall(t *testing.T) {
	ctx := context.Background()
	image := sandboxcontainer.Image
	if built := os.Getenv("SANDBOX_IMAGE"); built != "" {
		image = built
	}
	// snippet-start
	sandbox, err := sandboxcontainer.Run(ctx, image) // ready once /_sandbox/health answers 200
	testcontainers.CleanupContainer(t, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	token, err := sandbox.Token(ctx) // the fixtures' admin key pair, every scope
	if err != nil {
		t.Fatal(err)
	}
	one := sandbox.Namespace("test-" + strings.ToLower(t.Name())) // records, clock, journal of its own
	// snippet-end

	// A call as the Go client makes it: net/http, the header in canonical case.
	other := sandbox.Namespace("go-container-other")
	status, body := put(t, one+"/buyers/"+merchantTwoBuyer, token, `{"display_name":"From the Go container test"}`)
	if status != http.StatusOK {
		t.Fatalf("PUT /buyers: %d %v", status, body)
	}
	for field, want := range map[string]string{"id": merchantTwoBuyer, "merchant_account_id": "merchant-two", "display_name": "From the Go container test"} {
		if body[field] != want {
			t.Errorf("%s = %v, want %s", field, body[field], want)
		}
	}

	// The other namespace kept the seeded buyer.
	res, err := http.Get(other + "/_sandbox/records/buyers/" + merchantTwoBuyer)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var seeded map[string]any
	if err := json.NewDecoder(res.Body).Decode(&seeded); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("records in the other namespace: %d %v", res.StatusCode, err)
	}
	if seeded["display_name"] == "From the Go container test" {
		t.Error("a write in one namespace is seen in another")
	}
}

func put(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(sandboxcontainer.ClientMerchantHeader, "merchant-two") // sent as X-Gr4vy-Merchant-Account-Id
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, out
}
