package sandboxgo

// What the official Go client's helpers compute, written out in Go: docs/sdk.md shows the region
// between the snippet markers word for word (test/docs/sdk-snippets.test.ts checks it), and the
// suite signs every request and checks every delivery with it.
import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// snippet-start
// thumbprint is the token's kid: the RFC 7638 thumbprint of the P-521 public key, each coordinate
// at its full 66 bytes, leading zero bytes kept (gr4vy-go since v1.12.97).
func thumbprint(pub *ecdsa.PublicKey) string {
	point, _ := pub.ECDH() // 0x04 || x || y
	raw := point.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	sum := sha256.Sum256(fmt.Appendf(nil, `{"crv":"P-521","kty":"EC","x":"%s","y":"%s"}`, b64(raw[1:67]), b64(raw[67:])))
	return b64(sum[:])
}

// mint signs a one-minute ES512 token as the client's WithToken does, one per request.
func mint(key *ecdsa.PrivateKey, kid string, scopes []string) (string, error) {
	now := time.Now()
	token := jwt.NewWithClaims(jwt.SigningMethodES512, jwt.MapClaims{
		"scopes": scopes, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Minute).Unix(),
	})
	token.Header["kid"] = kid
	return token.SignedString(key)
}

// verifyWebhook checks a delivery as the client's VerifyWebhook(secret, payload, signature,
// timestamp, tolerance) does: hex HMAC-SHA256 of "<timestamp parsed and formatted again>.<raw
// body>", any of the comma-separated signatures.
func verifyWebhook(secret string, body []byte, signatures, timestamp string) error {
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q: %w", timestamp, err)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%d.%s", seconds, body)
	want := hex.EncodeToString(mac.Sum(nil))
	for _, signature := range strings.Split(signatures, ",") {
		if hmac.Equal([]byte(strings.TrimSpace(signature)), []byte(want)) {
			return nil
		}
	}
	return fmt.Errorf("no signature of %q matches", signatures)
}

// snippet-end
