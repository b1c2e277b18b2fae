//go:build serve

package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

// serveCommand runs kube-apiserver (k8s.io/kubernetes/cmd/kube-apiserver/app, the real command)
// on 127.0.0.1 over an embedded etcd (go.etcd.io/etcd/server/v3/embed), writes a kubeconfig for a
// member of system:masters to --kubeconfig once /readyz answers, and runs until stopped.
func serveCommand(args []string) int {
	o, err := parseOptions(args, map[string]bool{"kubeconfig": false, "dir": false})
	if err != nil || o.one("kubeconfig") == "" {
		fmt.Fprintln(os.Stderr, "usage: vap-oracle serve --kubeconfig FILE [--dir DIR]")
		return 2
	}
	dir := o.one("dir")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "vap-oracle-serve-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
	}
	fail := func(what string, err error) int {
		fmt.Fprintf(os.Stderr, "vap-oracle serve: %s: %v\n", what, err)
		return 1
	}
	clientPort, peerPort, securePort := freePort(), freePort(), freePort()
	cfg := embed.NewConfig()
	cfg.Dir = filepath.Join(dir, "etcd")
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "error"
	clientURL, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", clientPort))
	peerURL, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", peerPort))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*clientURL}, []url.URL{*clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peerURL}, []url.URL{*peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		return fail("starting etcd", err)
	}
	defer etcd.Close()
	select {
	case <-etcd.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		return fail("etcd", fmt.Errorf("not ready after 60 s"))
	}

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fail("service account key", err)
	}
	keyFile := filepath.Join(dir, "sa.key")
	der := x509.MarshalPKCS1PrivateKey(key)
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fail("service account key", err)
	}
	token := fmt.Sprintf("vap-oracle-%d", time.Now().UnixNano())
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return fail("token file", err)
	}
	command := app.NewAPIServerCommand()
	command.SetArgs([]string{
		"--etcd-servers=" + clientURL.String(),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", securePort),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + keyFile,
		"--service-account-signing-key-file=" + keyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--endpoint-reconciler-type=none",
		"--disable-admission-plugins=ServiceAccount",
	})
	serverErr := make(chan error, 1)
	go func() { serverErr <- command.Execute() }()

	server := fmt.Sprintf("https://127.0.0.1:%d", securePort)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case err := <-serverErr:
			return fail("kube-apiserver", err)
		default:
		}
		req, _ := http.NewRequest("GET", server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			return fail("kube-apiserver", fmt.Errorf("/readyz did not answer 200 within 3 minutes"))
		}
		time.Sleep(500 * time.Millisecond)
	}
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: vap-oracle
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: %q}
contexts:
- name: vap-oracle
  context: {cluster: vap-oracle, user: admin, namespace: default}
current-context: vap-oracle
`, server, token)
	if err := os.WriteFile(o.one("kubeconfig"), []byte(kubeconfig), 0o600); err != nil {
		return fail("writing the kubeconfig", err)
	}
	fmt.Printf("vap-oracle serve: kube-apiserver %s ready at %s (kubeconfig %s)\n", kubernetesVersion, server, o.one("kubeconfig"))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-stop:
		return 0
	case err := <-serverErr:
		return fail("kube-apiserver", err)
	}
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
