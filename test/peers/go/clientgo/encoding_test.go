package clientgo

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"kcpt/peers/kcptest"
)

// encoding is how a clientset talks: JSON (client-go's default) or protobuf, as controllers built with
// kube's component-base usually configure it.
type encoding struct {
	name        string
	contentType string
}

var encodings = []encoding{
	{name: "json", contentType: runtime.ContentTypeJSON},
	{name: "protobuf", contentType: runtime.ContentTypeProtobuf},
}

// configure sets cfg to speak enc (request bodies, and what it accepts first).
func (enc encoding) configure(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = enc.contentType
	if enc.contentType == runtime.ContentTypeProtobuf {
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	return cfg
}

// eachEncoding runs fn per encoding and workspace: json/root, json/nested, protobuf/root, protobuf/nested.
func eachEncoding(t *testing.T, fn func(t *testing.T, enc encoding, target kcptest.Target)) {
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			t.Parallel()
			kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) { fn(t, enc, target) })
		})
	}
}

// assertAnsweredIn fails unless every create and update under pathPart was sent in enc's content type and every
// answer with a body came in enc's content type: kube answers built-in kinds (objects, lists, error Statuses, watch
// streams as `;stream=watch`) in protobuf when the client prefers it, and so must kcpt.
func assertAnsweredIn(t *testing.T, rec *kcptest.Recorder, enc encoding, pathPart string) {
	t.Helper()
	seen := 0
	for _, ex := range rec.Exchanges() {
		if !strings.Contains(ex.URL.Path, pathPart) {
			continue
		}
		seen++
		if (ex.Method == "POST" || ex.Method == "PUT") && !strings.HasPrefix(ex.RequestContentType, enc.contentType) {
			t.Errorf("%s %s: sent %q, want %s", ex.Method, ex.URL, ex.RequestContentType, enc.contentType)
		}
		if ex.ResponseContentType == "" {
			continue
		}
		want := enc.contentType
		if ex.URL.Query().Get("watch") == "true" && enc.contentType == runtime.ContentTypeProtobuf {
			want += ";stream=watch"
		}
		if ex.ResponseContentType != want {
			t.Errorf("%s %s: answered %d in %q, want %q", ex.Method, ex.URL, ex.Status, ex.ResponseContentType, want)
		}
	}
	if seen == 0 {
		t.Errorf("no requests recorded under %s", pathPart)
	}
}
