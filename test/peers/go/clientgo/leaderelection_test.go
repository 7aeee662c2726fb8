package clientgo

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"kcpt/peers/kcptest"
)

// Leader election on a Lease with two candidates: one leads, the other follows; when the leader stops, the other
// takes over — at once when the leader releases the Lease on its way out, after the lease duration when it just
// stops renewing (a crash).
func TestLeaderElection(t *testing.T) {
	for _, release := range []bool{true, false} {
		name := "released"
		if !release {
			name = "expired"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			kcptest.EachWorkspace(t, func(t *testing.T, target kcptest.Target) {
				cs := kubernetes.NewForConfigOrDie(target.Config)
				lease := "peer-leader"
				a := startCandidate(t, cs, target.Namespace, lease, "a", release)
				a.waitLeading(t)
				b := startCandidate(t, cs, target.Namespace, lease, "b", release)
				// b has read the Lease and seen a hold it.
				b.waitObserved(t, "a")
				if b.isLeading() {
					t.Fatal("b leads while a holds the lease")
				}

				stopped := time.Now()
				a.stop()
				b.waitLeading(t)
				if !release && time.Since(stopped) < time.Second {
					t.Errorf("b took over %s after a stopped renewing, before a's 2 s lease could expire", time.Since(stopped))
				}
				got, err := cs.CoordinationV1().Leases(target.Namespace).Get(t.Context(), lease, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != "b" {
					t.Errorf("lease holder %v, want b", got.Spec.HolderIdentity)
				}
				if got.Spec.LeaseTransitions == nil || *got.Spec.LeaseTransitions != 1 {
					t.Errorf("leaseTransitions %v, want 1", got.Spec.LeaseTransitions)
				}
			})
		})
	}
}

type candidate struct {
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	leading  bool
	observed []string
}

func startCandidate(t *testing.T, cs kubernetes.Interface, namespace, lease, id string, release bool) *candidate {
	t.Helper()
	c := &candidate{done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	t.Cleanup(c.stop)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Name: lease, Namespace: namespace},
			Client:     cs.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		},
		LeaseDuration:   2 * time.Second,
		RenewDeadline:   1500 * time.Millisecond,
		RetryPeriod:     200 * time.Millisecond,
		ReleaseOnCancel: release,
		Name:            "peer-" + id,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { c.set(func() { c.leading = true }) },
			OnStoppedLeading: func() { c.set(func() { c.leading = false }) },
			OnNewLeader:      func(identity string) { c.set(func() { c.observed = append(c.observed, identity) }) },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		elector.Run(ctx)
	}()
	return c
}

func (c *candidate) set(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f()
}

func (c *candidate) isLeading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leading
}

func (c *candidate) waitLeading(t *testing.T) {
	t.Helper()
	kcptest.Eventually(t, 15*time.Second, func() error {
		if !c.isLeading() {
			return fmt.Errorf("not leading")
		}
		return nil
	})
}

func (c *candidate) waitObserved(t *testing.T, leader string) {
	t.Helper()
	kcptest.Eventually(t, 15*time.Second, func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, id := range c.observed {
			if id == leader {
				return nil
			}
		}
		return fmt.Errorf("observed leaders %v, not %s", c.observed, leader)
	})
}

// stop cancels the candidate and waits until its elector returned (having released the lease if it does).
func (c *candidate) stop() {
	c.cancel()
	<-c.done
}
