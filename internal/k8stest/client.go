//go:build k8s

package k8stest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Environment variables that name the API server and the credentials.
const (
	EnvServer = "DBARENA_K8S_SERVER"
	EnvCert   = "DBARENA_K8S_CERT"
	EnvKey    = "DBARENA_K8S_KEY"
	EnvCA     = "DBARENA_K8S_CA"
)

// Client is a minimal client of the Kubernetes REST API: JSON over HTTPS,
// authenticated by a client certificate.
type Client struct {
	base *url.URL
	http *http.Client
}

// NewClientFromEnv returns a client for the API server the DBARENA_K8S_*
// variables name, and fails the test when one of them is missing or the
// files cannot be read.
func NewClientFromEnv(t testing.TB) *Client {
	t.Helper()
	var missing []string
	get := func(name string) string {
		v := os.Getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	}
	server, cert, key, ca := get(EnvServer), get(EnvCert), get(EnvKey), get(EnvCA)
	if len(missing) > 0 {
		t.Fatalf("k8stest: %s not set: start a control plane with scripts/k8s-control-plane start "+
			"and eval \"$(scripts/k8s-control-plane env)\" (or run make k8s-test)", strings.Join(missing, ", "))
	}
	c, err := NewClient(server, cert, key, ca)
	if err != nil {
		t.Fatalf("k8stest: %v", err)
	}
	return c
}

// NewClient returns a client for the API server at server (https://HOST:PORT)
// that presents the certificate in certFile/keyFile and trusts the CA in
// caFile.
func NewClient(server, certFile, keyFile, caFile string) (*Client, error) {
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("API server %q: want https://HOST:PORT", server)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA: no PEM certificate in %s", caFile)
	}
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{pair},
			RootCAs:      pool,
			MinVersion:   tls.VersionTLS12,
		},
		ForceAttemptHTTP2: true,
	}
	return &Client{base: u, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, nil
}

// APIError is a request the API server answered with an error status; its
// message is the API server's (metav1.Status.Message).
type APIError struct {
	Method, Path string
	Code         int
	Status       metav1.Status
}

func (e *APIError) Error() string {
	msg := e.Status.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Code, e.Status.Reason, msg)
}

// IsStatus tells whether err is an APIError with HTTP status code.
func IsStatus(err error, code int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

// Do sends a request to path (with its query) and decodes a JSON answer
// into out, when out is not nil. A body that is not nil and not []byte is
// sent as JSON; contentType defaults to application/json.
func (c *Client) Do(ctx context.Context, method, path, contentType string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("%s %s: encoding the body: %w", method, path, err)
		}
		rd = bytes.NewReader(data)
	}
	ref, err := url.Parse(path)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.ResolveReference(ref).String(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if rd != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		ae := &APIError{Method: method, Path: path, Code: resp.StatusCode}
		if json.Unmarshal(data, &ae.Status) != nil || ae.Status.Kind != "Status" {
			ae.Status = metav1.Status{Message: strings.TrimSpace(string(data))}
		}
		return ae
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
		}
	}
	return nil
}

// Get reads the object at path into out.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.Do(ctx, http.MethodGet, path, "", nil, out)
}
