package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// socketConfig is what the --listen flags ask for.
type socketConfig struct {
	addr             listenAddr
	tokenFile        string
	insecure         bool // --listen-insecure: a TCP address other machines can reach is allowed
	handshakeTimeout time.Duration
}

// Until a socket client has sent a good initialize it may send no frame over handshakeMaxBody, and
// at most maxUnadmitted such clients are connected at once: together they hold at most about
// maxUnadmitted × handshakeMaxBody of the server's memory (512 KiB), not 64 MiB each. An editor's
// initialize is a few KiB.
const (
	handshakeMaxBody = 64 << 10
	maxUnadmitted    = 8
)

// exitUsage is the exit code for flags that cannot work as given (the flag package's own).
const exitUsage = 2

// serveSocket listens as cfg says and serves every client that connects until ctx ends (exit 0).
// Flags that cannot work as given are reported on stderr with exit 2, an address we cannot listen
// on (in use, say) with exit 1.
func serveSocket(ctx context.Context, cfg socketConfig, opts lsp.Options, logger *slog.Logger, stderr io.Writer) int {
	ln, token, err := openSocket(cfg, logger)
	if err != nil {
		fmt.Fprintln(stderr, "hermes-lsp:", err)
		var lerr *listenError
		if errors.As(err, &lerr) {
			return 1
		}
		return exitUsage
	}
	// A socket client has to prove itself before the server does anything: a good initialize first,
	// within the handshake timeout, with the token when there is one, in a frame of at most 64 KiB.
	// An oversized frame ends that client's connection only.
	opts.Token = token
	opts.HandshakeTimeout = cfg.handshakeTimeout
	opts.HandshakeMaxBody = handshakeMaxBody
	opts.CloseOnOversizedFrame = true
	logger.Info("hermes-lsp listening", "addr", listenAddr{network: cfg.addr.network, address: ln.Addr().String()}.String(),
		"version", version, "pid", os.Getpid(), "token", token != "")
	return acceptLoop(ctx, ln, opts, logger)
}

// listenError is a failure to listen on an address that passed every check (in use, say): not a
// usage error.
type listenError struct{ err error }

func (e *listenError) Error() string { return e.err.Error() }
func (e *listenError) Unwrap() error { return e.err }

// openSocket checks cfg and listens. It returns the token clients must send ("" for a Unix socket
// without --token-file).
func openSocket(cfg socketConfig, logger *slog.Logger) (net.Listener, string, error) {
	if cfg.handshakeTimeout <= 0 {
		return nil, "", errors.New("--handshake-timeout must be positive")
	}
	if cfg.addr.network == "tcp" {
		if !cfg.addr.loopback() && !cfg.insecure {
			return nil, "", insecureError(cfg.addr)
		}
		if cfg.tokenFile == "" {
			return nil, "", fmt.Errorf("--listen %s needs --token-file FILE: without a token any local process could connect and run commands as you. "+
				"FILE is created with a random token when missing; clients send it as initializationOptions.hermes.token. "+
				"Or use a Unix socket: --listen unix", cfg.addr)
		}
	}
	var token string
	if cfg.tokenFile != "" {
		t, created, err := loadToken(cfg.tokenFile)
		if err != nil {
			return nil, "", err
		}
		if created {
			logger.Info("created a token file with a new random token", "path", cfg.tokenFile)
		}
		token = t
	}

	if cfg.addr.network == "unix" {
		ln, err := listenUnix(cfg.addr.address)
		if err != nil {
			return nil, "", &listenError{err}
		}
		if !peerCredChecked {
			logger.Info("peer credentials are not checked on this platform: the socket's directory permissions keep other users out")
		}
		return &peerListener{Listener: ln, uid: os.Geteuid(), log: logger}, token, nil
	}

	ln, err := net.Listen("tcp", cfg.addr.address)
	if err != nil {
		return nil, "", &listenError{fmt.Errorf("--listen %s: %w", cfg.addr, err)}
	}
	// Checked again on what we got: "localhost" passed by name, and this is what it became.
	if !ln.Addr().(*net.TCPAddr).IP.IsLoopback() {
		if !cfg.insecure {
			_ = ln.Close()
			return nil, "", insecureError(cfg.addr)
		}
		logger.Warn("--listen-insecure: listening on an address other machines may reach; anyone who reaches it and has the token can run commands as you",
			"addr", ln.Addr().String())
	}
	return ln, token, nil
}

func insecureError(addr listenAddr) error {
	return fmt.Errorf("--listen %s would accept connections from other machines; listen on 127.0.0.1 or a Unix socket (--listen unix), "+
		"or add --listen-insecure if you mean it (then anyone who reaches the port and has the token can run commands as you)", addr)
}

// acceptLoop serves each connection on its own lsp.Server, concurrently, so that one slow or idle
// client never holds up the next. A connection that arrives while maxUnadmitted others have not yet
// sent their initialize is closed at once, with a log line: its client fails at once instead of
// hanging for as long as those others may take (up to the handshake timeout), and nothing of it is
// kept. When ctx ends it closes the listener and waits for every session to end (each ends with ctx).
func acceptLoop(ctx context.Context, ln net.Listener, opts lsp.Options, logger *slog.Logger) int {
	var wg conc.WaitGroup // the sessions, and the goroutine that closes the listener
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // runs before wg.Wait: a listener that fails takes its sessions down with it
	wg.Go(func() {
		<-ctx.Done()
		_ = ln.Close() // ends Accept below
	})

	unadmitted := make(chan struct{}, maxUnadmitted) // a token per connection not yet admitted
	var backoff time.Duration
	for n := 1; ; {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				logger.Info("hermes-lsp stopping: waiting for the open connections to end")
				return 0
			}
			// Out of file descriptors and the like: wait a little and go on, rather than let a
			// flood of connections stop the server.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			logger.Warn("accept failed; retrying", "err", err, "in", backoff)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
			case <-t.C:
			}
			continue
		}
		backoff = 0
		select {
		case unadmitted <- struct{}{}:
		default:
			logger.Warn("closing a new connection: too many others have not sent their initialize yet",
				"remote", conn.RemoteAddr().String(), "limit", maxUnadmitted)
			_ = conn.Close()
			continue
		}
		log := logger.With("conn", n)
		n++
		log.Info("client connected", "remote", conn.RemoteAddr().String())
		admitted := sync.OnceFunc(func() { <-unadmitted }) // at its initialize, or at its end
		sessionOpts := opts
		sessionOpts.Logger = log
		sessionOpts.OnAdmit = admitted
		wg.Go(func() {
			defer admitted()
			defer conn.Close()
			srv := lsp.NewServer(sessionOpts)
			if err := srv.Serve(ctx, conn); err != nil {
				log.Warn("client session ended", "err", err)
				return
			}
			log.Info("client session ended")
		})
	}
}
