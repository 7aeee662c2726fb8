package controllerruntime

import (
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kcpt/peers/kcptest"
)

// What a Go operator's suite pays for a fresh, isolated workspace per test on kcpt, up to envtest.Start returning
// with the Widget CRD installed (bench/envtest.js runs it beside envtest's own start):
//   - kcpt-testenv: `kcpt testenv` (a Node process: workspace Ready, kubeconfig written), then envtest.Start;
//   - api: the workspace created from Go through the API (no process), then envtest.Start.
func BenchmarkWorkspacePerTest(b *testing.B) {
	start := func(b *testing.B, cfgFor func(b *testing.B) *envtest.Environment) {
		for b.Loop() {
			env := cfgFor(b)
			if _, err := env.Start(); err != nil {
				b.Fatalf("envtest.Start: %v", err)
			}
			if err := env.Stop(); err != nil {
				b.Fatalf("envtest.Stop: %v", err)
			}
		}
	}
	newEnv := func(b *testing.B) *envtest.Environment {
		return &envtest.Environment{UseExistingCluster: ptr.To(true), CRDDirectoryPaths: []string{crdDir}, ErrorIfCRDPathMissing: true}
	}
	b.Run("kcpt-testenv", func(b *testing.B) {
		start(b, func(b *testing.B) *envtest.Environment {
			env := newEnv(b)
			env.Config = testenvConfig(b, kcptest.Testenv(b))
			return env
		})
	})
	b.Run("api", func(b *testing.B) {
		start(b, func(b *testing.B) *envtest.Environment {
			env := newEnv(b)
			ws := kcptest.CreateWorkspace(b, "root", "bench", "")
			env.Config = kcptest.ConfigForPath(b, ws.Path)
			return env
		})
	})
}
