// Package kcptest connects the peer tests to the kcpt server their runner started (test/peers/go.test.ts), through
// nothing but the server's admin kubeconfig: KCPT_KUBECONFIG names it, KCPT_CLI the `kcpt` executable for
// `kcpt testenv`. By hand:
//
//	kcpt start --detach --root-directory /tmp/kcpt
//	KCPT_KUBECONFIG=/tmp/kcpt/admin.kubeconfig KCPT_CLI=$PWD/bin/run.js go test ./... (in test/peers/go)
package kcptest

import (
	"net/url"
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// EnvKubeconfig names the server's admin.kubeconfig (contexts root, base, system:admin, shard-base).
	EnvKubeconfig = "KCPT_KUBECONFIG"
	// EnvCLI names the kcpt executable (the repository's bin/run.js).
	EnvCLI = "KCPT_CLI"
)

// AdminKubeconfig is the path of the server's admin.kubeconfig.
func AdminKubeconfig(t testing.TB) string {
	t.Helper()
	path := os.Getenv(EnvKubeconfig)
	if path == "" {
		t.Fatalf("%s is not set: start kcpt (kcpt start --detach) and point %s at its admin.kubeconfig", EnvKubeconfig, EnvKubeconfig)
	}
	return path
}

// ContextConfig is the rest.Config of one context of the admin kubeconfig.
func ContextConfig(t testing.TB, context string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: AdminKubeconfig(t)},
		&clientcmd.ConfigOverrides{CurrentContext: context},
	).ClientConfig()
	if err != nil {
		t.Fatalf("loading context %q of %s: %v", context, AdminKubeconfig(t), err)
	}
	return fast(cfg)
}

// fast lifts client-go's default client-side rate limit (5 requests/s): a test's bursts are not what it measures.
func fast(cfg *rest.Config) *rest.Config {
	cfg.QPS = 200
	cfg.Burst = 400
	return cfg
}

// BaseURL is the server's URL without a /clusters prefix (the `base` context).
func BaseURL(t testing.TB) string {
	t.Helper()
	return strings.TrimSuffix(ContextConfig(t, "base").Host, "/")
}

// ConfigForPath is kcp-admin's rest.Config for the workspace at path (root:org:team), or for `*`.
func ConfigForPath(t testing.TB, path string) *rest.Config {
	t.Helper()
	cfg := ContextConfig(t, "base")
	cfg.Host = BaseURL(t) + "/clusters/" + path
	return cfg
}

// ShardAdminConfig is the shard-base context's rest.Config (a system:masters identity) with its host at
// /clusters/<path>: `*` reads across every logical cluster of the server.
func ShardAdminConfig(t testing.TB, path string) *rest.Config {
	t.Helper()
	cfg := ContextConfig(t, "shard-base")
	cfg.Host = BaseURL(t) + "/clusters/" + path
	return cfg
}

// ConfigForURL is cfg with its host replaced by a URL the server handed out (a Workspace's spec.URL, an endpoint
// slice's URL), keeping cfg's credentials and CA.
func ConfigForURL(t testing.TB, cfg *rest.Config, raw string) *rest.Config {
	t.Helper()
	if _, err := url.Parse(raw); err != nil {
		t.Fatalf("bad URL %q from the server: %v", raw, err)
	}
	out := rest.CopyConfig(cfg)
	out.Host = raw
	return out
}
