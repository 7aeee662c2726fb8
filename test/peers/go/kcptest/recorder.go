package kcptest

import (
	"net/http"
	"net/url"
	"sync"

	"k8s.io/client-go/rest"
)

// Exchange is one request a client sent and the content type of the answer.
type Exchange struct {
	Method string
	URL    *url.URL
	// RequestContentType and ResponseContentType are the Content-Type headers.
	RequestContentType  string
	ResponseContentType string
	Status              int
}

// Recorder keeps every request a rest.Config's clients send (through rest.Config.Wrap), to assert what went on the
// wire: the encoding, and which requests an informer or discovery made.
type Recorder struct {
	mu        sync.Mutex
	exchanges []Exchange
}

// Record wraps cfg's transport (cfg is changed and returned).
func (r *Recorder) Record(cfg *rest.Config) *rest.Config {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			ex := Exchange{Method: req.Method, URL: req.URL, RequestContentType: req.Header.Get("Content-Type")}
			if resp != nil {
				ex.ResponseContentType = resp.Header.Get("Content-Type")
				ex.Status = resp.StatusCode
			}
			r.mu.Lock()
			r.exchanges = append(r.exchanges, ex)
			r.mu.Unlock()
			return resp, err
		})
	})
	return cfg
}

// Exchanges is what was sent so far.
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchanges...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
