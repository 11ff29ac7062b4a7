package sandboxgo

// The suite's plumbing: the sandbox to call (SANDBOX_URL, or one this run starts from the built
// CLI), a namespace per test, tokens minted in Go from the fixtures' keys, and plain JSON calls.
import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var (
	sandboxURL  string
	sandboxRoot string
)

func TestMain(m *testing.M) {
	sandboxRoot = os.Getenv("SANDBOX_ROOT")
	if sandboxRoot == "" {
		sandboxRoot, _ = filepath.Abs("../..")
	}
	sandboxURL = os.Getenv("SANDBOX_URL")
	var stop func()
	if sandboxURL == "" {
		url, kill, err := startSandbox(sandboxRoot)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sandboxURL, stop = url, kill
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// startSandbox runs the built CLI on a free port with the official clients' merchant header
// alias, and reads its address from the banner line on stderr.
func startSandbox(root string) (string, func(), error) {
	cli := filepath.Join(root, "dist", "bundle", "cli.js")
	cmd := exec.Command("node", cli, "--port", "0", "--merchant-account-header", "x-gr4vy-merchant-account-id", "--log-level", "warn")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s (run npm run build first): %w", cli, err)
	}
	found := make(chan string, 1)
	go func() {
		banner := regexp.MustCompile(`listening on (http://\S+)`)
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			if m := banner.FindStringSubmatch(scanner.Text()); m != nil {
				found <- strings.TrimSuffix(m[1], "/")
			}
		}
	}()
	kill := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	select {
	case url := <-found:
		return url, kill, nil
	case <-time.After(30 * time.Second):
		kill()
		return "", nil, fmt.Errorf("%s printed no 'listening on' line within 30 s", cli)
	}
}

// namespace is the base URL of a namespace of the test's own: its own records, scenarios, journal.
func namespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	if len(name) > 40 { // a namespace name has at most 64 characters
		name = name[:40]
	}
	base := fmt.Sprintf("%s/ns/go-%s-%d", sandboxURL, name, time.Now().UnixNano())
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, sandboxURL+"/_sandbox/namespaces/"+base[strings.LastIndex(base, "/")+1:], nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	})
	return base
}

// privateKey reads an EC private key of fixtures/keys (PKCS#8 PEM).
func privateKey(t *testing.T, file string) *ecdsa.PrivateKey {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(sandboxRoot, "fixtures", "keys", file))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return key.(*ecdsa.PrivateKey)
}

// oldGoThumbprint is what Go clients before v1.12.97 computed: coordinates with their leading
// zero bytes dropped (big.Int.Bytes). A P-521 coordinate fills 521 of its 528 bits, so its first
// byte is 0 for half of all keys, and x or y starts with one for three keys in four.
func oldGoThumbprint(pub *ecdsa.PublicKey) string {
	point, _ := pub.ECDH()
	raw := point.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	x, y := bytes.TrimLeft(raw[1:67], "\x00"), bytes.TrimLeft(raw[67:], "\x00")
	sum := sha256.Sum256(fmt.Appendf(nil, `{"crv":"P-521","kty":"EC","x":"%s","y":"%s"}`, b64(x), b64(y)))
	return b64(sum[:])
}

// mustMint is mint for a test: a failure ends it.
func mustMint(t *testing.T, key *ecdsa.PrivateKey, kid string) string {
	t.Helper()
	token, err := mint(key, kid, []string{"*.read", "*.write"})
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// adminToken is a token of the fixtures' admin key.
func adminToken(t *testing.T) string {
	key := privateKey(t, "admin.pem")
	return mustMint(t, key, thumbprint(&key.PublicKey))
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// call sends a JSON request the way Go's net/http does (canonical header names) and decodes the
// answer. headers: name, value pairs.
func call(t *testing.T, method, url string, body any, headers ...string) answer {
	t.Helper()
	var reader io.Reader
	if body != nil {
		encoded, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(encoded)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := answer{status: res.StatusCode, header: res.Header, raw: raw}
	if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: %d, not a JSON object: %s", method, url, res.StatusCode, raw)
		}
	}
	return out
}

func expectStatus(t *testing.T, a answer, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.raw)
	}
}

func expectField(t *testing.T, body map[string]any, field string, want any) {
	t.Helper()
	if got := body[field]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %v, want %v (body %v)", field, got, want, body)
	}
}
