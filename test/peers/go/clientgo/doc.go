// Package clientgo holds the client-go peer tests: kcpt served to k8s.io/client-go through its public API only.
package clientgo
