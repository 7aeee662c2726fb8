package kcptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestenvResult is what `kcpt testenv -o json` prints.
type TestenvResult struct {
	Kubeconfig  string `json:"kubeconfig"`
	Workspace   string `json:"workspace"`
	ClusterName string `json:"clusterName"`
	URL         string `json:"url"`
}

// Testenv runs `kcpt testenv -o json` (args such as --parent, --type, --crd added) as a Go suite would before its
// tests, with KUBECONFIG at the server's admin.kubeconfig, and writes the workspace's kubeconfig into the test's temp
// directory.
func Testenv(t testing.TB, args ...string) TestenvResult {
	t.Helper()
	cli := os.Getenv(EnvCLI)
	if cli == "" {
		t.Fatalf("%s is not set: point it at the kcpt executable (bin/run.js of the repository)", EnvCLI)
	}
	out := filepath.Join(t.TempDir(), "testenv.kubeconfig")
	cmd := exec.CommandContext(t.Context(), cli, append([]string{"testenv", "-o", "json", "--kubeconfig-out", out}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+AdminKubeconfig(t))
	stdout, err := cmd.Output()
	if err != nil {
		stderr := ""
		if exit, ok := err.(*exec.ExitError); ok {
			stderr = string(exit.Stderr)
		}
		t.Fatalf("kcpt testenv %v: %v\n%s", args, err, stderr)
	}
	var res TestenvResult
	if err := json.Unmarshal(stdout, &res); err != nil {
		t.Fatalf("kcpt testenv printed %q: %v", stdout, err)
	}
	if res.Kubeconfig != out {
		t.Fatalf("kcpt testenv wrote its kubeconfig to %q, not to --kubeconfig-out %q", res.Kubeconfig, out)
	}
	return res
}
