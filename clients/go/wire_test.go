// Package sandboxgo checks, from Go, what the official Go client (github.com/gr4vy/gr4vy-go) puts
// on the wire and needs back. The Go module proxy reachable here refuses every version of that
// client (403 "not available", v1.12.97 and v1.13.0 included, December 2026), so its own calls
// cannot run here; these tests send what it sends through the same net/http it uses, and decode
// the answers the way its decoder does. Not covered until the client is served: its pagination
// helper, typed errors, retries, timeout and helpers through the client (docs/sdk.md).
//
// The 19 operations of issue 34, as this suite reaches them (through net/http, not the client):
//   - PUT /buyers/{id}: merchant header case, fields left out, the webhook it fires
//   - POST /api-key-pairs: registering a key whose x starts with a zero byte
//   - GET /gift-cards: four pages by cursor, and back
//   - GET /connections: a token of that key accepted, the old Go kid refused
//   - the other 15, once each with errors on four (TestEveryOperationDecodesAsGoDecodes):
//     GET /buyers/payment-methods, GET /payment-methods/{id}/payment-service-tokens,
//     POST /payment-methods/{id}/network-tokens/{id}/cryptogram, POST /digital-wallets/google/session,
//     POST /digital-wallets/click-to-pay/session, POST /transactions/{id}/session,
//     DELETE /checkout/sessions/{id}, DELETE /anti-fraud-services/{id},
//     DELETE /apple-pay-certificates/{id}, GET /flows/{flow},
//     GET /vault-forward/configs/{id}/authentications, GET /card-scheme-definitions, POST /reports,
//     GET /report-executions/{id}, DELETE /webhook-subscriptions/{id}
package sandboxgo

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"
)

const (
	defaultBuyer     = "b0000000-0000-4000-8000-000000000001"
	merchantTwoBuyer = "b0000000-0000-4000-8000-000000000002"
	readOnlyRole     = "a1000000-0000-4000-8000-000000000002" // *.read: the admin role also grants embed, which a token of *.read, *.write may not hand on
)

// Go's net/http sends header names in canonical case: the client's merchant account header
// arrives as X-Gr4vy-Merchant-Account-Id, and must choose the account as the lower-case alias does.
func TestMerchantAccountHeaderInGoCase(t *testing.T) {
	base, token := namespace(t), adminToken(t)
	update := map[string]any{"display_name": "Set from Go"}

	two := call(t, http.MethodPut, base+"/buyers/"+merchantTwoBuyer, update,
		"Authorization", "Bearer "+token, "x-gr4vy-merchant-account-id", "merchant-two")
	expectStatus(t, two, http.StatusOK)
	expectField(t, two.body, "type", "buyer") // the client's const: another value fails its decode
	expectField(t, two.body, "id", merchantTwoBuyer)
	expectField(t, two.body, "merchant_account_id", "merchant-two")
	expectField(t, two.body, "display_name", "Set from Go")
	expectGoTimes(t, two.raw)

	// The same header keeps default's buyer out of reach; without it, merchant-two's is.
	crossed := call(t, http.MethodPut, base+"/buyers/"+defaultBuyer, update,
		"Authorization", "Bearer "+token, "X-Gr4vy-Merchant-Account-Id", "merchant-two")
	expectStatus(t, crossed, http.StatusNotFound)
	absent := call(t, http.MethodPut, base+"/buyers/"+merchantTwoBuyer, update, "Authorization", "Bearer "+token)
	expectStatus(t, absent, http.StatusNotFound)

	// The journal kept the account the header chose.
	journal := call(t, http.MethodGet, base+"/_sandbox/requests?method=PUT&status=200", nil)
	expectStatus(t, journal, http.StatusOK)
	items, _ := journal.body["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("journal: %d PUTs answered 200, want 1: %s", len(items), journal.raw)
	}
	expectField(t, items[0].(map[string]any), "merchant_account_id", "merchant-two")
}

// Go cannot send an explicit null: a field it leaves out must keep its value.
func TestBuyerUpdateKeepsWhatGoLeavesOut(t *testing.T) {
	base, token := namespace(t), adminToken(t)
	before := call(t, http.MethodGet, base+"/_sandbox/records/buyers/"+defaultBuyer, nil)
	expectStatus(t, before, http.StatusOK)

	updated := call(t, http.MethodPut, base+"/buyers/"+defaultBuyer, map[string]any{"display_name": "Only the name"},
		"Authorization", "Bearer "+token)
	expectStatus(t, updated, http.StatusOK)
	expectField(t, updated.body, "display_name", "Only the name")
	expectField(t, updated.body, "external_identifier", "buyer-ext-0001")
	expectGoTimes(t, updated.raw)

	after := call(t, http.MethodGet, base+"/_sandbox/records/buyers/"+defaultBuyer, nil)
	expectField(t, after.body, "display_name", "Only the name")
	for _, field := range []string{"external_identifier", "billing_details", "account_number", "created_at"} {
		if fmt.Sprint(after.body[field]) != fmt.Sprint(before.body[field]) {
			t.Errorf("%s changed from %v to %v", field, before.body[field], after.body[field])
		}
	}
}

// The kid is the RFC 7638 thumbprint with full-width coordinates (Go clients since v1.12.97). A
// key whose x starts with a zero byte, registered through POST /api-key-pairs, is accepted under
// that kid; the kid older Go clients computed (zero bytes dropped) names no pair: a 401.
func TestTokenOfKeyWhoseCoordinateStartsWithZero(t *testing.T) {
	base := namespace(t)
	key := keyWithLeadingZero(t)
	spki, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	publicPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}))
	created := call(t, http.MethodPost, base+"/api-key-pairs",
		map[string]any{"display_name": "Go key, x starts with 00", "role_ids": []string{readOnlyRole}, "public_key": publicPEM},
		"Authorization", "Bearer "+adminToken(t))
	expectStatus(t, created, http.StatusCreated)
	expectField(t, created.body, "type", "api-key-pair")
	expectField(t, created.body, "algorithm", "ECDSA") // an exact value of the client's open enum (IsExact)
	expectField(t, created.body, "thumbprint", thumbprint(&key.PublicKey))
	expectField(t, created.body, "private_key", nil)
	expectField(t, created.body, "active", true)
	expectGoTimes(t, created.raw)

	accepted := call(t, http.MethodGet, base+"/connections", nil, "Authorization", "Bearer "+mustMint(t, key, thumbprint(&key.PublicKey)))
	expectStatus(t, accepted, http.StatusOK)
	if _, ok := accepted.body["items"].([]any); !ok {
		t.Fatalf("GET /connections: no items: %s", accepted.raw)
	}
	expectGoTimes(t, accepted.raw)

	old := oldGoThumbprint(&key.PublicKey)
	if old == thumbprint(&key.PublicKey) {
		t.Fatal("the key has no leading zero byte: the test proves nothing")
	}
	refused := call(t, http.MethodGet, base+"/connections", nil, "Authorization", "Bearer "+mustMint(t, key, old))
	expectStatus(t, refused, http.StatusUnauthorized)
	expectField(t, refused.body, "code", "unauthorized")
	if got := refused.header.Get("WWW-Authenticate"); got == "" {
		t.Error("a 401 without WWW-Authenticate")
	}
}

// keyWithLeadingZero generates P-521 keys until the x coordinate's first (of 66) bytes is zero.
func keyWithLeadingZero(t *testing.T) *ecdsa.PrivateKey {
	for range 1000 {
		key, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		point, _ := key.PublicKey.ECDH()
		if point.Bytes()[1] == 0 { // 04 || x || y
			return key
		}
	}
	t.Fatal("no key with a leading zero byte in 1000 tries")
	return nil
}

// A delivery is signed so that the Go client's check accepts it: the hex HMAC-SHA256 of
// "<timestamp as parsed and re-formatted>.<raw body>". A tampered body or timestamp, or another
// secret, fails the same check.
func TestWebhookDeliveryPassesGoCheck(t *testing.T) {
	base := namespace(t)
	type delivery struct {
		body      []byte
		signature string
		timestamp string
	}
	received := make(chan delivery, 4)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- delivery{body, r.Header.Get("X-Service-Signature"), r.Header.Get("X-Service-Timestamp")}
		w.WriteHeader(http.StatusNoContent)
	})}
	go server.Serve(listener)
	t.Cleanup(func() { server.Close() })

	subscription := call(t, http.MethodPost, base+"/_sandbox/records/webhook_subscriptions",
		map[string]any{"url": "http://" + listener.Addr().String() + "/hooks"})
	expectStatus(t, subscription, http.StatusCreated)
	secret, _ := subscription.body["secret"].(string)

	put := call(t, http.MethodPut, base+"/buyers/"+defaultBuyer, map[string]any{"display_name": "Fires buyer.updated"},
		"Authorization", "Bearer "+adminToken(t))
	expectStatus(t, put, http.StatusOK)

	var got delivery
	select {
	case got = <-received:
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery within 20 s")
	}
	var event map[string]any
	if err := json.Unmarshal(got.body, &event); err != nil {
		t.Fatalf("delivery body: %v", err)
	}
	expectField(t, event, "name", "buyer.updated")
	if err := verifyWebhook(secret, got.body, got.signature, got.timestamp); err != nil {
		t.Fatalf("a real delivery refused: %v", err)
	}
	tampered := append([]byte{}, got.body...)
	tampered[len(tampered)-2] ^= 1
	if verifyWebhook(secret, tampered, got.signature, got.timestamp) == nil {
		t.Fatal("a tampered body accepted")
	}
	if verifyWebhook("not-the-secret", got.body, got.signature, got.timestamp) == nil {
		t.Fatal("another secret accepted")
	}
	if later, err := strconv.ParseInt(got.timestamp, 10, 64); err != nil || verifyWebhook(secret, got.body, got.signature, strconv.FormatInt(later+1, 10)) == nil {
		t.Fatalf("a tampered timestamp accepted (timestamp %q)", got.timestamp)
	}
}

var dateTimeValue = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T`)

// expectGoTimes parses every date-time of an answer as the Go client's decoder does
// (time.RFC3339Nano, which needs an offset or Z).
func expectGoTimes(t *testing.T, raw []byte) {
	t.Helper()
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for key, item := range v {
				walk(path+"/"+key, item)
			}
		case []any:
			for i, item := range v {
				walk(fmt.Sprintf("%s/%d", path, i), item)
			}
		case string:
			if dateTimeValue.MatchString(v) {
				if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
					t.Errorf("%s: %q does not parse as the Go client parses it: %v", path, v, err)
				}
			}
		}
	}
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	walk("", body)
}

// The Go client's Next() sends next_cursor back as the cursor query parameter, encoded by
// url.Values: four pages of three gift cards are the first twelve, in order, none twice, and
// previous_cursor leads back.
func TestGiftCardPagesAsGoFollowsThem(t *testing.T) {
	base, token := namespace(t), adminToken(t)
	page := func(query url.Values) (ids []string, next, previous string) {
		t.Helper()
		a := call(t, http.MethodGet, base+"/gift-cards?"+query.Encode(), nil, "Authorization", "Bearer "+token)
		expectStatus(t, a, http.StatusOK)
		expectGoTimes(t, a.raw)
		for _, item := range a.body["items"].([]any) {
			expectField(t, item.(map[string]any), "type", "gift-card")
			ids = append(ids, item.(map[string]any)["id"].(string))
		}
		next, _ = a.body["next_cursor"].(string)
		previous, _ = a.body["previous_cursor"].(string)
		return ids, next, previous
	}
	whole, _, _ := page(url.Values{"limit": {"12"}})
	if len(whole) != 12 {
		t.Fatalf("the seeded namespace has %d gift cards on a page of 12", len(whole))
	}
	var walked, secondPage []string
	query := url.Values{"limit": {"3"}}
	for n := 1; n <= 4; n++ {
		ids, next, previous := page(query)
		if (previous == "") != (n == 1) {
			t.Fatalf("page %d: previous_cursor %q", n, previous)
		}
		if n == 2 {
			secondPage = ids
			back, _, _ := page(url.Values{"limit": {"3"}, "cursor": {previous}})
			if fmt.Sprint(back) != fmt.Sprint(whole[:3]) {
				t.Fatalf("previous_cursor of page 2 gave %v, want %v", back, whole[:3])
			}
		}
		walked = append(walked, ids...)
		if next == "" {
			t.Fatalf("page %d has no next_cursor", n)
		}
		query = url.Values{"limit": {"3"}, "cursor": {next}}
	}
	if fmt.Sprint(walked) != fmt.Sprint(whole) || fmt.Sprint(secondPage) != fmt.Sprint(whole[3:6]) {
		t.Fatalf("pages gave %v, want %v", walked, whole)
	}
}

// Every operation's answer decodes as the Go client decodes it: its date-times through
// time.RFC3339Nano, and an error body's fields (type "error", code, status as a number equal to
// the HTTP status, message, details) into the shape of its apierrors types. The merchant header
// goes out on every call, as WithMerchantAccountID sends it.
func TestEveryOperationDecodesAsGoDecodes(t *testing.T) {
	const (
		card         = "c0000000-0000-4000-8000-000000000001"
		networkToken = "c3000000-0000-4000-8000-000000000001"
		missing      = "00000000-0000-4000-8000-00000000dead"
	)
	reportSpec := map[string]any{"model": "transactions", "params": map[string]any{}}
	cases := []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodGet, "/buyers/payment-methods?buyer_id=" + defaultBuyer, nil, http.StatusOK},
		{http.MethodGet, "/payment-methods/" + card + "/payment-service-tokens", nil, http.StatusOK},
		{http.MethodPost, "/payment-methods/" + card + "/network-tokens/" + networkToken + "/cryptogram", map[string]any{"merchant_initiated": false}, http.StatusCreated},
		{http.MethodPost, "/digital-wallets/google/session", map[string]any{"origin_domain": "shop.example.com"}, http.StatusOK},
		{http.MethodPost, "/digital-wallets/click-to-pay/session", map[string]any{"checkout_session_id": "d1000000-0000-4000-8000-000000000001"}, http.StatusOK},
		{http.MethodPost, "/transactions/d0000000-0000-4000-8000-000000000001/session", nil, http.StatusOK},
		{http.MethodGet, "/flows/checkout", nil, http.StatusOK},
		{http.MethodGet, "/vault-forward/configs/f3000000-0000-4000-8000-000000000001/authentications", nil, http.StatusOK},
		{http.MethodGet, "/card-scheme-definitions", nil, http.StatusOK},
		{http.MethodPost, "/reports", map[string]any{"name": "From Go", "schedule": "once", "schedule_enabled": false, "spec": reportSpec}, http.StatusCreated},
		{http.MethodGet, "/report-executions/f6000000-0000-4000-8000-000000000001", nil, http.StatusOK},
		{http.MethodDelete, "/checkout/sessions/d1000000-0000-4000-8000-000000000001", nil, http.StatusNoContent},
		{http.MethodDelete, "/anti-fraud-services/e0000000-0000-4000-8000-000000000001", nil, http.StatusNoContent},
		{http.MethodDelete, "/apple-pay-certificates/e2000000-0000-4000-8000-000000000001", nil, http.StatusNoContent},
		{http.MethodDelete, "/webhook-subscriptions/e3000000-0000-4000-8000-000000000001", nil, http.StatusNoContent},
		// Error bodies, as its typed errors read them.
		{http.MethodGet, "/payment-methods/" + missing + "/payment-service-tokens", nil, http.StatusNotFound},
		{http.MethodGet, "/buyers/payment-methods?buyer_id=not-a-uuid", nil, http.StatusBadRequest},
		{http.MethodPost, "/reports", map[string]any{"name": "No spec", "schedule": "daily"}, http.StatusBadRequest},
		{http.MethodDelete, "/checkout/sessions/d1000000-0000-4000-8000-000000000001", nil, http.StatusNotFound},
	}
	base, token := namespace(t), adminToken(t)
	for _, c := range cases {
		a := call(t, c.method, base+c.path, c.body, "Authorization", "Bearer "+token, "X-Gr4vy-Merchant-Account-Id", "default")
		if a.status != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, a.status, c.status, a.raw)
			continue
		}
		if c.status == http.StatusNoContent {
			if len(a.raw) != 0 {
				t.Errorf("%s %s: 204 with a body: %s", c.method, c.path, a.raw)
			}
			continue
		}
		expectGoTimes(t, a.raw)
		if c.status >= 400 {
			var e struct {
				Type    string           `json:"type"`
				Code    string           `json:"code"`
				Status  int              `json:"status"`
				Message string           `json:"message"`
				Details []map[string]any `json:"details"`
			}
			if err := json.Unmarshal(a.raw, &e); err != nil || e.Type != "error" || e.Status != c.status || e.Code == "" || e.Message == "" || e.Details == nil {
				t.Errorf("%s %s: an error body Go cannot read as its typed error (%v): %s", c.method, c.path, err, a.raw)
			}
		}
	}
}

// WithTimeout gives up on a slow answer as net/http's client timeout does: with the slow scenario
// active for merchant-two (chosen by the header in Go's case), its call times out after 0.5 s of
// the scenario's 1.5 s, and the default account's next call is served without the delay.
func TestSlowAnswerPastGoTimeout(t *testing.T) {
	base, token := namespace(t), adminToken(t)
	activated := call(t, http.MethodPut, base+"/_sandbox/scenarios/active",
		map[string]any{"scenarios": []string{"slow"}, "merchant_account_id": "merchant-two"})
	expectStatus(t, activated, http.StatusOK)

	client := &http.Client{Timeout: 500 * time.Millisecond}
	get := func(account string) (*http.Response, time.Duration, error) {
		req, _ := http.NewRequest(http.MethodGet, base+"/card-scheme-definitions", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("X-Gr4vy-Merchant-Account-Id", account)
		started := time.Now()
		res, err := client.Do(req)
		return res, time.Since(started), err
	}
	_, took, err := get("merchant-two")
	var urlErr *url.Error
	if !errors.As(err, &urlErr) || !urlErr.Timeout() {
		t.Fatalf("merchant-two's slow call: %v, want a timeout", err)
	}
	if took > 1200*time.Millisecond {
		t.Fatalf("the timeout came after %v", took)
	}
	res, took, err := get("default")
	if err != nil {
		t.Fatalf("default's call: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || took >= 1400*time.Millisecond { // not slowed by 1.5 s
		t.Fatalf("default's call: %d after %v, want 200 without the delay", res.StatusCode, took)
	}
}

// Every status the reference declares for PUT /buyers/{id} (and a 422 of POST /api-key-pairs)
// answers a body the Go client reads into its typed error (apierrors.Error400 ... Error504): type
// "error", the status as a number equal to the HTTP one, a code, a message, details; the 422 its
// HTTPValidationError (detail: loc, msg, type); 429 with Retry-After, 401 with WWW-Authenticate. Scenarios come through the
// x-sandbox-scenario header, as the client's per-call headers would send it.
func TestErrorStatusesReadAsGoTypedErrors(t *testing.T) {
	base, token := namespace(t), adminToken(t)
	readOnly := privateKey(t, "read-only.pem")
	readOnlyToken := mustMint(t, readOnly, thumbprint(&readOnly.PublicKey))
	buyer := base + "/buyers/" + defaultBuyer
	rename := map[string]any{"display_name": "Renamed from Go"}
	cases := []struct {
		name, method, url string
		body              any
		headers           []string
		status            int
	}{
		{"bad body", http.MethodPut, buyer, map[string]any{"display_name": 12}, nil, 400},
		{"no token", http.MethodPut, buyer, rename, []string{"Authorization", ""}, 401},
		{"read-only key", http.MethodPut, buyer, rename, []string{"Authorization", "Bearer " + readOnlyToken}, 403},
		{"unknown buyer", http.MethodPut, base + "/buyers/00000000-0000-4000-8000-00000000dead", rename, nil, 404},
		{"duplicate-record", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "duplicate-record"}, 409},
		{"unknown role", http.MethodPost, base + "/api-key-pairs", map[string]any{"display_name": "Go", "role_ids": []string{"00000000-0000-4000-8000-00000000dead"}}, nil, 422},
		{"too-early", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "too-early"}, 425},
		{"rate-limited", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "rate-limited"}, 429},
		{"server-error", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "server-error"}, 500},
		{"bad-gateway", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "bad-gateway"}, 502},
		{"gateway-timeout", http.MethodPut, buyer, rename, []string{"X-Sandbox-Scenario", "gateway-timeout"}, 504},
	}
	for _, c := range cases {
		headers := append([]string{"Authorization", "Bearer " + token}, c.headers...)
		a := call(t, c.method, c.url, c.body, headers...)
		if a.status != c.status {
			t.Errorf("%s: %d, want %d: %s", c.name, a.status, c.status, a.raw)
			continue
		}
		if c.status == 422 {
			// HTTPValidationError: detail, a list of {loc, msg, type}.
			var v struct {
				Detail []struct {
					Loc  []any  `json:"loc"`
					Msg  string `json:"msg"`
					Type string `json:"type"`
				} `json:"detail"`
			}
			if err := json.Unmarshal(a.raw, &v); err != nil || len(v.Detail) == 0 || v.Detail[0].Msg == "" || v.Detail[0].Type == "" || len(v.Detail[0].Loc) == 0 {
				t.Errorf("%s: a body Go cannot read as HTTPValidationError (%v): %s", c.name, err, a.raw)
			}
			continue
		}
		var e struct {
			Type    string           `json:"type"`
			Code    string           `json:"code"`
			Status  int              `json:"status"`
			Message string           `json:"message"`
			Details []map[string]any `json:"details"`
		}
		if err := json.Unmarshal(a.raw, &e); err != nil || e.Type != "error" || e.Status != c.status || e.Code == "" || e.Message == "" || e.Details == nil {
			t.Errorf("%s: a body Go cannot read as its typed error (%v): %s", c.name, err, a.raw)
		}
		if c.status == 429 && a.header.Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", c.name)
		}
		if c.status == 401 && a.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", c.name)
		}
	}
}
