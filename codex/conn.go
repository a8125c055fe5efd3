package codex

import (
	"io"

	"github.com/hermes-lsp/hermes-lsp/internal/jsonrpc"
)

// codex is spoken to over internal/jsonrpc's endpoint, which package acp shares; the names below
// keep it part of this package's API, as it was before it moved there.

// JSON-RPC error codes that this package produces or recognises.
const (
	CodeParseError     = jsonrpc.CodeParseError
	CodeInvalidRequest = jsonrpc.CodeInvalidRequest // codex also answers unknown methods and early requests with it
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
	CodeInternalError  = jsonrpc.CodeInternalError
)

// ErrClosed is wrapped by the errors of calls on a connection that has ended.
var ErrClosed = jsonrpc.ErrClosed

type (
	// Conn is the JSON-RPC connection to codex: see jsonrpc.Conn.
	Conn = jsonrpc.Conn
	// ConnOptions configure a Conn: see jsonrpc.ConnOptions.
	ConnOptions = jsonrpc.ConnOptions
	// Error is a JSON-RPC error answer.
	Error = jsonrpc.Error
	// Request is a request the server sent to the client (an approval, an elicitation, a tool call).
	Request = jsonrpc.Request
	// Notification is a message from the server that expects no answer.
	Notification = jsonrpc.Notification
	// RequestHandler answers a server request: see jsonrpc.RequestHandler.
	RequestHandler = jsonrpc.RequestHandler
	// Pending is a request sent and not answered yet.
	Pending = jsonrpc.Pending
)

// Errorf returns an *Error with the given code, for request handlers that want a specific code.
func Errorf(code int64, format string, args ...any) *Error {
	return jsonrpc.Errorf(code, format, args...)
}

// NewConn starts a connection reading r and writing w, as jsonrpc.NewConn does; its errors and
// logs name codex unless opts.Peer names someone else.
func NewConn(r io.ReadCloser, w io.WriteCloser, opts ConnOptions) *Conn {
	if opts.Peer == "" {
		opts.Peer = "codex"
	}
	return jsonrpc.NewConn(r, w, opts)
}
