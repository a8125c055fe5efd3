package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/hermes-lsp/hermes-lsp/lsp"
)

// A Server is the language server the demo drives: one end of an LSP connection, and the way to
// wait for its end.
type Server struct {
	// Conn carries LSP to and from the server; closing it ends the connection.
	Conn io.ReadWriteCloser
	// Describe says what the server is, for the terminal: "hermes-lsp --stdio (pid 123)".
	Describe string
	// Wait waits at most timeout for the server to end once the connection is done, then stops it
	// by force, and returns how it ended.
	Wait func(timeout time.Duration) error
}

// StartServer starts the server, logging to logFile.
type StartServer func(ctx context.Context, logFile string) (*Server, error)

// Spawn starts `argv... --stdio --log-file LOG --log-level debug`: a hermes-lsp process speaking
// LSP on its stdin and stdout, as an editor runs it. It gets a process group of its own, so that a
// Ctrl-C in the terminal reaches only the demo (which stops the turn over LSP), and on Linux it is
// killed if the demo dies (elsewhere it sees its stdin end and exits: server_*.go).
func Spawn(argv ...string) StartServer {
	return func(ctx context.Context, logFile string) (*Server, error) {
		if len(argv) == 0 {
			return nil, errors.New("no server command")
		}
		args := append(append([]string{}, argv[1:]...), "--stdio", "--log-file", logFile, "--log-level", "debug")
		cmd := exec.Command(argv[0], args...)
		logOut, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		cmd.Stderr = logOut // a panic's trace, should there be one
		cmd.SysProcAttr = serverProcAttr()
		stdin, err := cmd.StdinPipe()
		if err != nil {
			logOut.Close()
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			logOut.Close()
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			logOut.Close()
			return nil, fmt.Errorf("start the server %s: %w", argv[0], err)
		}
		conn := &pipeConn{r: stdout, w: stdin}
		return &Server{
			Conn:     conn,
			Describe: fmt.Sprintf("%s --stdio (pid %d)", argv[0], cmd.Process.Pid),
			Wait: func(timeout time.Duration) error {
				defer logOut.Close()
				_ = stdin.Close()
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case err := <-done:
					return err
				case <-time.After(timeout):
					_ = cmd.Process.Kill()
					<-done
					return fmt.Errorf("the server did not exit within %v: killed", timeout)
				}
			},
		}, nil
	}
}

// pipeConn joins the server's stdout (read) and stdin (write).
type pipeConn struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// Close closes the server's stdin: the server sees its input end.
func (c *pipeConn) Close() error { return c.w.Close() }

// InProcess runs the server in this process, on one end of an in-memory pipe.
func InProcess(version string) StartServer {
	return func(ctx context.Context, logFile string) (*Server, error) {
		logOut, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
		srv := lsp.NewServer(lsp.Options{Logger: logger, Version: version})
		client, server := net.Pipe()
		done := make(chan error, 1)
		// The demo ends the server with shutdown and exit, even after a Ctrl-C: not with ctx.
		go func() {
			err := srv.Serve(context.WithoutCancel(ctx), server)
			logOut.Close()
			done <- err
		}()
		return &Server{
			Conn:     client,
			Describe: "hermes-lsp in this process (lsp.NewServer)",
			Wait: func(timeout time.Duration) error {
				select {
				case err := <-done:
					if err == nil && srv.ExitCode() != 0 {
						err = fmt.Errorf("exit code %d", srv.ExitCode())
					}
					return err
				case <-time.After(timeout):
					_ = server.Close()
					return fmt.Errorf("the server did not stop within %v", timeout)
				}
			},
		}, nil
	}
}
